#include "bucketspanel.h"

#include <QComboBox>
#include <QElapsedTimer>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QStandardItemModel>
#include <QTableView>
#include <QVBoxLayout>
#include <cmath>
#include <map>
#include "numbertext.h"
#include "qcp.h"

#include "bucket_members.h"
#include "jobqueue.h"
#include "projectdocument.h"

namespace neardup::ui {

// The band keys of the last run asked about, its document table and a CPU backend to compute
// keys with; kept between clicks so that only the first click on a run pays for the keys.
struct BucketMembersState {
    std::string project;
    BandKeyTable table;
    bool loaded = false;
    DocumentTable docs;
    int64_t docsDataset = -1;
    std::unique_ptr<Backend> backend;
};

struct BucketMembersResult {
    qint64 runId = 0;
    int band = 0;
    quint64 key = 0;
    bool ok = false;
    QString why;
    struct Row {
        uint32_t index = 0;
        QString id;
        uint32_t bytes = 0, chars = 0;
        QString preview;
    };
    std::vector<Row> rows;
    double milliseconds = 0;
};

namespace {

constexpr int kKeyRole = Qt::UserRole + 1;  // the exact 64-bit key (UserRole sorts as double)

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

QStandardItem* keyItem(uint64_t key) {
    QStandardItem* item =
        numberItem(double(key), QStringLiteral("%1").arg(key, 16, 16, QLatin1Char('0')));
    item->setData(static_cast<qulonglong>(key), kKeyRole);
    return item;
}

// A size bin as the report names it: "1", "2–3", "4–7".
QString binText(uint64_t low, uint64_t high) {
    return low == high ? countText(low)
                       : QStringLiteral("%1\u2013%2").arg(countText(low), countText(high));
}

// The rule, in the words of the line above the table.
QString outlierRule() {
    return BucketsPanel::tr(
        "larger than mean + 2\u03c3 and \u2265 1 % of their band's comparisons");
}

QStandardItem* textItem(const QString& text) {
    auto* item = new QStandardItem(text);
    item->setData(text, Qt::UserRole);
    return item;
}

}  // namespace

BucketsPanel::BucketsPanel(ProjectDocument* document, QWidget* parent)
    : QWidget(parent), jobs_(document->queries()) {
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
    // One bar per log2 size bin, each under its own label, as in the report.
    plot_->xAxis->setTicker(QSharedPointer<QCPAxisTickerText>(new QCPAxisTickerText));
    plot_->xAxis->setSubTicks(false);
    plot_->yAxis->setScaleType(QCPAxis::stLogarithmic);
    plot_->yAxis->setTicker(QSharedPointer<QCPAxisTickerLog>(new QCPAxisTickerLog));
    plot_->xAxis->setLabel(tr("bucket size (members)"));
    plot_->yAxis->setLabel(tr("buckets"));
    plot_->legend->setVisible(true);
    plot_->legend->setFont(QFont(font().family(), 8));
    plot_->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignTop | Qt::AlignRight);

    outliers_ = new QStandardItemModel(0, 5, this);
    outliers_->setHorizontalHeaderLabels(
        {tr("Band"), tr("Key"), tr("Size"), tr("Comparisons"), tr("Share of its band's")});
    outliers_->horizontalHeaderItem(4)->setToolTip(
        tr("The bucket's share of its band's comparisons, the share the outlier rule bounds"));
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
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    table_->setSelectionMode(QAbstractItemView::SingleSelection);
    table_->setToolTip(tr("Click a bucket to list its documents"));
    connect(table_, &QTableView::clicked, this, [this](const QModelIndex& index) {
        const QModelIndex source = proxy_->mapToSource(index);
        const QStandardItem* band = outliers_->item(source.row(), 0);
        const QStandardItem* key = outliers_->item(source.row(), 1);
        if (band && key)
            showBucket(band->data(Qt::UserRole).toInt(), key->data(kKeyRole).toULongLong());
    });

    members_ = new QStandardItemModel(0, 4, this);
    members_->setHorizontalHeaderLabels({tr("Document"), tr("Bytes"), tr("Chars"), tr("Text")});
    auto* membersProxy = new QSortFilterProxyModel(this);
    membersProxy->setSourceModel(members_);
    membersProxy->setSortRole(Qt::UserRole);
    membersTable_ = new QTableView;
    membersTable_->setObjectName(QStringLiteral("bucketMembersTable"));
    membersTable_->setModel(membersProxy);
    membersTable_->setSortingEnabled(true);
    membersTable_->sortByColumn(0, Qt::AscendingOrder);
    membersTable_->verticalHeader()->hide();
    membersTable_->verticalHeader()->setDefaultSectionSize(20);
    membersTable_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    membersTable_->horizontalHeader()->setStretchLastSection(true);
    membersTable_->setAlternatingRowColors(true);
    membersTable_->setWordWrap(false);
    membersTable_->setToolTip(
        tr("Double-click a document to compare it side by side with its kept duplicate"));
    connect(membersTable_, &QTableView::doubleClicked, this, [this](const QModelIndex& index) {
        const QModelIndex id = index.siblingAtColumn(0);
        const QVariant doc = id.data(kKeyRole);
        if (doc.isValid()) emit documentActivated(quint32(doc.toULongLong()));
    });
    membersLabel_ = new QLabel(tr("Click an outlier bucket to list its documents."));
    membersLabel_->setWordWrap(true);

