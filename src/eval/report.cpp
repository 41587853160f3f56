#include "eval/report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

#include <nlohmann/json.hpp>

#include "eval/flip.h"
#include "eval/temporal_stability.h"

namespace swinup::eval {

namespace {

std::string fixed(double value, int decimals) {
    if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
    if (std::isnan(value)) return "n/a";  // a score with nothing to measure (JSON: null)
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, "%.*f", decimals, value);
    return buffer;
}

std::string pad(const std::string& s, size_t width, bool right_align) {
    if (s.size() >= width) return s;
    const std::string fill(width - s.size(), ' ');
    return right_align ? fill + s : s + fill;
}

std::string sequence_line(const EvaluationResult& r) {
    const SequenceInfo& i = r.info;
    std::ostringstream out;
    out << r.sequence << ": " << i.render_width << "x" << i.render_height << " -> "
        << i.display_width << "x" << i.display_height << ", " << i.frame_count << " frames ("
        << r.scored_frames << " scored";
    if (r.skip_frames > 0) out << ", first " << r.skip_frames << " skipped";
    out << "), " << (i.hdr ? "HDR" : "LDR") << ", stable pixels "
        << fixed(100.0 * r.stable_fraction, 1) << "%";
    if (r.has_masks) {
        out << ", masked pixels " << fixed(100.0 * r.masked_fraction, 1) << "% ("
            << (r.methods_got_masks ? "given to the methods, except NAME-nomasks"
                                    : "methods run without masks")
            << ")";
    }
    if (r.has_motion_masks) {
        out << ", disoccluded pixels " << fixed(100.0 * r.disoccluded_fraction, 2)
            << "%, moving-object pixels " << fixed(100.0 * r.moving_object_fraction, 2) << "%";
    }
    return out.str();
}

// LDR-FLIP for LDR sequences, HDR-FLIP for HDR ones (evaluation.h).
std::string flip_name(const EvaluationResult& r) { return r.info.hdr ? "HDR-FLIP" : "LDR-FLIP"; }

nlohmann::json number_or_null(double v) {
    return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr);
}

}  // namespace

std::string format_results_table(const EvaluationResult& r) {
    std::ostringstream out;
    out << sequence_line(r) << "\n";
    // The masked-region columns appear for sequences with masks (docs/quality.md).
    size_t name_width = 10;  // "swinup-nomasks" and frames folders' names may be longer
    for (const MethodScores& m : r.methods) name_width = std::max(name_width, m.name.size() + 2);
    out << pad("method", name_width, false) << pad("PSNR dB", 10, true) << pad("SSIM", 9, true)
        << pad(flip_name(r), 10, true) << pad("t-error", 10, true);
    if (r.has_masks) out << pad("mask PSNR", 11, true) << pad("mask t-err", 12, true);
    // The motion columns appear for sequences with motion masks.
    if (r.has_motion_masks) out << pad("disocc PSNR", 13, true) << pad("moving PSNR", 13, true);
    out << pad("ms/frame", 11, true) << "\n";
    for (const MethodScores& m : r.methods) {
        out << pad(m.name, name_width, false) << pad(fixed(m.psnr_db, 2), 10, true)
            << pad(fixed(m.ssim, 4), 9, true) << pad(fixed(m.flip, 4), 10, true)
            << pad(fixed(m.temporal_error, 4), 10, true);
        if (r.has_masks) {
            out << pad(fixed(m.masked_psnr_db, 2), 11, true)
                << pad(fixed(m.masked_temporal_error, 4), 12, true);
        }
        if (r.has_motion_masks) {
            out << pad(fixed(m.disocclusion_psnr_db, 2), 13, true)
                << pad(fixed(m.moving_object_psnr_db, 2), 13, true);
        }
        out << pad(fixed(m.ms_per_frame, 1), 11, true) << "\n";
    }
    return out.str();
}

