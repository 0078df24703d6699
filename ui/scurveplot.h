// The LSH S-curve: probability 1 - (1 - s^r)^b that a pair of Jaccard similarity s becomes a
// candidate, with the threshold marked, and the miss rate at it and the candidate rate 0.2 below
// it written above the axes (never over the curve, whatever the plot's size and θ).
#pragma once

#include "qcp.h"

namespace neardup::ui {

class SCurvePlot : public QCustomPlot {
    Q_OBJECT
  public:
    explicit SCurvePlot(QWidget* parent = nullptr);

    void setCurve(int bands, int rows, double threshold);

    // Values as plotted: the curve at s (nearest sample), 1 - P(threshold), P(threshold - 0.2).
    double plottedValueAt(double s) const;
    double missRate() const { return missRate_; }
    double lowCandidateRate() const { return lowRate_; }
    QString ratesText() const;
    // Where the rates are written, in pixels of the plot, and where the axes are drawn.
    QRectF ratesRect() const;
    QRect axesRect() const;

    static constexpr int kSamples = 401;

  private:
    QCPItemStraightLine* thresholdLine_;
    QCPItemStraightLine* lowLine_;
    QCPTextElement* label_;
    int bands_ = 0, rows_ = 0;
    double threshold_ = 0.8, missRate_ = 0, lowRate_ = 0;
    bool valid_ = false;
};

}  // namespace neardup::ui