    auto* split = new QSplitter(Qt::Vertical);
    split->addWidget(plot_);
    auto* tableBox = new QWidget;
    auto* tv = new QVBoxLayout(tableBox);
    tv->setContentsMargins(0, 0, 0, 0);
    outlierLabel_ = new QLabel(tr("Outlier buckets (%1):").arg(outlierRule()));
    outlierLabel_->setObjectName(QStringLiteral("outlierLabel"));
    outlierLabel_->setWordWrap(true);
    // The rule is the engine's (BandStatsBuilder::finish in core/lsh/lsh_buckets.cpp).
    outlierLabel_->setToolTip(
        tr("A bucket of n documents costs n(n\u22121)/2 comparisons. An outlier is larger than "
           "mean + 2\u03c3 of its band's bucket sizes (SEDD appendix G) and costs at least 1 % "
           "of the band's comparisons: the buckets that make the band expensive. Mean + 2\u03c3 "
           "alone marks every bucket of two when nearly all buckets are single documents (exact "
           "keys), though a pair costs one comparison. Runs recorded before this rule keep the "
           "outliers stored with them."));
    tv->addWidget(outlierLabel_);
    tv->addWidget(table_);
    auto* membersBox = new QWidget;
    auto* mv = new QVBoxLayout(membersBox);
    mv->setContentsMargins(0, 0, 0, 0);
    mv->addWidget(membersLabel_);
    mv->addWidget(membersTable_);
    auto* lower = new QSplitter(Qt::Horizontal);
    lower->addWidget(tableBox);
    lower->addWidget(membersBox);
    lower->setStretchFactor(0, 1);
    lower->setStretchFactor(1, 1);
    split->addWidget(lower);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addLayout(top);
    layout->addWidget(split, 1);
    connect(band_, &QComboBox::currentIndexChanged, this, &BucketsPanel::reload);
    // The document's working run; a project opened or closed clears it.
    connect(document, &ProjectDocument::currentRunChanged, this, &BucketsPanel::setRun);
    connect(document, &ProjectDocument::projectOpened, this, [this] { setRun(RunInfo{}); });
    connect(document, &ProjectDocument::projectClosed, this, [this] { setRun(RunInfo{}); });
}

BucketsPanel::~BucketsPanel() = default;

int BucketsPanel::band() const {
    return band_->currentData().toInt();
}

