#include "bucketspanel.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QStandardItemModel>
#include <QTableView>
#include <QVBoxLayout>
#include <cmath>
#include "qcp.h"

#include "jobqueue.h"

namespace neardup::ui {

namespace {

struct BucketData {
    std::vector<BandRow> bands;
    std::vector<HistogramBin> bins;
    std::vector<OutlierRow> outliers;
    SizeMoments moments;
};

QStandardItem* numberItem(double sortValue, const QString& text) {
    auto* item = new QStandardItem(text);
    item->setData(sortValue, Qt::UserRole);
    item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    return item;
}

QString count(uint64_t v) {
    return QLocale().toString(static_cast<qulonglong>(v));
}

}  // namespace

BucketsPanel::BucketsPanel(JobQueue* jobs, QWidget* parent) : QWidget(parent), jobs_(jobs) {
    band_ = new QComboBox;
    band_->setObjectName(QStringLiteral("bandBox"));
    band_->addItem(tr("All bands"), -1);
    stats_ = new QLabel;
    stats_->setWordWrap(true);
    auto* top = new QHBoxLayout;
    top->addWidget(new QLabel(tr("Band")));
    top->addWidget(band_);
    top->addWidget(stats_, 1);

    plot_ = new QCustomPlot;
    plot_->setObjectName(QStringLiteral("bucketHistogram"));
    plot_->setMinimumHeight(220);
    plot_->xAxis->setScaleType(QCPAxis::stLogarithmic);
    // Powers of two on the size axis: they are the bin edges.
    auto sizeTicker = QSharedPointer<QCPAxisTickerLog>(new QCPAxisTickerLog);
    sizeTicker->setLogBase(2);
    sizeTicker->setSubTickCount(0);
    plot_->xAxis->setTicker(sizeTicker);
    plot_->xAxis->setNumberFormat(QStringLiteral("g"));
    plot_->yAxis->setScaleType(QCPAxis::stLogarithmic);
    plot_->yAxis->setTicker(QSharedPointer<QCPAxisTickerLog>(new QCPAxisTickerLog));
    plot_->xAxis->setLabel(tr("bucket size (members, log\u2082 bins)"));
    plot_->yAxis->setLabel(tr("buckets"));
    plot_->legend->setVisible(true);
    plot_->legend->setFont(QFont(font().family(), 8));
    plot_->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignTop | Qt::AlignRight);

    outliers_ = new QStandardItemModel(0, 5, this);
    outliers_->setHorizontalHeaderLabels(
        {tr("Band"), tr("Key"), tr("Size"), tr("Comparisons"), tr("Share of comparisons")});
    proxy_ = new QSortFilterProxyModel(this);
    proxy_->setSourceModel(outliers_);
    proxy_->setSortRole(Qt::UserRole);
    table_ = new QTableView;
    table_->setObjectName(QStringLiteral("outlierTable"));
    table_->setModel(proxy_);
    table_->setSortingEnabled(true);
    table_->sortByColumn(2, Qt::DescendingOrder);
    table_->verticalHeader()->hide();
    table_->verticalHeader()->setDefaultSectionSize(20);
    table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table_->horizontalHeader()->setStretchLastSection(true);
    table_->setAlternatingRowColors(true);

    auto* split = new QSplitter(Qt::Vertical);
    split->addWidget(plot_);
    auto* tableBox = new QWidget;
    auto* tv = new QVBoxLayout(tableBox);
    tv->setContentsMargins(0, 0, 0, 0);
    tv->addWidget(
        new QLabel(tr("Outlier buckets (size > mean + 2\u03c3), largest stored per "
                      "band:")));
    tv->addWidget(table_);
    split->addWidget(tableBox);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addLayout(top);
    layout->addWidget(split, 1);
    connect(band_, &QComboBox::currentIndexChanged, this, &BucketsPanel::reload);
}

int BucketsPanel::band() const {
    return band_->currentData().toInt();
}

void BucketsPanel::setRun(const RunInfo& run) {
    runId_ = run.runId;
    const QSignalBlocker block(band_);
    const int keep = band();
    band_->clear();
    band_->addItem(tr("All bands"), -1);
    for (int b = 0; b < run.params.lsh.bands; ++b)
        band_->addItem(tr("Band %1").arg(b), b);
    const int i = band_->findData(keep);
    band_->setCurrentIndex(i >= 0 ? i : 0);
    reload();
}

