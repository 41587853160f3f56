// The Vulkan frame passes (src/vulkan/frame/, shaders/frame/) against the CPU backend's functions
// (cpu/input_planes.cpp, staging.cpp, output_pass.cpp) on small frames: 64x64 -> 128x128 and the
// odd 37x23 -> 80x50, with NaN/Inf in the inputs, history and recurrent state present.
// Bounds: exposure, input planes, replaced-value counts, staged e4m3 codes, t(colour), dilated
// motion, exact output bytes, history and recurrent features, the staged masks (R8_UNORM, R16F
// and R32F, with NaN/Inf and values outside [0, 1] as device memory may hold) and their counts,
// the output with masks: bit-identical (the CPU-vs-CUDA
// pre-network and exact output tests are bit-identical too). Fast output: the CUDA fast output
// test's bound, |t(fast) - t(exact)| <= 2^-13 per channel for all but 1e-3 of the pixels.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "api/resource_desc.h"
#include "cpu/input_planes.h"
#include "cpu/output_pass.h"
#include "cpu/staging.h"
#include "frame/exposure.h"
#include "frame/formats.h"
#include "frame/mask_pixel.h"
#include "frame/frame_sequence.h"
#include "model/model_spec.h"
#include "numeric/e4m3.h"
#include "numeric/float_bits.h"
#include "numeric/half.h"
#include "vulkan/frame/frame_passes.h"
#include "vulkan/frame/host_frame_io.h"
#include "vulkan_test_support.h"

namespace swinup::vulkan {
namespace {

using testing::VulkanTest;

struct Size {
    int rw, rh, dw, dh;
};
const Size kSizes[] = {{64, 64, 128, 128}, {37, 23, 80, 50}};

// Transfers between host vectors and device buffers inside one recording.
class Transfers {
public:
    explicit Transfers(Device& d) : device_(d) {}
    template <class T>
    void upload(Recorder& rec, const std::vector<T>& data, const Buffer& dst) {
        keep_.emplace_back(device_, data.size() * sizeof(T), MemoryUse::Upload);
        keep_.back().write(data.data(), data.size() * sizeof(T));
        rec.copy_buffer(keep_.back(), 0, dst, 0, data.size() * sizeof(T));
    }
    // Returns an index for read() after the submission.
    size_t download(Recorder& rec, const Buffer& src, size_t bytes) {
        keep_.emplace_back(device_, bytes, MemoryUse::Readback);
        rec.copy_buffer(src, 0, keep_.back(), 0, bytes);
        return keep_.size() - 1;
    }
    template <class T>
    std::vector<T> read(size_t index, size_t count) const {
        std::vector<T> v(count);
        keep_[index].read(v.data(), count * sizeof(T));
        return v;
    }

private:
    Device& device_;
    std::vector<Buffer> keep_;
};

uint32_t bits(float f) { return float_to_bits(f); }

template <class T>
void expect_bits_equal(const char* what, const std::vector<T>& got, const T* want, size_t n) {
    size_t bad = 0;
    for (size_t i = 0; i < n; ++i) {
        uint32_t g, w;
        if constexpr (std::is_same_v<T, float>) {
            g = bits(got[i]);
            w = bits(want[i]);
        } else {
            g = got[i];
            w = want[i];
        }
        if (g != w && ++bad <= 5) {
            ADD_FAILURE() << what << "[" << i << "]: Vulkan 0x" << std::hex << g << ", CPU 0x" << w << std::dec;
        }
    }
    EXPECT_EQ(bad, 0u) << what << ": " << bad << " of " << n << " differ";
}

// The device side of a frame-pass test: the frame's buffers, the passes, transfers and a command
// buffer begun with the buffers' initialisation recorded.
struct DeviceFrame {
    FrameBuffers buffers;
    FramePasses passes;
    Transfers t;
    HostSubmitter submitter;
    Recorder& rec;