void BucketsPanel::setRun(const RunInfo& run) {
    if (run.runId != runId_) {
        latestMembers_.forget();  // a listing still coming is for the previous run
        members_->removeRows(0, members_->rowCount());
        membersLabel_->setText(tr("Click an outlier bucket to list its documents."));
    }
    runId_ = run.runId;
    referenceDocuments_ = run.referenceDocuments;
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
    const LatestRequest::Ticket ticket = latestBuckets_.next();
    const qint64 runId = runId_;
    const int band = this->band();
    if (!runId) {
        plot_->clearPlottables();
        plot_->clearItems();
        plot_->replot();
        outliers_->removeRows(0, outliers_->rowCount());
        stats_->clear();
        binLabels_.clear();
        outlierLabel_->setText(tr("Outlier buckets (%1):").arg(outlierRule()));
        return;
    }
    jobs_->submit<BucketData>(
        this, ticket,
        [runId, band](JobContext& c) {
            BucketData d;
            ProjectQueries& q = c.queries();
            d.bands = q.bandStats(runId);
            d.bins = q.histogram(runId, band);
            d.outliers = q.outliers(runId, band);
            d.moments = q.bucketSizeMoments(runId, band);
            return d;
        },
        [this, band](BucketData d) {
            uint64_t buckets = 0, multi = 0, maxSize = 0, comparisons = 0, outlierCount = 0;
            for (const BandRow& b : d.bands) {
                if (band >= 0 && b.band != band) continue;
                buckets += b.buckets;
                multi += b.multiBuckets;
                maxSize = std::max(maxSize, b.maxSize);
                comparisons += b.comparisons;
                outlierCount += b.outlierCount;
            }
            stats_->setText(tr("%1 buckets, %2 with two or more members, largest %3; %4 "
                               "comparisons; mean size %5, \u03c3 %6")
                                .arg(countText(buckets), countText(multi), countText(maxSize),
                                     countText(comparisons))
                                .arg(d.moments.mean, 0, 'f', 3)
                                .arg(d.moments.stddev, 0, 'f', 3));

            // One bar per log2 bin at its index, labelled with the sizes it holds; empty bins
            // keep their label (a log count axis cannot draw a zero).
            plot_->clearPlottables();
            plot_->clearItems();
            auto* bars = new QCPBars(plot_->xAxis, plot_->yAxis);
            bars->setName(tr("buckets per size bin"));
            bars->setWidthType(QCPBars::wtPlotCoords);
            bars->setWidth(0.8);
            bars->setPen(QPen(QColor(40, 90, 160)));
            bars->setBrush(QColor(70, 130, 200, 200));
            QVector<double> keys, values;
            double maxCount = 1;
            int lastBin = 0;
            std::map<int, const HistogramBin*> byIndex;
            for (const HistogramBin& bin : d.bins) {
                byIndex[bin.bin] = &bin;
                if (bin.count == 0) continue;
                keys << double(bin.bin);
                values << double(bin.count);
                maxCount = std::max(maxCount, double(bin.count));
                lastBin = std::max(lastBin, bin.bin);
            }
            bars->setBaseValue(0.5);
            bars->setData(keys, values, true);
            drawnBins_ = int(keys.size());
            marker_ = d.moments.mean + 2 * d.moments.stddev;
            // Bin i holds sizes 2^i to 2^(i+1) - 1: a size s lies at log2(s) - 0.5 on the
            // bins' axis, so the line stands between the sizes it separates.
            const double markerAt = std::log2(std::max(marker_, 1.0)) - 0.5;
            const int shownBins = std::max(lastBin, int(std::ceil(markerAt))) + 1;
            auto ticker = QSharedPointer<QCPAxisTickerText>(new QCPAxisTickerText);
            binLabels_.clear();
            for (int i = 0; i < shownBins; ++i) {
                const auto it = byIndex.find(i);
                const uint64_t low = it != byIndex.end() ? it->second->sizeMin : uint64_t{1} << i;
                const uint64_t high =
                    it != byIndex.end() ? it->second->sizeMax : (uint64_t{1} << (i + 1)) - 1;
                binLabels_ << binText(low, high);
                ticker->addTick(i, binLabels_.back());
            }
            plot_->xAxis->setTicker(ticker);
            plot_->xAxis->setSubTicks(false);
            // Long labels ("65,536–131,071") turn aside rather than overlap.
            plot_->xAxis->setTickLabelRotation(shownBins > 8 ? -40 : 0);
            auto* line = new QCPItemStraightLine(plot_);
            line->setPen(QPen(QColor(200, 60, 40), 1.5, Qt::DashLine));
            line->point1->setCoords(markerAt, 0.5);
            line->point2->setCoords(markerAt, maxCount * 10);
            auto* label = new QCPItemText(plot_);
            label->setText(tr("mean + 2\u03c3 = %1").arg(marker_, 0, 'f', 2));
            label->setColor(QColor(200, 60, 40));
            label->setPositionAlignment(Qt::AlignLeft | Qt::AlignTop);
            label->position->setCoords(markerAt + 0.1, maxCount * 3);
            plot_->xAxis->setRange(-0.6, shownBins - 0.4);
            plot_->yAxis->setRange(0.5, maxCount * 6);
            plot_->replot();

            // The share of its own band's comparisons: the share the rule bounds (the query's
            // is of every band's, which put buckets at 0.5 % under a header saying 1 %).
            std::map<int, uint64_t> bandComparisons;
            for (const BandRow& b : d.bands)
                bandComparisons[b.band] = b.comparisons;
            outliers_->removeRows(0, outliers_->rowCount());
            for (const OutlierRow& o : d.outliers) {
                const uint64_t of = bandComparisons[o.band];
                const double share = of ? double(o.comparisons) / double(of) : o.share;
                outliers_->appendRow(
                    {numberItem(o.band, QString::number(o.band)), keyItem(o.key),
                     numberItem(double(o.size), countText(o.size)),
                     numberItem(double(o.comparisons), countText(o.comparisons)),
                     numberItem(share, QStringLiteral("%1 %").arg(decimalText(share * 100, 2)))});
            }
            // How many, beside the table: an empty table says why it is empty.
            if (outlierCount == 0)
                outlierLabel_->setText(tr("No outlier buckets: none is %1.").arg(outlierRule()));
            else if (quint64(d.outliers.size()) < outlierCount)
                outlierLabel_->setText(
                    tr("%1 outlier buckets (%2); the largest %3 are listed:")
                        .arg(countText(outlierCount), outlierRule(), countText(d.outliers.size())));
            else
                outlierLabel_->setText(
                    tr("%1 outlier buckets (%2):").arg(countText(outlierCount), outlierRule()));
            table_->resizeColumnsToContents();
            emit loaded();
        });
}

