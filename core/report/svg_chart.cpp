// Inline SVG charts for the run report.
#include "svg_chart.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "html_text.h"

namespace neardup::report {

namespace {

constexpr const char* kBarColour = "#4682c8";
constexpr const char* kAxisColour = "#555";

std::string svgOpen(int width, int height, const std::string& title) {
    return fmt::format(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" "
        "viewBox=\"0 0 {0} {1}\" role=\"img\" font-family=\"sans-serif\" font-size=\"12\">"
        "<title>{2}</title>\n",
        width, height, escapeHtml(title));
}

}  // namespace

std::string horizontalBarChart(const std::vector<ChartBar>& bars, const std::string& title) {
    constexpr int kLabelWidth = 170, kBarArea = 380, kValueWidth = 90, kRow = 22, kTop = 6;
    const int width = kLabelWidth + kBarArea + kValueWidth;
    const int height = kTop * 2 + kRow * std::max<int>(1, int(bars.size()));
    double max = 0;
    for (const ChartBar& b : bars)
        max = std::max(max, b.value);
    std::string svg = svgOpen(width, height, title);
    for (std::size_t i = 0; i < bars.size(); ++i) {
        const ChartBar& b = bars[i];
        const int y = kTop + int(i) * kRow;
        const double w = max > 0 ? kBarArea * b.value / max : 0;
        svg += fmt::format(
            "<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>"
            "<rect x=\"{}\" y=\"{}\" width=\"{:.1f}\" height=\"{}\" fill=\"{}\"/>"
            "<text x=\"{:.1f}\" y=\"{}\">{}</text>\n",
            kLabelWidth - 6, y + 15, escapeHtml(b.label), kLabelWidth, y + 3, w, kRow - 6,
            kBarColour, kLabelWidth + w + 4, y + 15, escapeHtml(b.valueText));
    }
    svg += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\" stroke=\"{3}\"/>\n",
                       kLabelWidth, kTop, height - kTop, kAxisColour);
    svg += "</svg>\n";
    return svg;
}

std::string columnChart(const std::vector<ChartBar>& bars, const std::string& title,
                        const std::string& xLabel, bool logScale) {
    constexpr int kColumn = 46, kLeft = 10, kTop = 18, kPlot = 160, kBottom = 44;
    // Wide enough for the axis label under a chart of few columns.
    const int width = std::max(400, kLeft * 2 + kColumn * std::max<int>(1, int(bars.size())));
    const int height = kTop + kPlot + kBottom;
    const auto scaled = [&](double v) { return logScale ? std::log10(1.0 + v) : v; };
    double max = 0;
    for (const ChartBar& b : bars)
        max = std::max(max, scaled(b.value));
    std::string svg = svgOpen(width, height, title);
    for (std::size_t i = 0; i < bars.size(); ++i) {
        const ChartBar& b = bars[i];
        const double h = max > 0 ? kPlot * scaled(b.value) / max : 0;
        const int x = kLeft + int(i) * kColumn;
        const double centre = x + kColumn / 2.0;
        svg += fmt::format(
            "<rect x=\"{}\" y=\"{:.1f}\" width=\"{}\" height=\"{:.1f}\" fill=\"{}\"/>"
            "<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\" font-size=\"10\">{}</text>"
            "<text x=\"{:.1f}\" y=\"{}\" text-anchor=\"middle\" font-size=\"10\">{}</text>\n",
            x + 4, kTop + kPlot - h, kColumn - 8, h, kBarColour, centre, kTop + kPlot - h - 3,
            escapeHtml(b.valueText), centre, kTop + kPlot + 14, escapeHtml(b.label));
    }
    svg += fmt::format(
        "<line x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\" stroke=\"{3}\"/>"
        "<text x=\"{4}\" y=\"{5}\" text-anchor=\"middle\">{6}</text>\n",
        kLeft, kTop + kPlot, width - kLeft, kAxisColour, width / 2, height - 8,
        escapeHtml(xLabel + (logScale ? " (heights on a log scale)" : "")));
    svg += "</svg>\n";
    return svg;
}

std::string sCurveChart(int bands, int rows, double threshold) {
    constexpr int kLeft = 46, kTop = 10, kPlot = 300, kBottom = 40, kRight = 14;
    const int width = kLeft + kPlot + kRight, height = kTop + kPlot / 2 + kBottom;
    const double plotHeight = kPlot / 2.0;
    const auto px = [&](double s) { return kLeft + s * kPlot; };
    const auto py = [&](double p) { return kTop + (1.0 - p) * plotHeight; };
    std::string svg = svgOpen(width, height,
                              fmt::format("S-curve: probability that a pair becomes a candidate, "
                                          "b = {}, r = {}",
                                          bands, rows));
    std::string points;
    for (int i = 0; i <= 100; ++i) {
        const double s = i / 100.0;
        const double p = 1.0 - std::pow(1.0 - std::pow(s, rows), bands);
        points += fmt::format("{}{:.1f},{:.1f}", i ? " " : "", px(s), py(p));
    }
    svg += fmt::format(
        "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{:.0f}\" fill=\"none\" stroke=\"{}\"/>\n",
        kLeft, kTop, kPlot, plotHeight, kAxisColour);
    for (int i = 0; i <= 4; ++i) {
        const double v = i / 4.0;
        svg += fmt::format(
            "<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\" font-size=\"10\">{:.2f}</text>"
            "<text x=\"{}\" y=\"{:.1f}\" text-anchor=\"end\" font-size=\"10\">{:.2f}</text>\n",
            px(v), kTop + plotHeight + 13, v, kLeft - 4, py(v) + 4, v);
    }
    const double thresholdAt = 1.0 - std::pow(1.0 - std::pow(threshold, rows), bands);
    svg += fmt::format(
        "<polyline points=\"{0}\" fill=\"none\" stroke=\"{1}\" stroke-width=\"2\"/>\n"
        "<line x1=\"{2:.1f}\" y1=\"{3}\" x2=\"{2:.1f}\" y2=\"{4:.1f}\" stroke=\"#c83232\" "
        "stroke-dasharray=\"4 3\"/>"
        "<text x=\"{5:.1f}\" y=\"{6}\" fill=\"#c83232\" font-size=\"11\">threshold {7:.2f}: "
        "P = {8:.3f}</text>\n"
        "<text x=\"{9:.1f}\" y=\"{10}\" text-anchor=\"middle\">Jaccard similarity s</text>\n",
        points, kBarColour, px(threshold), kTop, kTop + plotHeight, px(0.02), kTop + 14, threshold,
        thresholdAt, px(0.5), height - 6);
    svg += "</svg>\n";
    return svg;
}

}  // namespace neardup::report