    DeviceFrame(Device& device, const Size& size, swinup_precision precision)
        : buffers(device, size.rw, size.rh, size.dw, size.dh), passes(device, precision), t(device), submitter(device),
          rec(submitter.begin()) {
        buffers.record_initialise(rec);
    }
};

// Random host inputs of one frame, with NaN/Inf sprinkled in.
struct HostInputs {
    std::vector<uint8_t> color, depth, motion, reactive, transparency;
    float exposure_texture = 0.0f;
};

// An R8_UNORM mask of random codes (0 and 255 among them).
void fill_unorm8_mask(std::mt19937& rng, swinup_resource& r, std::vector<uint8_t>& bytes, uint32_t w, uint32_t h,
                      uint32_t pad_bytes) {
    r.format = SWINUP_FORMAT_R8_UNORM;
    r.width = w;
    r.height = h;
    r.memory = SWINUP_MEMORY_HOST;
    r.row_pitch = w + pad_bytes;
    bytes.assign(r.row_pitch * h, 0);
    for (uint32_t y = 0; y < h; ++y)
        for (uint32_t x = 0; x < w; ++x) bytes[y * r.row_pitch + x] = uint8_t(rng() % 4 == 0 ? (rng() % 2) * 255 : rng());
    r.data = bytes.data();
}

void fill_resource(std::mt19937& rng, swinup_resource& r, std::vector<uint8_t>& bytes, swinup_format format,
                   uint32_t w, uint32_t h, float lo, float hi, uint32_t pad_bytes) {
    r.format = format;
    r.width = w;
    r.height = h;
    r.memory = SWINUP_MEMORY_HOST;
    const size_t row = w * format_pixel_bytes(format);
    r.row_pitch = row + pad_bytes;
    bytes.assign(r.row_pitch * h, 0);
    std::uniform_real_distribution<float> value(lo, hi);
    const float specials[] = {NAN, INFINITY, -INFINITY, -1.0f};
    const int channels = format_channels(format);
    for (uint32_t y = 0; y < h; ++y) {
        for (uint32_t e = 0; e < w * static_cast<uint32_t>(channels); ++e) {
            float v = value(rng);
            if (rng() % 97 == 0) v = specials[rng() % 4];
            uint8_t* p = bytes.data() + y * r.row_pitch;
            if (format_is_half(format)) {
                const uint16_t hb = f32_to_f16_bits(v);
                std::memcpy(p + e * 2, &hb, 2);
            } else {
                std::memcpy(p + e * 4, &v, 4);
            }
        }
    }
    r.data = bytes.data();
}

struct PreCase {
    Size size;
    swinup_format color_format, motion_format;
    uint32_t flags;
    bool exposure_texture;
    int previous_smaller_by = 0;  // the previous frame's render size, this many pixels smaller
    // The masks' formats (SWINUP_FORMAT_UNKNOWN: absent). Their values include NaN/Inf and values
    // outside [0, 1], which device memory may hold (host validation is not run here).
    swinup_format reactive = SWINUP_FORMAT_UNKNOWN, transparency = SWINUP_FORMAT_UNKNOWN;
};

class VulkanFrame : public VulkanTest {
protected:
    void check_pre_network(const PreCase& c) {
        SCOPED_TRACE(std::to_string(c.size.rw) + "x" + std::to_string(c.size.rh) + " flags " + std::to_string(c.flags));
        if ((c.flags & SWINUP_FLAG_AUTO_EXPOSURE) && !device().capabilities().shader_float64) {
            GTEST_SKIP() << "auto exposure needs shaderFloat64, which " << device().name() << " lacks";
        }
        std::mt19937 rng(c.size.rw * 131 + c.flags);
        swinup_context_desc ctx;
        swinup_context_desc_init(&ctx);
        ctx.max_render_width = c.size.rw;
        ctx.max_render_height = c.size.rh;
        ctx.display_width = c.size.dw;
        ctx.display_height = c.size.dh;
        ctx.flags = c.flags;
        swinup_dispatch_desc d;
        swinup_dispatch_desc_init(&d);
        d.render_width = c.size.rw;
        d.render_height = c.size.rh;
        d.jitter_x = 0.3125f;
        d.jitter_y = -0.1875f;
        d.mv_scale_x = 1.5f;
        d.mv_scale_y = -0.75f;
        d.pre_exposure = 1.25f;
        d.exposure_value = 0.8f;
        HostInputs in;
        fill_resource(rng, d.color, in.color, c.color_format, c.size.rw, c.size.rh, 0.0f, 6.0f, 4);
        fill_resource(rng, d.depth, in.depth, SWINUP_FORMAT_R32F, c.size.rw, c.size.rh, 0.0f, 1.0f, 0);
        const bool mv_display = (c.flags & SWINUP_FLAG_MV_DISPLAY_RES) != 0;
        fill_resource(rng, d.motion_vectors, in.motion, c.motion_format, mv_display ? c.size.dw : c.size.rw,
                      mv_display ? c.size.dh : c.size.rh, -9.0f, 9.0f, 8);
        if (c.exposure_texture) {
            in.exposure_texture = 1.75f;
            d.exposure.data = &in.exposure_texture;
            d.exposure.format = SWINUP_FORMAT_R32F;
            d.exposure.width = d.exposure.height = 1;
        }
        const struct {
            swinup_format format;
            swinup_resource* r;
            std::vector<uint8_t>* bytes;
        } masks[2] = {{c.reactive, &d.reactive_mask, &in.reactive}, {c.transparency, &d.transparency_mask, &in.transparency}};
        for (const auto& m : masks) {
            if (m.format == SWINUP_FORMAT_R8_UNORM) fill_unorm8_mask(rng, *m.r, *m.bytes, c.size.rw, c.size.rh, 3);
            if (m.format == SWINUP_FORMAT_R16F || m.format == SWINUP_FORMAT_R32F) {
                fill_resource(rng, *m.r, *m.bytes, m.format, c.size.rw, c.size.rh, -0.25f, 1.25f, 2);
            }
        }
        const bool has_masks = d.reactive_mask.data != nullptr || d.transparency_mask.data != nullptr;

        // A previous frame (same size, other jitter) so that the history is read.
        FrameSequence sequence;
        swinup_dispatch_desc first = d;
        first.jitter_x = -0.25f;
        first.jitter_y = 0.125f;
        first.render_width = uint32_t(c.size.rw - c.previous_smaller_by);
        first.render_height = uint32_t(c.size.rh - c.previous_smaller_by);
        sequence.commit(sequence.begin(ctx, first));
        const FrameSetup frame = sequence.begin(ctx, d);
        ASSERT_TRUE(frame.history_valid);

        const size_t render = static_cast<size_t>(c.size.rw) * c.size.rh;
        const size_t display = static_cast<size_t>(c.size.dw) * c.size.dh;
        const size_t previous = static_cast<size_t>(frame.previous_width) * frame.previous_height;
        std::vector<uint16_t> history(display * 4), recurrent(previous * 4);
        std::vector<float> prev_z(previous);
        std::uniform_real_distribution<float> unit(0.0f, 1.0f);
        for (auto& h : history) h = f32_to_f16_bits(unit(rng) * 3.0f);
        for (auto& r : recurrent) r = f32_to_f16_bits(unit(rng) * 2.0f - 1.0f);
        for (auto& z : prev_z) z = unit(rng);

        // CPU.
        const int pw = frame.padded_width, ph = frame.padded_height;
        std::vector<double> row_sums(c.size.rh);
        const float exposure = frame.exposure.automatic
                                   ? cpu::auto_exposure(d, c.size.rw, c.size.rh, frame.exposure.pre_exposure, frame.srgb, row_sums)
                                   : frame.exposure.value;
        std::vector<float> color(render * 3), z(render), motion(render * 2), mask_plane(render * 2);
        std::vector<uint32_t> row_counts(static_cast<size_t>(c.size.rh) * cpu::kRowCounts);
        const cpu::ReplacedCounts counts = cpu::read_input_planes(d, frame, exposure, color.data(), z.data(),
                                                                  motion.data(), has_masks ? mask_plane.data() : nullptr,
                                                                  row_counts);
        EXPECT_GT(counts.color + counts.depth + counts.motion, 0u) << "the inputs hold no NaN/Inf";
        StageCurrent cur;
        static_cast<FrameGeometry&>(cur) = frame.geometry;
        cur.color = color.data();
        cur.z = z.data();
        cur.motion = motion.data();
        StagePrevious prev;
        prev.valid = true;
        prev.history = history.data();
        prev.z = prev_z.data();
        prev.recurrent = recurrent.data();
        prev.width = frame.previous_width;
        prev.height = frame.previous_height;
        std::vector<float> dilated(render * 2), tc(render * 3), staged(static_cast<size_t>(pw) * ph * kSlots);
        std::vector<float> staged_masks(static_cast<size_t>(pw) * ph * kMasks);
        cpu::StagingOutput staging_out{dilated.data(), tc.data(), staged.data(), pw, ph};
        if (has_masks) {
            staging_out.masks = mask_plane.data();
            staging_out.staged_masks = staged_masks.data();
        }
        cpu::stage_frame(cur, prev, staging_out);

        // Vulkan.
        DeviceFrame v(device(), c.size, SWINUP_PRECISION_EXACT);
        HostFrameIo io(device(), ctx);
        v.t.upload(v.rec, history, v.buffers.history[frame.current]);
        v.t.upload(v.rec, recurrent, v.buffers.recurrent[frame.current]);
        v.t.upload(v.rec, prev_z, v.buffers.depth[frame.current]);
        const FrameInputViews views = io.record_upload(v.rec, d);
        FramePush push = frame_push(frame, d, 0.0f);
        push.flags |= mask_flags(views);
        v.passes.record_exposure(v.rec, push, frame, views, v.buffers);
        v.passes.record_input_planes(v.rec, push, frame, views, v.buffers);
        v.passes.record_staging(v.rec, push, frame, v.buffers);
        // The network's mask tokens, lite (2x2 pixels a token) then full (a pixel a token).
        size_t r_tokens[2] = {0, 0};
        if (has_masks) {
            for (int lite = 1; lite >= 0; --lite) {
                v.passes.record_mask_tokens(v.rec, push, v.buffers, lite == 1);
                r_tokens[1 - lite] = v.t.download(v.rec, v.buffers.mask_tokens, static_cast<size_t>(pw) * ph * 4);
            }
        }
        const size_t r_scalars = v.t.download(v.rec, v.buffers.scalars, sizeof(FrameScalars));
        const size_t r_color = v.t.download(v.rec, v.buffers.color, render * 12);
        const size_t r_z = v.t.download(v.rec, v.buffers.depth[frame.next], render * 4);
        const size_t r_motion = v.t.download(v.rec, v.buffers.motion, render * 8);
        const size_t r_staged = v.t.download(v.rec, v.buffers.staged, static_cast<size_t>(pw) * ph * kSlots);
        const size_t r_tc = v.t.download(v.rec, v.buffers.tc, render * 12);
        const size_t r_dilated = v.t.download(v.rec, v.buffers.dilated, render * 8);
        const size_t r_masks = v.t.download(v.rec, v.buffers.masks, render * 8);
        v.submitter.submit_and_wait();

        const auto scalars = v.t.read<FrameScalars>(r_scalars, 1)[0];
        EXPECT_EQ(bits(scalars.exposure), bits(exposure)) << scalars.exposure << " vs " << exposure;
        EXPECT_EQ(scalars.color_replaced, counts.color);
        EXPECT_EQ(scalars.depth_replaced, counts.depth);
        EXPECT_EQ(scalars.motion_replaced, counts.motion);
        EXPECT_EQ(scalars.color_pixels, counts.color_pixels);
        EXPECT_EQ(scalars.motion_pixels, counts.motion_pixels);
        for (int m = 0; m < kMasks; ++m) {
            EXPECT_EQ(scalars.mask_nonfinite[m], counts.mask_nonfinite[m]) << "mask " << m;
            EXPECT_EQ(scalars.mask_out_of_range[m], counts.mask_out_of_range[m]) << "mask " << m;
        }
        if (has_masks) {
            EXPECT_GT(counts.mask_nonfinite[0] + counts.mask_nonfinite[1], 0u) << "the masks hold no NaN/Inf";
            EXPECT_GT(counts.mask_out_of_range[0] + counts.mask_out_of_range[1], 0u) << "no mask value out of range";
            expect_bits_equal("mask plane", v.t.read<float>(r_masks, render * 2), mask_plane.data(), render * 2);
            // The CPU network's mask inputs (cpu/staging.cpp's padded e4m3 plane) packed as
            // mask_embed's rows: lite gathers quadrants (cpu/network.cpp embed_lite), full (r, t, 0, 0).
            const auto code = [&](int x, int y, int k) {
                return f32_to_e4m3(staged_masks[(static_cast<size_t>(y) * pw + x) * kMasks + k]);
            };
            std::vector<uint8_t> lite_tokens, full_tokens;
            for (int ty = 0; ty < ph / 2; ++ty)
                for (int tx = 0; tx < pw / 2; ++tx)
                    for (int q = 0; q < 4; ++q)
                        for (int k = 0; k < kMasks; ++k) lite_tokens.push_back(code(2 * tx + (q & 1), 2 * ty + (q >> 1), k));
            for (int y = 0; y < ph; ++y)
                for (int x = 0; x < pw; ++x) full_tokens.insert(full_tokens.end(), {code(x, y, 0), code(x, y, 1), 0, 0});
            expect_bits_equal("lite mask tokens", v.t.read<uint8_t>(r_tokens[0], lite_tokens.size()), lite_tokens.data(),
                              lite_tokens.size());
            expect_bits_equal("full mask tokens", v.t.read<uint8_t>(r_tokens[1], full_tokens.size()), full_tokens.data(),
                              full_tokens.size());
        }
        expect_bits_equal("colour plane", v.t.read<float>(r_color, render * 3), color.data(), render * 3);
        expect_bits_equal("depth plane", v.t.read<float>(r_z, render), z.data(), render);
        expect_bits_equal("motion plane", v.t.read<float>(r_motion, render * 2), motion.data(), render * 2);
        expect_bits_equal("t(colour)", v.t.read<float>(r_tc, render * 3), tc.data(), render * 3);
        expect_bits_equal("dilated motion", v.t.read<float>(r_dilated, render * 2), dilated.data(), render * 2);
        const auto codes = v.t.read<uint8_t>(r_staged, static_cast<size_t>(pw) * ph * kSlots);
        std::vector<uint8_t> want(codes.size());
        for (size_t i = 0; i < want.size(); ++i) want[i] = f32_to_e4m3(staged[i]);
        expect_bits_equal("staged e4m3 slots", codes, want.data(), want.size());
    }

