#include "scurveplot.h"

#include <cmath>

#include "lsh_buckets.h"

namespace neardup::ui {

SCurvePlot::SCurvePlot(QWidget* parent) : QCustomPlot(parent) {
    setObjectName(QStringLiteral("sCurvePlot"));
    setMinimumHeight(200);
    addGraph();
    graph(0)->setPen(QPen(QColor(30, 100, 180), 2));
    graph(0)->setBrush(QColor(30, 100, 180, 30));
    addGraph();  // the two marked points
    graph(1)->setLineStyle(QCPGraph::lsNone);
    graph(1)->setScatterStyle(
        QCPScatterStyle(QCPScatterStyle::ssCircle, QColor(200, 60, 40), QColor(200, 60, 40), 7));
    xAxis->setLabel(tr("Jaccard similarity s"));
    yAxis->setLabel(tr("P(candidate)"));
    xAxis->setRange(0, 1);
    yAxis->setRange(0, 1.02);
    thresholdLine_ = new QCPItemStraightLine(this);
    thresholdLine_->setPen(QPen(QColor(200, 60, 40), 1.5, Qt::DashLine));
    lowLine_ = new QCPItemStraightLine(this);
    lowLine_->setPen(QPen(QColor(120, 120, 120), 1, Qt::DotLine));
    // The rates in a row of their own above the axes: inside them the text covered the curve
    // wherever it rose under it.
    plotLayout()->insertRow(0);
    label_ = new QCPTextElement(this, QString(), QFont(font().family(), font().pointSize() - 1));
    label_->setTextFlags(Qt::AlignLeft | Qt::AlignVCenter);
    label_->setMargins(QMargins(8, 2, 8, 0));
    plotLayout()->addElement(0, 0, label_);
    plotLayout()->setRowSpacing(0);
}

QRectF SCurvePlot::ratesRect() const {
    return label_->outerRect();
}

QRect SCurvePlot::axesRect() const {
    return axisRect()->rect();
}

void SCurvePlot::setCurve(int bands, int rows, double threshold) {
    valid_ = bands > 0 && rows > 0 && threshold > 0 && threshold <= 1;
    bands_ = bands;
    rows_ = rows;
    threshold_ = threshold;
    QVector<double> s(kSamples), p(kSamples);
    for (int i = 0; i < kSamples; ++i) {
        s[i] = double(i) / (kSamples - 1);
        p[i] = valid_ ? candidateProbability(s[i], bands, rows) : 0.0;
    }
    graph(0)->setData(s, p, true);
    const double low = std::max(0.0, threshold - 0.2);
    missRate_ = valid_ ? 1.0 - candidateProbability(threshold, bands, rows) : 0;
    lowRate_ = valid_ ? candidateProbability(low, bands, rows) : 0;
    graph(1)->setData(QVector<double>{low, threshold}, QVector<double>{lowRate_, 1.0 - missRate_},
                      true);
    thresholdLine_->point1->setCoords(threshold, 0);
    thresholdLine_->point2->setCoords(threshold, 1);
    lowLine_->point1->setCoords(low, 0);
    lowLine_->point2->setCoords(low, 1);
    label_->setText(valid_ ? ratesText() : tr("invalid parameters"));
    replot(QCustomPlot::rpQueuedReplot);
}

double SCurvePlot::plottedValueAt(double s) const {
    const auto samples = graph(0)->data();
    if (samples->isEmpty()) return 0;
    auto it = samples->findBegin(s, true);
    if (it == samples->constEnd()) --it;
    auto next = it + 1;
    if (next != samples->constEnd() && std::abs(next->key - s) < std::abs(it->key - s)) it = next;
    return it->value;
}

QString SCurvePlot::ratesText() const {
    return tr("b = %1, r = %2, \u03b8 = %3 \u00b7 miss rate at \u03b8: %4%\ncandidate rate at "
              "\u03b8\u22120.2 (s = %5): %6%")
        .arg(bands_)
        .arg(rows_)
        .arg(threshold_, 0, 'f', 3)
        .arg(missRate_ * 100, 0, 'f', 2)
        .arg(std::max(0.0, threshold_ - 0.2), 0, 'f', 2)
        .arg(lowRate_ * 100, 0, 'f', 2);
}

}  // namespace neardup::ui