std::string results_json(const EvaluationResult& r) {
    nlohmann::json j;
    const SequenceInfo& i = r.info;
    j["sequence"] = r.sequence;
    j["render_size"] = {i.render_width, i.render_height};
    j["display_size"] = {i.display_width, i.display_height};
    j["frame_count"] = i.frame_count;
    j["skip_frames"] = r.skip_frames;
    j["scored_frames"] = r.scored_frames;
    j["hdr"] = i.hdr;
    j["stable_pixel_fraction"] = r.stable_fraction;
    j["has_masks"] = r.has_masks;
    j["methods_got_masks"] = r.methods_got_masks;
    j["masked_pixel_fraction"] = r.masked_fraction;
    j["has_motion_masks"] = r.has_motion_masks;
    j["disoccluded_pixel_fraction"] = r.disoccluded_fraction;
    j["moving_object_pixel_fraction"] = r.moving_object_fraction;
    j["metrics"] = {
        {"psnr_db", "10 log10(1 / MSE) of display-encoded RGB, MSE pooled over scored frames"},
        {"ssim",
         "mean over scored frames of SSIM on Rec.709 luma of display-encoded values, 11x11 "
         "Gaussian window (sigma 1.5), valid windows only"},
        {"flip",
         "mean over scored frames of the mean per-pixel FLIP error (lower is better): LDR-FLIP "
         "of the display-encoded frames for LDR, HDR-FLIP (ACES, automatic exposure range) of the "
         "linear frames for HDR; " +
             std::to_string(flip_default_pixels_per_degree()) +
             " pixels per degree (a 0.7 m wide 3840-pixel monitor at 0.7 m)"},
        {"flip_kind", flip_name(r)},
        {"temporal_error",
         "RMS over stable pixels of (output change - ground-truth change) between consecutive "
         "frames, each warped by the ground-truth motion"},
        {"masked_region",
         "display pixels whose nearest render pixel has max(reactive, transparency) > 0 in the "
         "sequence's masks; masked_psnr_db and masked_temporal_error are psnr_db and "
         "temporal_error over those pixels alone, unmasked_psnr_db psnr_db over the others"},
        {"motion_regions",
         "from the sequence's motion masks (display resolution, made by the renderer): "
         "disocclusion_psnr_db is psnr_db over the display pixels whose surface was hidden or off "
         "screen in at least one of the previous 4 frames (reprojected with the surface's own "
         "motion and compared with those frames' depth, 1% relative tolerance), "
         "moving_object_psnr_db over the pixels of objects that moved since the previous frame; "
         "null without motion masks"},
        {"display_encoding",
         "HDR: x/(1+x) per channel after exposure, then sRGB; LDR: clamp to [0,1], then sRGB"},
        {"disocclusion_tolerance", kDisocclusionTolerance},
        {"motion_edge_tolerance_px", kMotionEdgeTolerance}};
    nlohmann::json methods = nlohmann::json::array();
    for (const MethodScores& m : r.methods) {
        nlohmann::json jm;
        jm["name"] = m.name;
        if (!m.description.empty()) jm["description"] = m.description;
        jm["psnr_db"] = number_or_null(m.psnr_db);
        jm["ssim"] = number_or_null(m.ssim);
        jm["flip"] = number_or_null(m.flip);
        jm["temporal_error"] = number_or_null(m.temporal_error);
        jm["masked_psnr_db"] = number_or_null(m.masked_psnr_db);
        jm["masked_temporal_error"] = number_or_null(m.masked_temporal_error);
        jm["unmasked_psnr_db"] = number_or_null(m.unmasked_psnr_db);
        jm["disocclusion_psnr_db"] = number_or_null(m.disocclusion_psnr_db);
        jm["moving_object_psnr_db"] = number_or_null(m.moving_object_psnr_db);
        jm["ms_per_frame"] = number_or_null(m.ms_per_frame);
        nlohmann::json fp = nlohmann::json::array(), fs = nlohmann::json::array(),
                       ft = nlohmann::json::array();
        for (double v : m.frame_psnr_db) fp.push_back(number_or_null(v));
        for (double v : m.frame_ssim) fs.push_back(number_or_null(v));
        for (double v : m.frame_temporal_error) ft.push_back(number_or_null(v));
        jm["frame_psnr_db"] = fp;
        jm["frame_ssim"] = fs;
        jm["frame_temporal_error"] = ft;
        nlohmann::json ff = nlohmann::json::array();
        for (double v : m.frame_flip) ff.push_back(number_or_null(v));
        jm["frame_flip"] = ff;
        methods.push_back(jm);
    }
    j["methods"] = methods;
    return j.dump(2) + "\n";
}

