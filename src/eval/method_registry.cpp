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

// A method run on the frames without their masks (Frame::masks left out).
class WithoutMasks final : public Upscaler {
public:
    explicit WithoutMasks(std::unique_ptr<Upscaler> inner) : inner_(std::move(inner)) {}
    std::string name() const override { return inner_->name() + kWithoutMasksSuffix; }
    std::string description() const override { return inner_->description(); }
    Image upscale(const UpscaleInput& in) override {
        if (in.frame.masks.empty()) return inner_->upscale(in);
        Frame bare;  // what the method reads: the render inputs, without the masks
        bare.color = in.frame.color;
        bare.depth = in.frame.depth;
        bare.mv = in.frame.mv;
        bare.mv_display = in.frame.mv_display;
        UpscaleInput without{in.info, bare, in.index, in.jitter_x, in.jitter_y, in.exposure, in.reset};
        return inner_->upscale(without);
    }

private:
    std::unique_ptr<Upscaler> inner_;
};

std::string joined_names() {
    std::string s;
    for (const std::string& n : method_names()) s += (s.empty() ? "" : ", ") + n;
    return s + " (each also as NAME" + kWithoutMasksSuffix + ": without the masks)";
}

// The base method's name when `name` ends in the suffix, else "".
std::string without_masks_base(const std::string& name) {
    const std::string suffix = kWithoutMasksSuffix;
    if (name.size() <= suffix.size() || name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0) {
        return "";
    }
    return name.substr(0, name.size() - suffix.size());
}

bool known_method(const std::string& name) {
    const std::string base = without_masks_base(name);
    const std::string& plain = base.empty() ? name : base;
    return std::find(method_names().begin(), method_names().end(), plain) != method_names().end();
}

}  // namespace

const std::vector<std::string>& method_names() {
    static const std::vector<std::string> names = {"nearest",  "bilinear", "bicubic",
                                                   "lanczos3", "taau",     "swinup"};
    return names;
}

std::unique_ptr<Upscaler> make_method(const std::string& name, const MethodOptions& options) {
    const std::string base = without_masks_base(name);
    if (!base.empty() && std::find(method_names().begin(), method_names().end(), base) != method_names().end()) {
        return std::make_unique<WithoutMasks>(make_method(base, options));
    }
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
        if (!known_method(item)) {
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
