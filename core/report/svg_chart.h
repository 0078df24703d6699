// The run report's charts as inline SVG (no script, no external file): horizontal bars with a
// label per bar (phase timings), vertical bars over labelled bins (bucket and cluster sizes),
// and the LSH S-curve with the threshold marked. Every label is escaped; coordinates are
// printed with fixed precision so that the same data gives the same bytes.
#pragma once

#include <string>
#include <vector>

namespace neardup::report {

struct ChartBar {
    std::string label;  // plain text; escaped when drawn
    double value = 0;
    std::string valueText;  // shown at the bar's end ("1.25 s", "1,204")
};

// One row per bar, the label on the left in a column of its own, so that short bars never
// put their labels on top of each other.
std::string horizontalBarChart(const std::vector<ChartBar>& bars, const std::string& title);

// One column per bar, labels below; `logScale` draws heights on log10(1 + value), for counts
// that span orders of magnitude (bucket sizes).
std::string columnChart(const std::vector<ChartBar>& bars, const std::string& title,
                        const std::string& xLabel, bool logScale);

// P(candidate) = 1 - (1 - s^r)^b over s in [0, 1], with a vertical line at `threshold`.
std::string sCurveChart(int bands, int rows, double threshold);

}  // namespace neardup::report
