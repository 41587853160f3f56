#include "eval/method_registry.h"

#include <algorithm>
#include <sstream>
#include <stdexcept>

#include "eval/spatial_upscale.h"

namespace swinup::eval {

namespace {

class SpatialUpscaler final : public Upscaler {
public:
    explicit SpatialUpscaler(SpatialFilter filter) : filter_(filter) {}
    std::string name() const override { return spatial_filter_name(filter_); }
    Image upscale(const UpscaleInput& in) override {
        return spatial_upscale(in.frame.color, in.info.display_width, in.info.display_height,
                               in.jitter_x, in.jitter_y, filter_);
    }

private:
    SpatialFilter filter_;
};

std::string joined_names() {
    std::string s;
    for (const std::string& n : method_names()) s += (s.empty() ? "" : ", ") + n;
    return s;
}

}  // namespace

const std::vector<std::string>& method_names() {
    static const std::vector<std::string> names = {"nearest",  "bilinear", "bicubic",
                                                   "lanczos3", "taau",     "swinup"};
    return names;
}

std::unique_ptr<Upscaler> make_method(const std::string& name, const MethodOptions& options) {
    if (name == "nearest") return std::make_unique<SpatialUpscaler>(SpatialFilter::nearest);
    if (name == "bilinear") return std::make_unique<SpatialUpscaler>(SpatialFilter::bilinear);
    if (name == "bicubic") return std::make_unique<SpatialUpscaler>(SpatialFilter::catmull_rom);
    if (name == "lanczos3") return std::make_unique<SpatialUpscaler>(SpatialFilter::lanczos3);
    if (name == "taau") return std::make_unique<TaauUpscaler>(options.taau);
    if (name == "swinup") return std::make_unique<SwinupUpscaler>(options.swinup);
    throw std::invalid_argument("unknown method '" + name + "' (known: " + joined_names() + ")");
}

std::vector<std::string> parse_method_list(const std::string& comma_separated) {
    if (comma_separated == "all") return method_names();
    std::vector<std::string> names;
    std::stringstream in(comma_separated);
    std::string item;
    while (std::getline(in, item, ',')) {
        if (item.empty()) continue;
        if (std::find(method_names().begin(), method_names().end(), item) == method_names().end()) {
            throw std::invalid_argument("unknown method '" + item + "' (known: " + joined_names() +
                                        ")");
        }
        if (std::find(names.begin(), names.end(), item) == names.end()) names.push_back(item);
    }
    if (names.empty())
        throw std::invalid_argument("no method given (known: " + joined_names() + ")");
    return names;
}

}  // namespace swinup::eval