void BucketsPanel::reload() {
    const int serial = ++serial_;
    const qint64 runId = runId_;
    const int band = this->band();
    if (!runId) {
        plot_->clearPlottables();
        plot_->clearItems();
        plot_->replot();
        outliers_->removeRows(0, outliers_->rowCount());
        stats_->clear();
        return;
    }
    jobs_->submit<BucketData>(
        this,
        [runId, band](JobContext& c) {
            BucketData d;
            ProjectQueries& q = c.queries();
            d.bands = q.bandStats(runId);
            d.bins = q.histogram(runId, band);
            d.outliers = q.outliers(runId, band);
            d.moments = q.bucketSizeMoments(runId, band);
            return d;
        },
        [this, serial, band](BucketData d) {
            if (serial != serial_) return;
            uint64_t buckets = 0, multi = 0, maxSize = 0, comparisons = 0, outlierCount = 0;
            for (const BandRow& b : d.bands) {
                if (band >= 0 && b.band != band) continue;
                buckets += b.buckets;
                multi += b.multiBuckets;
                maxSize = std::max(maxSize, b.maxSize);
                comparisons += b.comparisons;
                outlierCount += b.outlierCount;
            }
            stats_->setText(
                tr("%1 buckets, %2 with two or more members, largest %3; %4 "
                   "comparisons; mean size %5, \u03c3 %6; %7 outliers")
                    .arg(count(buckets), count(multi), count(maxSize), count(comparisons))
                    .arg(d.moments.mean, 0, 'f', 3)
                    .arg(d.moments.stddev, 0, 'f', 3)
                    .arg(count(outlierCount)));

            // Bars at the geometric middle of each log2 bin; empty bins cannot sit on a log
            // axis, so they are left out and the value range is set by hand.
            plot_->clearPlottables();
            plot_->clearItems();
            auto* bars = new QCPBars(plot_->xAxis, plot_->yAxis);
            bars->setName(tr("buckets per size bin"));
            bars->setWidthType(QCPBars::wtAxisRectRatio);
            bars->setWidth(0.035);
            bars->setPen(QPen(QColor(40, 90, 160)));
            bars->setBrush(QColor(70, 130, 200, 200));
            QVector<double> keys, values;
            double maxCount = 1, maxKey = 2;
            for (const HistogramBin& bin : d.bins) {
                if (bin.count == 0) continue;
                const double key = std::sqrt(double(bin.sizeMin) * double(bin.sizeMax));
                keys << key;
                values << double(bin.count);
                maxCount = std::max(maxCount, double(bin.count));
                maxKey = std::max(maxKey, double(bin.sizeMax));
            }
            bars->setBaseValue(0.5);
            bars->setData(keys, values, true);
            drawnBins_ = int(keys.size());
            marker_ = d.moments.mean + 2 * d.moments.stddev;
            auto* line = new QCPItemStraightLine(plot_);
            line->setPen(QPen(QColor(200, 60, 40), 1.5, Qt::DashLine));
            line->point1->setCoords(std::max(marker_, 1.0), 0.5);
            line->point2->setCoords(std::max(marker_, 1.0), maxCount * 10);
            auto* label = new QCPItemText(plot_);
            label->setText(tr("mean + 2\u03c3 = %1").arg(marker_, 0, 'f', 2));
            label->setColor(QColor(200, 60, 40));
            label->setPositionAlignment(Qt::AlignLeft | Qt::AlignTop);
            label->position->setCoords(std::max(marker_, 1.0) * 1.08, maxCount * 3);
            plot_->xAxis->setRange(0.7, std::max(maxKey, marker_) * 2);
            plot_->yAxis->setRange(0.5, maxCount * 6);
            plot_->replot();

            outliers_->removeRows(0, outliers_->rowCount());
            for (const OutlierRow& o : d.outliers) {
                outliers_->appendRow(
                    {numberItem(o.band, QString::number(o.band)),
                     numberItem(double(o.key),
                                QStringLiteral("%1").arg(o.key, 16, 16, QLatin1Char('0'))),
                     numberItem(double(o.size), count(o.size)),
                     numberItem(double(o.comparisons), count(o.comparisons)),
                     numberItem(o.share, QStringLiteral("%1%").arg(o.share * 100, 0, 'f', 3))});
            }
            table_->resizeColumnsToContents();
            emit loaded();
        });
}

}  // namespace neardup::ui