std::string report_markdown(const EvaluationResult& r, const ReportContext& c) {
    std::ostringstream out;
    out << "# " << c.title << "\n\n";
    for (const std::string& note : c.notes) out << note << "\n\n";
    out << "Sequence: " << sequence_line(r) << ".\n\n";
    out << "| method | PSNR (dB) | SSIM | " << flip_name(r) << " | temporal error |"
        << (r.has_masks ? " masked PSNR (dB) | masked temporal error |" : "")
        << (r.has_motion_masks ? " disocclusion PSNR (dB) | moving-object PSNR (dB) |" : "")
        << " ms / frame |\n";
    out << "| --- | ---: | ---: | ---: | ---: |" << (r.has_masks ? " ---: | ---: |" : "")
        << (r.has_motion_masks ? " ---: | ---: |" : "") << " ---: |\n";
    for (const MethodScores& m : r.methods) {
        out << "| " << m.name << " | " << fixed(m.psnr_db, 2) << " | " << fixed(m.ssim, 4) << " | "
            << fixed(m.flip, 4) << " | " << fixed(m.temporal_error, 4) << " | ";
        if (r.has_masks) {
            out << fixed(m.masked_psnr_db, 2) << " | " << fixed(m.masked_temporal_error, 4) << " | ";
        }
        if (r.has_motion_masks) {
            out << fixed(m.disocclusion_psnr_db, 2) << " | " << fixed(m.moving_object_psnr_db, 2) << " | ";
        }
        out << fixed(m.ms_per_frame, 1) << " |\n";
    }
    out << "\n";
    for (const MethodScores& m : r.methods) {
        if (!m.description.empty()) out << "- " << m.name << ": " << m.description << "\n";
    }
    out << "\nHow to read it: PSNR and SSIM compare each output frame with the ground truth after "
           "the same display encoding (HDR: x/(1+x) per channel after exposure, then the sRGB "
           "curve; LDR: clamp, then sRGB); higher is better. SSIM is computed on luma with the "
           "standard 11x11 Gaussian window. "
        << flip_name(r)
        << " is NVIDIA's perceptual difference (the mean per-pixel error in [0, 1]; lower is "
           "better): "
        << (r.info.hdr ? "HDR-FLIP of the linear frames, ACES tone mapping over an automatic "
                         "range of exposures"
                       : "LDR-FLIP of the display-encoded frames")
        << ", for a 0.7 m wide 3840-pixel monitor seen from 0.7 m (67 pixels per degree). "
           "The temporal error is the RMS difference between how "
           "the output changes from one frame to the next and how the ground truth changes, both "
           "warped by the true motion, outside disocclusions and motion edges; lower is better "
           "(0 means the output flickers exactly as little as the truth). ms / frame is the "
           "method's own time on this machine.";
    if (r.has_masks) {
        out << " The masked columns score the same over the masked region alone: the display pixels "
               "whose nearest render pixel has a reactive or transparency mask value above 0 "
               "(particles, glass, animated textures), where history is least to be trusted.";
    }
    if (r.has_motion_masks) {
        out << " The disocclusion column is PSNR over the pixels uncovered within the last four "
               "frames (what a moving object leaves behind: history there is stale, and a ghost "
               "trail shows up in this column first); the moving-object column is PSNR over the "
               "pixels of objects that move in the scene. The renderer derives both from each "
               "surface point's own motion and the depth of the earlier frames.";
    }
    out << "\n\n";
    if (!c.timings.empty()) {
        out << "| stage | seconds |\n| --- | ---: |\n";
        for (const auto& [stage, seconds] : c.timings)
            out << "| " << stage << " | " << fixed(seconds, 2) << " |\n";
        out << "\n";
    }
    if (!c.pictures.empty()) {
        out << "Crops of frame " << r.picture_frame
            << " where the ground truth has the most detail "
            << "(enlarged, nearest neighbour):\n\n";
        for (const std::string& p : c.pictures) out << "![" << p << "](" << p << ")\n\n";
    }
    if (!c.command.empty()) out << "Reproduce with:\n\n```\n" << c.command << "\n```\n";
    return out.str();
}

}  // namespace swinup::eval
