// An evaluation's results for people and programs: a fixed-width table (stdout, table.txt), JSON
// (--json, results.json) and a Markdown report (the demo's report.md).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "eval/evaluation.h"

namespace swinup::eval {

// The sequence line and one row per method: PSNR (dB), SSIM, FLIP (LDR-FLIP or HDR-FLIP, as the
// sequence is), temporal error, for a sequence with masks PSNR and temporal error over the masked
// region, ms per frame.
std::string format_results_table(const EvaluationResult& result);

// Everything in the table plus the per-frame scores and the conventions, as indented JSON.
// Non-finite numbers (PSNR of a perfect frame) are written as null.
std::string results_json(const EvaluationResult& result);

struct ReportContext {
    std::string title;                                    // first heading
    std::string command;                                  // the command that reproduces it
    std::vector<std::pair<std::string, double>> timings;  // (stage, seconds)
    std::vector<std::string> pictures;                    // file names, relative to the report
    std::vector<std::string> notes;                       // paragraphs shown before the table
};

// A Markdown report: notes, the results table, how the metrics are defined, the timings and the
// pictures.
std::string report_markdown(const EvaluationResult& result, const ReportContext& context);

}  // namespace swinup::eval
