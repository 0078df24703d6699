// Rendering the run report's sections into HTML (see report_html.h).
#include "report_html.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "html_text.h"
#include "svg_chart.h"

namespace neardup::report {

namespace {

constexpr const char* kStyle = R"(<style>
body{font-family:sans-serif;max-width:1100px;margin:1.5em auto;padding:0 1em;color:#222}
h1{font-size:1.5em}h2{font-size:1.2em;margin-top:1.8em;border-bottom:1px solid #ccc}
table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ccc;padding:2px 8px;text-align:left;vertical-align:top}
td.n,th.n{text-align:right}.note{color:#555;font-size:.9em}.bad{color:#b00}
.pair{display:grid;grid-template-columns:1fr 1fr;gap:8px;margin-bottom:1.2em}
.doc{border:1px solid #ccc;padding:6px;white-space:pre-wrap;overflow-wrap:anywhere;font-family:monospace;font-size:.85em;max-height:22em;overflow:auto}
del{background:#fbd0d0;text-decoration:none}ins{background:#c8f0c8;text-decoration:none}
</style>
)";

std::string row(const std::string& name, const std::string& valueHtml) {
    return fmt::format("<tr><th>{}</th><td>{}</td></tr>\n", escapeHtml(name), valueHtml);
}

std::string keepText(const RunParams& p) {
    if (p.keep == KeepPolicy::MaxField) return "max:" + p.reader.keepField;
    return toString(p.keep);
}

std::string inputsSection(const ReportData& d) {
    std::string html =
        "<h2>Inputs</h2>\n<table><tr><th>file</th><th class=\"n\">size</th>"
        "<th>compression</th></tr>\n";
    uint64_t total = 0;
    for (const InputFile& f : d.inputs) {
        total += f.size;
        html += fmt::format("<tr><td>{}</td><td class=\"n\">{}</td><td>{}</td></tr>\n",
                            escapeHtml(f.path), byteSizeText(f.size), toString(f.compression));
    }
    html += fmt::format("<tr><th>{} file(s)</th><td class=\"n\">{}</td><td></td></tr></table>\n",
                        d.inputs.size(), byteSizeText(total));
    return html;
}

std::string parametersSection(const RunResult& run) {
    const RunParams& p = run.params;
    const SignatureParams& s = p.signature;
    const NormalizeOptions& n = s.normalize;
    std::string html = "<h2>Parameters</h2>\n<table>\n";
    html += row("threshold", fmt::format("{:.3f}", p.compare.threshold));
    html +=
        row("bands \u00d7 rows (b \u00d7 r)", fmt::format("{} \u00d7 {}", p.lsh.bands, p.lsh.rows));
    html += row("hashes", fmt::format("{} ({} sketch, {} hashing)", s.hashes, toString(s.sketch),
                                      toString(s.family)));
    html += row("shingles", fmt::format("{} {}-grams", toString(s.shingle), s.ngram));
    html += row("normalization",
                fmt::format("NFC {}, lowercase {}, collapse whitespace {}, trim {}",
                            n.nfc ? "on" : "off", n.lowercase ? "on" : "off",
                            n.collapseWhitespace ? "on" : "off", n.trim ? "on" : "off"));
    html += row("seed", fmt::format("{}", s.seed));
    html += row("verify", toString(p.compare.verify));
    html += row("keep", escapeHtml(keepText(p)));
    html += row("decide", toString(p.decide));
    html += row("band keys",
                fmt::format("{}, buckets {} (resolved K {})", toString(p.lsh.scheme),
                            bucketsToString(p.lsh.bucketMode, p.lsh.buckets), run.resolvedBuckets));
    html += row("store floor", fmt::format("{:.3f}", p.compare.storeFloor));
    html += row("text field / id field",
                escapeHtml(p.reader.textField) + " / " + escapeHtml(p.reader.idField));
    html += row("backend", escapeHtml(run.backend));
    html +=
        row("started / finished", escapeHtml(run.startedAt) + " / " + escapeHtml(run.finishedAt));
    html += "</table>\n";
    return html;
}

// A run against a reference: which of its documents removed new ones, most first.
std::string referenceSection(const ReportData& d) {
    if (d.run.counts.referenceDocuments == 0) return {};
    std::string html = fmt::format(
        "<h2>Reference</h2>\n<p class=\"note\">{} reference document(s), never removed nor "
        "written; {} new document(s) removed for a near-duplicate in the reference, by {} "
        "reference document(s).</p>\n",
        groupedNumber(d.run.counts.referenceDocuments),
        groupedNumber(d.run.counts.removedByReference), groupedNumber(d.matchedReferenceDocuments));
    if (d.referenceMatches.empty()) return html;
    html += fmt::format(
        "<table><tr><th>reference document (the {} that removed the most)</th>"
        "<th class=\"n\">new documents removed for it</th></tr>\n",
        d.referenceMatches.size());
    for (const ReferenceLine& m : d.referenceMatches)
        html += fmt::format("<tr><td>{}</td><td class=\"n\">{}</td></tr>\n", escapeHtml(m.id),
                            groupedNumber(m.removed));
    return html + "</table>\n";
}

std::string countsSection(const ReportData& d) {
    const RunCounts& c = d.run.counts;
    const uint64_t lines = c.documents + c.rejected + c.blankLines;
    const uint64_t outcome = c.referenceDocuments + c.kept + c.removed;
    std::string html = "<h2>Counts</h2>\n<table>\n";
    const auto n = [](uint64_t v) { return groupedNumber(v); };
    html += row("lines read", n(c.linesRead));
    html += row("documents", n(c.documents));
    html += row("rejected lines", n(c.rejected));
    html += row("blank lines", n(c.blankLines));
    html += row("candidate pairs compared", n(c.candidatePairs));
    html +=
        row(c.referenceDocuments ? "duplicate pairs (each with a new document)" : "duplicate pairs",
            n(c.duplicatePairs));
    html += row("clusters (2+ documents)", n(c.clusters));
    if (c.referenceDocuments)
        html += row("reference documents (never removed)", n(c.referenceDocuments));
    html += row("kept", n(c.kept));
    html += row("removed", n(c.removed));
    if (c.referenceDocuments) html += row("removed for the reference", n(c.removedByReference));
    if (c.chainedRemovals)
        html += row(d.run.params.decide == DecideRule::Components
                        ? "removed without a witness (chained)"
                        : "chained removals the components rule would make",
                    n(c.chainedRemovals));
    html += "</table>\n";
    html += fmt::format(
        "<p id=\"accounting\">Accounting: lines read {} = documents {} + rejected {} + blank {} "
        "({}); documents {} = {}kept {} + removed {} ({}).</p>\n",
        n(c.linesRead), n(c.documents), n(c.rejected), n(c.blankLines),
        lines == c.linesRead ? "balanced" : "<span class=\"bad\">does not balance</span>",
        n(c.documents),
        c.referenceDocuments ? "reference " + n(c.referenceDocuments) + " + " : std::string(),
        n(c.kept), n(c.removed),
        outcome == c.documents ? "balanced" : "<span class=\"bad\">does not balance</span>");
    if (d.run.decisionsApplied)
        html += fmt::format(
            "<p class=\"note\">Kept and removed include {} audit decision(s) recorded in the "
            "workbench, as <code>neardup export</code> writes them.</p>\n",
            d.run.decisionsApplied);
    html += "<h3>Rejected lines by reason</h3>\n";
    if (d.run.rejections.empty()) return html + "<p>None.</p>\n";
    html += "<table><tr><th>reason</th><th class=\"n\">lines</th><th>first at</th></tr>\n";
    for (const RejectionCount& r : d.run.rejections)
        html += fmt::format("<tr><td>{}</td><td class=\"n\">{}</td><td>{}:{}</td></tr>\n",
                            escapeHtml(r.reason), n(r.count), escapeHtml(r.firstFile), r.firstLine);
    return html + "</table>\n";
}

std::string outliersTable(const ReportData& d) {
    if (d.outliers.empty()) return {};
    std::string html =
        "<h3>Outlier buckets</h3>\n<p class=\"note\">Buckets far larger than their band's mean "
        "(mean + 2\u03c3) that cost the most comparisons (a bucket of n documents costs "
        "n(n\u22121)/2).</p>\n<table><tr><th class=\"n\">band</th><th class=\"n\">documents</th>"
        "<th class=\"n\">comparisons</th><th class=\"n\">share of all</th></tr>\n";
    for (const OutlierLine& o : d.outliers)
        html += fmt::format(
            "<tr><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td>"
            "<td class=\"n\">{:.1f} %</td></tr>\n",
            o.band, groupedNumber(o.size), groupedNumber(o.comparisons),
            d.bucketComparisons ? 100.0 * double(o.comparisons) / double(d.bucketComparisons)
                                : 0.0);
    return html + "</table>\n";
}

std::string chartsSection(const ReportData& d) {
    const RunResult& run = d.run;
    std::string html = "<h2>Phase timings</h2>\n";
    std::vector<ChartBar> phases;
    for (const PhaseTiming& p : run.phases)
        phases.push_back(
            {p.name + (p.reused ? " (reused)" : ""), p.seconds, secondsText(p.seconds)});
    html += phases.empty() ? "<p>No phases recorded.</p>\n"
                           : horizontalBarChart(phases, "Seconds per phase");
    html +=
        "<h2>S-curve</h2>\n<p class=\"note\">The probability that a pair of Jaccard "
        "similarity s shares a bucket in at least one band; the dashed line is the "
        "threshold.</p>\n";
    html += sCurveChart(run.params.lsh.bands, run.params.lsh.rows, run.params.compare.threshold);
    html += "<h2>Bucket sizes</h2>\n";
    std::vector<ChartBar> buckets;
    for (std::size_t i = 0; i < d.bucketHistogram.size(); ++i) {
        const uint64_t low = uint64_t{1} << i, high = (uint64_t{1} << (i + 1)) - 1;
        buckets.push_back({low == high ? fmt::format("{}", low) : fmt::format("{}-{}", low, high),
                           double(d.bucketHistogram[i]), groupedNumber(d.bucketHistogram[i])});
    }
    html += buckets.empty() ? "<p>No bucket statistics (the run reused earlier pairs).</p>\n"
                            : columnChart(buckets, "Buckets by size, every band",
                                          "documents in a bucket", true);
    html += outliersTable(d);
    html += "<h2>Cluster sizes</h2>\n";
    std::vector<ChartBar> sizes;
    for (const SizeBin& b : d.clusterSizes)
        sizes.push_back(
            {b.low == b.high ? fmt::format("{}", b.low) : fmt::format("{}-{}", b.low, b.high),
             double(b.clusters), groupedNumber(b.clusters)});
    html += d.largestClusters.empty()
                ? "<p>No clusters.</p>\n"
                : columnChart(sizes, "Clusters by size", "documents in a cluster", true);
    return html;
}

// The largest clusters (components) in one table: the ten largest by size and every component
// the run names (component_chain.h: the three largest and every flagged one: a chain, or
// kLargeComponent members or more), largest first, with the diameter and flags of those the run
// measured, and what a chain means in plain words: the diameter is what tells a chain from a star
// of duplicates.
std::string largestSection(const ReportData& d) {
    if (d.largestClusters.empty() && d.components.empty()) return {};
    const NotableComponents& all = d.run.components;
    struct Row {
        uint32_t cluster = 0;
        uint64_t size = 0, removed = 0;
        std::string representativeId;
        bool keptWhole = false;
        const ComponentLine* measured = nullptr;  // null: not measured
    };
    std::vector<Row> rows;
    for (const ClusterLine& c : d.largestClusters)
        rows.push_back({c.cluster, c.size, c.removed, c.representativeId, c.keptWhole, nullptr});
    for (const ComponentLine& line : d.components) {
        const auto cluster = static_cast<uint32_t>(line.component.cluster);
        auto it = std::find_if(rows.begin(), rows.end(),
                               [cluster](const Row& r) { return r.cluster == cluster; });
        if (it == rows.end()) {
            rows.push_back({cluster, line.component.size, line.removed, line.representativeId,
                            line.keptWhole, nullptr});
            it = rows.end() - 1;
        }
        it->measured = &line;
    }
    // Largest first; among equal sizes the cluster numbered first.
    std::stable_sort(rows.begin(), rows.end(), [](const Row& x, const Row& y) {
        return x.size != y.size ? x.size > y.size : x.cluster < y.cluster;
    });
    std::string html = fmt::format(
        "<h2>Largest components</h2>\n<p class=\"note\">The largest clusters (connected "
        "components of duplicate pairs), with the diameter of those the run names: the three "
        "largest and every flagged one (a chain, or {} members or more). The diameter of a "
        "component is the "
        "lowest estimated Jaccard of a member with the kept representative. Below {:.3f} the "
        "component is flagged as a chain: a member far from the kept document, linked only "
        "through others. Components of {} members or more are flagged whatever their "
        "diameter. {} chain(s), {} large component(s).</p>\n",
        kLargeComponent, all.chainBelow, kLargeComponent, all.chains(), all.large());
    if (!all.diameterUnknown.empty())
        html += fmt::format("<p class=\"note\">No diameters: {}.</p>\n",
                            escapeHtml(all.diameterUnknown));
    html +=
        "<table><tr><th class=\"n\">cluster</th><th class=\"n\">documents</th><th "
        "class=\"n\">removed</th><th>kept representative</th><th class=\"n\">diameter</th>"
        "<th>farthest member</th><th>flag</th></tr>\n";
    for (const Row& r : rows) {
        std::string diameter = "not measured", farthest, flag;
        bool flagged = false;
        if (r.measured) {
            const ComponentDiameter& c = r.measured->component;
            diameter =
                std::isnan(c.diameter) ? std::string("unknown") : fmt::format("{:.3f}", c.diameter);
            farthest = r.measured->farthestId;
            if (c.chain)
                flag = "a chain: a member far from the kept document, linked only through others";
            if (c.large)
                flag +=
                    fmt::format("{}{} members or more", flag.empty() ? "" : "; ", kLargeComponent);
            flagged = c.flagged();
        }
        html += fmt::format(
            "<tr><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td>"
            "<td>{}{}</td><td class=\"n\">{}</td><td>{}</td><td{}>{}</td></tr>\n",
            r.cluster, groupedNumber(r.size), groupedNumber(r.removed),
            escapeHtml(r.representativeId), r.keptWhole ? " (kept whole by a decision)" : "",
            diameter, escapeHtml(farthest), flagged ? " class=\"bad\"" : "", escapeHtml(flag));
    }
    return html + "</table>\n";
}

std::string similarityText(const SamplePair& p) {
    std::string s = fmt::format("estimated Jaccard {:.3f}", p.estimated);
    if (p.exact >= 0) s += fmt::format(", exact {:.3f}", p.exact);
    return s;
}

std::string pairsSection(const ReportData& d) {
    // On a run against a reference the count leaves out the reference's own pairs, as the
    // run's counts and summary do: said here, so that nobody compares it with the reference's.
    std::string html = fmt::format(
        "<h2>Duplicate pairs, a sample</h2>\n<p class=\"note\">{} of the run's {} duplicate "
        "pairs{}, spread over their similarities from the threshold up. Words only one side has "
        "are marked (<del>left</del>, <ins>right</ins>).</p>\n",
        d.samplePairs.size(), groupedNumber(d.duplicatePairs),
        d.run.counts.referenceDocuments
            ? " with a new document (pairs of two reference documents are the reference's own "
              "and are not counted)"
            : "");
    if (d.textsOmitted)
        html +=
            "<p class=\"note\">Document texts are left out of this report (it was made "
            "without texts); the pairs are listed by id.</p>\n";
    const auto side = [](const std::string& id, bool removed) {
        return fmt::format("{} ({})", escapeHtml(id), removed ? "removed" : "kept");
    };
    for (const SamplePair& p : d.samplePairs) {
        html += fmt::format("<h3>{} \u2194 {}</h3>\n<p class=\"note\">{}</p>\n",
                            side(p.idA, p.removedA), side(p.idB, p.removedB), similarityText(p));
        if (!p.problem.empty())
            html +=
                fmt::format("<p class=\"bad\">Texts not shown: {}</p>\n", escapeHtml(p.problem));
        if (!p.textsShown) continue;
        const MarkedPair marked =
            markWordDifferences(p.textA, p.textB, d.run.params.signature.normalize);
        html += fmt::format(
            "<div class=\"pair\"><div class=\"doc\">{}{}</div><div class=\"doc\">"
            "{}{}</div></div>\n",
            marked.left, p.cutA ? " \u2026 (cut)" : "", marked.right,
            p.cutB ? " \u2026 (cut)" : "");
    }
    return html;
}

std::string reviewSection(const ReportData& d) {
    std::string html = "<h2>Review</h2>\n";
    html += fmt::format("<p id=\"review\">Reviewed {} of {} clusters.</p>\n",
                        groupedNumber(d.reviewedClusters), groupedNumber(d.run.counts.clusters));
    if (d.decisions.empty()) {
        html += "<p>No decisions recorded.</p>\n";
    } else {
        html += "<table><tr><th>decision</th><th class=\"n\">recorded</th></tr>\n";
        for (const DecisionCount& c : d.decisions)
            html += fmt::format("<tr><td>{}</td><td class=\"n\">{}</td></tr>\n", escapeHtml(c.kind),
                                groupedNumber(c.count));
        html += "</table>\n";
    }
    html += "<h3>Sampled audit</h3>\n";
    if (!d.audit) return html + "<p>No sampled audit of this run.</p>\n";
    const PrecisionEstimate& e = d.audit->estimate;
    // A precision is measured at a threshold: the audit's may be a working threshold of the
    // workbench rather than the run's own.
    const double own = d.run.params.compare.threshold;
    const std::string other =
        std::abs(e.threshold - own) > 1e-9
            ? fmt::format(
                  " The audit drew its pairs at \u03b8 {}, not at the run's \u03b8 {}: it "
                  "measures the run as re-clustered at {}.",
                  e.threshold, own, e.threshold)
            : std::string();
    if (e.judged == 0)
        return html +
               fmt::format("<p>Audit {}: {} pairs drawn at \u03b8 {}, none judged yet.{}</p>\n",
                           d.audit->sampleId, d.audit->drawn, e.threshold, other);
    return html + fmt::format(
                      "<p id=\"audit\">Audit {}: estimated precision {:.3f} (95 % interval "
                      "{:.3f}\u2013{:.3f}) at \u03b8 {}, {} of {} drawn pairs judged ({} "
                      "duplicates), {} unsure.{}</p>\n",
                      d.audit->sampleId, e.precision, e.low, e.high, e.threshold, e.judged,
                      d.audit->drawn, e.duplicates, e.unsure, other);
}

}  // namespace

std::string renderReport(const ReportData& d) {
    const std::string title = fmt::format("NearDup report: {}, run {}", d.projectName, d.run.runId);
    std::string html = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
    html += fmt::format("<title>{}</title>\n", escapeHtml(title));
    html += kStyle;
    html += "</head>\n<body>\n";
    html += fmt::format("<h1>{}</h1>\n", escapeHtml(title));
    html += d.textsOmitted
                ? "<p class=\"note\">Made by NearDup " NEARDUP_VERSION
                  " from the project file. It names documents by id and holds none of their "
                  "text.</p>\n"
                : "<p class=\"note\">Made by NearDup " NEARDUP_VERSION
                  " from the project file. It contains document text from the inputs: share it "
                  "as you would share the data.</p>\n";
    html += inputsSection(d);
    html += parametersSection(d.run);
    html += countsSection(d);
    html += referenceSection(d);
    html += chartsSection(d);
    html += largestSection(d);
    html += pairsSection(d);
    html += reviewSection(d);
    html += "</body>\n</html>\n";
    return html;
}

}  // namespace neardup::report