    // with_masks: a (reactive, transparency) plane of zeros, ones and fractions; still pixels
    // (zero motion) take the shift, so the transparency mask acts too.
    void check_output(const Size& size, swinup_format format, swinup_precision precision, bool with_masks = false) {
        SCOPED_TRACE(std::to_string(size.rw) + "x" + std::to_string(size.rh) + " format " + std::to_string(format) +
                     (precision == SWINUP_PRECISION_FAST ? " fast" : " exact") + (with_masks ? " masks" : ""));
        std::mt19937 rng(size.rw * 7 + format);
        swinup_context_desc ctx = sized_context_desc(size.rw, size.rh, size.dw, size.dh);
        ctx.output_format = format;
        ctx.precision = precision;
        swinup_dispatch_desc d;
        swinup_dispatch_desc_init(&d);
        d.render_width = size.rw;
        d.render_height = size.rh;
        d.jitter_x = -0.375f;
        d.jitter_y = 0.0625f;
        d.pre_exposure = 1.5f;
        d.exposure_value = 0.625f;
        std::vector<uint8_t> output_bytes(static_cast<size_t>(size.dw) * size.dh * format_pixel_bytes(format) +
                                          16 * size.dh);
        d.output.data_mut = output_bytes.data();
        d.output.data = output_bytes.data();
        d.output.format = format;
        d.output.width = size.dw;
        d.output.height = size.dh;
        d.output.row_pitch = size.dw * format_pixel_bytes(format) + 16;
        FrameSequence sequence;
        sequence.commit(sequence.begin(ctx, d));
        const FrameSetup frame = sequence.begin(ctx, d);
        const int pw = frame.padded_width, ph = frame.padded_height;
        const size_t render = static_cast<size_t>(size.rw) * size.rh;
        const size_t display = static_cast<size_t>(size.dw) * size.dh;
        std::uniform_real_distribution<float> unit(0.0f, 1.0f);
        std::vector<float> tc(render * 3), dilated(render * 2), head(static_cast<size_t>(pw) * ph * kHeadOutputs);
        std::vector<uint16_t> history(display * 4);
        for (auto& v : tc) v = unit(rng) * 2.8f;
        for (size_t i = 0; i < render; ++i) {
            const bool still = rng() % 5 == 0;
            dilated[i * 2] = still ? 0.0f : unit(rng) * 6.0f - 3.0f;
            dilated[i * 2 + 1] = still ? 0.0f : unit(rng) * 6.0f - 3.0f;
        }
        for (auto& v : head) v = rng() % 211 == 0 ? NAN : unit(rng) * 6.0f - 3.0f;
        for (auto& h : history) h = f32_to_f16_bits(unit(rng) * 3.0f);
        const float still_shift = 1.5f;
        std::vector<float> mask_plane(render * 2);
        for (auto& m : mask_plane) {
            const uint32_t kind = static_cast<uint32_t>(rng() % 3);
            m = kind == 0 ? 0.0f : kind == 1 ? 1.0f : unit(rng);
        }

        // CPU (exact: the reference either way).
        OutputCurrent cur;
        static_cast<FrameGeometry&>(cur) = frame.geometry;
        cur.tc = tc.data();
        cur.motion = dilated.data();
        cur.head = head.data();
        cur.head_stride = pw;
        cur.still_history_shift = still_shift;
        cur.masks = with_masks ? mask_plane.data() : nullptr;
        OutputPrevious prev{true, history.data()};
        std::vector<uint8_t> cpu_output(output_bytes.size());
        swinup_resource cpu_resource = d.output;
        cpu_resource.data_mut = cpu_output.data();
        cpu_resource.data = cpu_output.data();
        cpu::OutputTarget target{&cpu_resource, frame.exposure.value, frame.exposure.pre_exposure};
        std::vector<PixelKernel> kernels(render);
        std::vector<uint16_t> new_history(display * 4), recurrent(render * 4);
        cpu::output_frame(cur, prev, kernels.data(), new_history.data(), target);
        cpu::keep_recurrent_features(head.data(), pw, size.rw, size.rh, recurrent.data());

        // Vulkan.
        DeviceFrame v(device(), size, precision);
        HostFrameIo io(device(), ctx);
        v.t.upload(v.rec, tc, v.buffers.tc);
        v.t.upload(v.rec, dilated, v.buffers.dilated);
        v.t.upload(v.rec, head, v.buffers.head);
        v.t.upload(v.rec, history, v.buffers.history[frame.current]);
        v.t.upload(v.rec, mask_plane, v.buffers.masks);  // read only when the push says so
        FramePush push = frame_push(frame, d, still_shift);
        if (with_masks) push.flags |= kFlagReactiveMask | kFlagTransparencyMask;
        v.passes.record_exposure(v.rec, push, frame, FrameInputViews{}, v.buffers);
        io.record_prepare(v.rec);
        v.passes.record_output(v.rec, push, frame, v.buffers, io.output_view(), format);
        v.passes.record_recurrent(v.rec, push, frame, v.buffers);
        io.record_readback(v.rec);
        const size_t r_history = v.t.download(v.rec, v.buffers.history[frame.next], display * 8);
        const size_t r_recurrent = v.t.download(v.rec, v.buffers.recurrent[frame.next], render * 8);
        v.submitter.submit_and_wait();
        io.write_output(d);

        const auto got_history = v.t.read<uint16_t>(r_history, display * 4);
        expect_bits_equal("recurrent features", v.t.read<uint16_t>(r_recurrent, render * 4), recurrent.data(),
                          render * 4);
        if (precision == SWINUP_PRECISION_EXACT) {
            expect_bits_equal("new history", got_history, new_history.data(), display * 4);
            expect_bits_equal("output bytes", output_bytes, cpu_output.data(), output_bytes.size());
            return;
        }
        // Fast: the history (the linear output) in t-space against the exact CPU's.
        size_t beyond = 0;
        double worst = 0.0;
        for (size_t p = 0; p < display; ++p) {
            double pixel = 0.0;
            for (int c = 0; c < 3; ++c) {
                const double a = std::log2(1.0 + f16_bits_to_f32(got_history[p * 4 + c]));
                const double b = std::log2(1.0 + f16_bits_to_f32(new_history[p * 4 + c]));
                pixel = std::max(pixel, std::abs(a - b));
            }
            worst = std::max(worst, pixel);
            if (pixel > 1.0 / 8192.0) ++beyond;
        }
        EXPECT_LE(static_cast<double>(beyond), 1e-3 * static_cast<double>(display))
            << beyond << " of " << display << " pixels beyond 2^-13 in t-space (worst " << worst << ")";
        std::printf("[ vulkan   ] fast output %dx%d: worst |t difference| %.3g, %zu pixels beyond 2^-13\n", size.dw,
                    size.dh, worst, beyond);
    }
};

TEST_F(VulkanFrame, PreNetworkPassesMatchTheCpuWithExposureValue) {
    for (const Size& s : kSizes) {
        check_pre_network({s, SWINUP_FORMAT_RGBA16F, SWINUP_FORMAT_RG16F, SWINUP_FLAG_MV_JITTERED, false});
    }
}

TEST_F(VulkanFrame, PreNetworkPassesMatchTheCpuWithHostExposureTextureHdrAndDisplayMotion) {
    for (const Size& s : kSizes) {
        check_pre_network({s, SWINUP_FORMAT_RGB32F, SWINUP_FORMAT_RG32F,
                           SWINUP_FLAG_HDR | SWINUP_FLAG_MV_DISPLAY_RES | SWINUP_FLAG_DEPTH_INVERTED, true});
    }
}

TEST_F(VulkanFrame, PreNetworkPassesMatchTheCpuAfterARenderSizeChange) {
    for (const Size& s : kSizes) {
        PreCase c{s, SWINUP_FORMAT_RGBA16F, SWINUP_FORMAT_RG32F, SWINUP_FLAG_MV_JITTERED, false};
        c.previous_smaller_by = 7;
        check_pre_network(c);
    }
}

// The exposure texture as the Vulkan-facing API binds it (a 1x1 R32F image on the device): its
// value, or 1 when it is not a positive finite number (frame/exposure.h read_exposure_texture).
TEST_F(VulkanFrame, ExposureTextureIsReadOnTheDeviceAndSanitised) {
    for (const float value : {2.5f, NAN, -1.0f, INFINITY}) {
        DeviceFrame v(device(), Size{8, 8, 16, 16}, SWINUP_PRECISION_EXACT);
        Image texture(device(), 1, 1, VK_FORMAT_R32_SFLOAT, VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT);
        v.rec.transition(texture, VK_IMAGE_LAYOUT_GENERAL);
        Buffer staging(device(), 4, MemoryUse::Upload);
        staging.write(&value, 4);
        v.rec.copy_buffer_to_image(staging, 0, texture);
        FrameSetup frame;
        frame.exposure.value = 3.0f;  // not used: the texture is bound
        FramePush push{};
        push.exposure_value = 3.0f;
        FrameInputViews inputs;
        inputs.exposure = {texture.view(), VK_IMAGE_LAYOUT_GENERAL};
        v.passes.record_exposure(v.rec, push, frame, inputs, v.buffers);
        const size_t r = v.t.download(v.rec, v.buffers.scalars, sizeof(FrameScalars));
        v.submitter.submit_and_wait();
        const float want = read_exposure_texture(&value);
        EXPECT_EQ(bits(v.t.read<FrameScalars>(r, 1)[0].exposure), bits(want)) << "texture value " << value;
    }
}

TEST_F(VulkanFrame, PreNetworkPassesMatchTheCpuWithMasks) {
    for (const Size& s : kSizes) {
        PreCase both{s, SWINUP_FORMAT_RGBA16F, SWINUP_FORMAT_RG16F, SWINUP_FLAG_MV_JITTERED, false};
        both.reactive = SWINUP_FORMAT_R8_UNORM;
        both.transparency = SWINUP_FORMAT_R16F;
        check_pre_network(both);
        PreCase one{s, SWINUP_FORMAT_RGBA32F, SWINUP_FORMAT_RG32F, SWINUP_FLAG_HDR, false};
        one.transparency = SWINUP_FORMAT_R32F;  // the reactive mask absent: 0
        check_pre_network(one);
        PreCase other{s, SWINUP_FORMAT_RGBA32F, SWINUP_FORMAT_RG32F, SWINUP_FLAG_HDR, false};
        other.reactive = SWINUP_FORMAT_R32F;
        other.transparency = SWINUP_FORMAT_R8_UNORM;
        check_pre_network(other);
    }
}

TEST_F(VulkanFrame, PreNetworkPassesMatchTheCpuWithAutoExposure) {
    for (const Size& s : kSizes) {
        check_pre_network({s, SWINUP_FORMAT_RGBA32F, SWINUP_FORMAT_RG16F, SWINUP_FLAG_HDR | SWINUP_FLAG_AUTO_EXPOSURE,
                           false});
    }
}

}  // namespace
}  // namespace swinup::vulkan

namespace swinup::vulkan {
namespace {

TEST_F(VulkanFrame, OutputPassExactMatchesTheCpuInEveryFormat) {
    for (const Size& s : kSizes) {
        for (swinup_format f : {SWINUP_FORMAT_RGBA16F, SWINUP_FORMAT_R10G10B10A2, SWINUP_FORMAT_RGBA8}) {
            check_output(s, f, SWINUP_PRECISION_EXACT);
        }
    }
}

TEST_F(VulkanFrame, OutputPassExactWithMasksMatchesTheCpuInEveryFormat) {
    for (const Size& s : kSizes) {
        for (swinup_format f : {SWINUP_FORMAT_RGBA16F, SWINUP_FORMAT_R10G10B10A2, SWINUP_FORMAT_RGBA8}) {
            check_output(s, f, SWINUP_PRECISION_EXACT, true);
        }
    }
}

TEST_F(VulkanFrame, OutputPassFastIsWithinItsBound) {
    for (const Size& s : kSizes) check_output(s, SWINUP_FORMAT_RGBA16F, SWINUP_PRECISION_FAST);
}

}  // namespace
}  // namespace swinup::vulkan