void BucketsPanel::showBucket(int band, quint64 key) {
    const qint64 runId = runId_;
    if (!runId) return;
    const LatestRequest::Ticket ticket = latestMembers_.next();
    if (!membersState_) membersState_ = std::make_shared<BucketMembersState>();
    membersLabel_->setText(tr("Listing the documents of bucket %1 of band %2\u2026")
                               .arg(key, 16, 16, QLatin1Char('0'))
                               .arg(band));
    members_->removeRows(0, members_->rowCount());
    auto state = membersState_;
    jobs_->submit<BucketMembersResult>(
        this, ticket,
        [state, runId, band, key](JobContext& c) {
            QElapsedTimer clock;
            clock.start();
            BucketMembersResult r;
            r.runId = runId;
            r.band = band;
            r.key = key;
            const ProjectStore& store = c.reader();
            if (state->project != c.projectPath()) {  // another project: nothing carries over
                state->project = c.projectPath();
                state->loaded = false;
                state->table = BandKeyTable{};
                state->docs = DocumentTable{};
                state->docsDataset = -1;
            }
            // A failure is not kept: a later run may cache the signatures.
            if (!state->loaded || state->table.runId() != runId) {
                if (!state->backend) state->backend = makeCpuBackend(0);
                state->loaded = state->table.load(store, runId, *state->backend);
                if (!state->loaded) {
                    r.why = QString::fromStdString(state->table.why());
                    state->table = BandKeyTable{};
                    return r;
                }
            }
            const int64_t dataset = state->table.datasetId();
            if (state->docsDataset != dataset) {
                state->docs = DocumentTable{};
                store.loadDataset(dataset, &state->docs);
                state->docsDataset = dataset;
            }
            const DocumentTable& docs = state->docs;
            const std::vector<uint32_t> members = state->table.members(band, key);
            r.rows.reserve(members.size());
            DocumentFetcher& fetcher = c.fetcher(dataset);
            for (std::size_t k = 0; k < members.size(); ++k) {
                const uint32_t d = members[k];
                BucketMembersResult::Row row;
                row.index = d;
                row.id = QString::fromUtf8(docs.id(d).data(), qsizetype(docs.id(d).size()));
                row.bytes = docs.length[d];
                row.chars = docs.chars[d];
                if (k < std::size_t(kMaxPreviews)) {
                    const FetchedDocument f = fetcher.fetch(docs, d);
                    row.preview =
                        f.ok ? QString::fromStdString(f.text).simplified().left(240)
                             : tr("(cannot read: %1)").arg(QString::fromStdString(f.error));
                }
                r.rows.push_back(std::move(row));
            }
            r.ok = true;
            r.milliseconds = double(clock.nsecsElapsed()) / 1e6;
            return r;
        },
        [this](BucketMembersResult r) { showMembers(r); },
        [this](const QString& e) {
            membersLabel_->setText(tr("Cannot list the bucket: %1").arg(e));
            emit membersListed(false);
        });
}

void BucketsPanel::showMembers(const BucketMembersResult& r) {
    members_->removeRows(0, members_->rowCount());
    const QString key = QStringLiteral("%1").arg(r.key, 16, 16, QLatin1Char('0'));
    if (!r.ok) {
        membersLabel_->setText(tr("Cannot list the documents of bucket %1: %2").arg(key, r.why));
        emit membersListed(false);
        return;
    }
    for (const auto& row : r.rows) {
        const bool reference = row.index < referenceDocuments_;
        QStandardItem* id = textItem(reference ? tr("%1 (reference)").arg(row.id) : row.id);
        id->setData(static_cast<qulonglong>(row.index), kKeyRole);
        id->setToolTip(reference ? tr("document %1, of the run's reference").arg(row.index)
                                 : tr("document %1").arg(row.index));
        QStandardItem* text = textItem(row.preview);
        text->setToolTip(row.preview);
        members_->appendRow({id, numberItem(row.bytes, countText(row.bytes)),
                             numberItem(row.chars, countText(row.chars)), text});
    }
    membersTable_->resizeColumnToContents(0);
    membersTable_->resizeColumnToContents(1);
    membersTable_->resizeColumnToContents(2);
    QString text =
        tr("Bucket %1 of band %2: %n document(s)", "", int(r.rows.size())).arg(key).arg(r.band);
    if (int(r.rows.size()) > kMaxPreviews)
        text += tr(" (text previews for the first %1)").arg(kMaxPreviews);
    membersLabel_->setText(text);
    emit membersListed(true);
}

}  // namespace neardup::ui
