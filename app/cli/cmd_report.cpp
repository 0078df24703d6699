// `neardup report`: a stored run as one self-contained HTML file (core/report/run_report.h) that
// someone who never opens the workbench can read, and its clusters as CSV beside it on request.
#include <fmt/format.h>

#include <cstdio>

#include "commands.h"
#include "run_report.h"

namespace neardup::cli {

Command addReportCommand(CLI::App& app) {
    struct Options {
        std::string project;
        std::string out;
        std::string clustersCsv;
        report::ReportOptions report;
        bool noText = false;
        bool quiet = false;
    };
    auto opt = std::make_shared<Options>();
    CLI::App* cmd = app.add_subcommand(
        "report", "Write a stored run (the latest successful one by default) as one HTML file");
    addExistingProjectOption(*cmd, opt->project);
    cmd->add_option("--run", opt->report.runId, "Run number (default: the latest successful run)");
    cmd->add_option("--out", opt->out, "The HTML file to write")->required();
    CLI::Option* clustersCsv = cmd->add_option(
        "--clusters-csv", opt->clustersCsv,
        "Also write the run's clusters to this CSV file: one row per member (cluster, "
        "size, id, kept or removed, witness, Jaccard, decisions). A cell beginning "
        "with =, +, -, @, a tab or a carriage return gets a leading ' so that a "
        "spreadsheet shows it as text instead of running it as a formula");
    cmd->add_flag("--csv-raw", opt->report.csvRaw,
                  "Write the CSV's cells exactly as stored, without the leading ' before "
                  "formula-like ones: for scripts that read ids back byte for byte (never open "
                  "such a file in a spreadsheet when the ids come from untrusted data)")
        ->needs(clustersCsv);
    cmd->add_option("--pairs", opt->report.samplePairs,
                    "Duplicate pairs shown side by side (default 8)")
        ->check(CLI::Range(0, 1000));
    cmd->add_flag("--no-text", opt->noText,
                  "Leave document text out (pairs are listed by id): for sharing outside the "
                  "team, or when the inputs are no longer at hand");
    cmd->add_flag("-q,--quiet", opt->quiet, "Nothing on stderr but warnings and errors");
    return [opt]() -> int {
        report::ReportOptions options = opt->report;
        options.withTexts = !opt->noText;
        try {
            const report::ReportWritten w =
                report::writeRunReport(opt->project, opt->out, options, opt->clustersCsv);
            if (!opt->quiet)
                fmt::print(stderr,
                           "wrote the report of run {} to {} ({} bytes, {} pair(s) shown)\n",
                           w.runId, opt->out, w.bytes, w.pairsShown);
            if (!opt->clustersCsv.empty() && !opt->quiet)
                fmt::print(stderr, "wrote its clusters to {} ({} member row(s))\n",
                           opt->clustersCsv, w.csvRows);
        } catch (const report::ChangedInputError& e) {
            fmt::print(stderr,
                       "neardup report: {}; nothing written (--no-text writes the report without "
                       "document text)\n",
                       e.what());
            return kExitError;
        } catch (const report::ReportError& e) {
            fmt::print(stderr, "neardup report: {}; nothing written\n", e.what());
            return kExitError;
        }
        return kExitOk;
    };
}

}  // namespace neardup::cli
