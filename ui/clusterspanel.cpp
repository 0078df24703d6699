// The clusters panel of the workbench: the run's clusters (filtered, searched, sorted), a
// cluster's members and pairs, and the side-by-side comparison of a removed document with its
// witness. Audit decisions are in clusterspanel_decisions.cpp, the text search in
// clusterspanel_search.cpp, browsing pairs and the comparison in clusterspanel_pairs.cpp.
#include "clusterspanel.h"

#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QShortcut>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QTableWidget>
#include <QThread>
#include <QTimer>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include "chainview.h"
#include "clustersmodel.h"
#include "comparisonloader.h"
#include "comparisonview.h"
#include "elidedlabel.h"
#include "jobqueue.h"
#include "numbertext.h"
#include "projectdocument.h"

namespace neardup::ui {

namespace {

// A giant cluster is browsed through its first members only (and kMaxPairsBrowsed pairs).
constexpr uint64_t kMaxMembersShown = 5000;

struct ClusterDetail {
    std::vector<ClusterMember> members;
    std::vector<PairRow> pairs;
    std::vector<ChainNode> chain;
    std::vector<double> toRepresentative;  // per chain node
};

}  // namespace

ClustersPanel::ClustersPanel(ProjectDocument* document, QWidget* parent)
    : QWidget(parent),
      jobs_(document->queries()),
      searches_(new JobQueue(QStringLiteral("neardup-text-search"), this, QThread::LowPriority)),
      model_(new ClustersModel(jobs_, this)) {
    QWidget* leftBox = buildClusterList();
    comparison_ = new ComparisonView;
    // The comparison is the main stage: two thirds of the width for the two documents.
    auto* split = new QSplitter(Qt::Horizontal);
    split->setObjectName(QStringLiteral("clustersSplit"));
    split->setChildrenCollapsible(false);
    split->addWidget(leftBox);
    split->addWidget(comparison_);
    split->setStretchFactor(0, 1);
    split->setStretchFactor(1, 2);
    split->setSizes({400, 860});
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addWidget(split);

    connectSignals();
    observe(document);
    addShortcuts();
}

// The document's working run at its working threshold; a project opened or closed clears it.
void ClustersPanel::observe(ProjectDocument* document) {
    connect(document, &ProjectDocument::currentRunChanged, this, &ClustersPanel::setRun);
    connect(document, &ProjectDocument::projectOpened, this, &ClustersPanel::clearRun);
    connect(document, &ProjectDocument::projectClosed, this, &ClustersPanel::clearRun);
    connect(document, &ProjectDocument::thresholdChanged, this, &ClustersPanel::setThreshold);
    // A verdict of the sampled audit counts as reviewed.
    connect(document, &ProjectDocument::auditChanged, this, &ClustersPanel::refreshReviewProgress);
    connect(this, &ClustersPanel::decisionsChanged, document,
            &ProjectDocument::noteDecisionsChanged);
}

// The left side: search and filters above the clusters table, the members table below it.
QWidget* ClustersPanel::buildClusterList() {
    search_ = new QLineEdit;
    search_->setObjectName(QStringLiteral("clusterSearch"));
    search_->setPlaceholderText(tr("Search member ids\u2026"));
    search_->setClearButtonEnabled(true);
    searchMode_ = new QComboBox;
    searchMode_->setObjectName(QStringLiteral("clusterSearchMode"));
    searchMode_->addItem(tr("Ids"));
    searchMode_->addItem(tr("Text"));
    searchMode_->setToolTip(
        tr("Ids: members whose id contains the text, as you type. Text: members whose text "
           "contains it (ignoring ASCII case), read back from the input files on Enter."));
    minSize_ = new QSpinBox;
    minSize_->setRange(0, 1000000);
    minSize_->setSpecialValueText(tr("any size"));
    minSize_->setPrefix(tr("size \u2265 "));
    decidedOnly_ = new QCheckBox(tr("decided"));
    decidedOnly_->setObjectName(QStringLiteral("decidedOnly"));
    decidedOnly_->setToolTip(tr("Only clusters shaped by an audit decision"));
    flaggedOnly_ = new QCheckBox(tr("flagged \u26a0"));
    flaggedOnly_->setObjectName(QStringLiteral("flaggedOnly"));
    flaggedOnly_->setToolTip(
        tr("Only chains and large components (see the Diameter column); sort by that column to "
           "see the farthest-spread components first"));
    referenceOnly_ = new QCheckBox(tr("matched the reference"));
    referenceOnly_->setObjectName(QStringLiteral("referenceOnly"));
    referenceOnly_->setToolTip(
        tr("Only clusters holding a document of the run's reference: the new documents that "
           "duplicate it"));
    referenceOnly_->hide();
    count_ = new QLabel;
    // Two short rows, so that the list stays narrow beside the comparison.
    auto* filterRow = new QHBoxLayout;
    filterRow->addWidget(searchMode_);
    filterRow->addWidget(search_, 1);
    auto* filterRow2 = new QHBoxLayout;
    filterRow2->addWidget(minSize_);
    filterRow2->addWidget(decidedOnly_);
    filterRow2->addWidget(flaggedOnly_);
    filterRow2->addWidget(referenceOnly_);
    filterRow2->addWidget(count_, 1);
    searchProgress_ = new QProgressBar;
    searchProgress_->setObjectName(QStringLiteral("textSearchProgress"));
    searchProgress_->setMaximumHeight(14);
    searchProgress_->setTextVisible(false);
    stopSearch_ = new QPushButton(tr("Stop"));
    stopSearch_->setObjectName(QStringLiteral("stopTextSearch"));
    searchStatus_ = new QLabel;
    searchStatus_->setObjectName(QStringLiteral("textSearchStatus"));
    reviewProgress_ = new ElidedLabel;
    reviewProgress_->setObjectName(QStringLiteral("reviewProgress"));
    auto* searchRow = new QHBoxLayout;
    searchRow->addWidget(searchStatus_, 1);
    searchRow->addWidget(searchProgress_);
    searchRow->addWidget(stopSearch_);
    searchProgress_->hide();
    stopSearch_->hide();

    view_ = new QTableView;
    view_->setObjectName(QStringLiteral("clustersView"));
    view_->setModel(model_);
    view_->setSelectionBehavior(QAbstractItemView::SelectRows);
    view_->setSelectionMode(QAbstractItemView::SingleSelection);
    view_->setAlternatingRowColors(true);
    view_->verticalHeader()->hide();
    view_->verticalHeader()->setDefaultSectionSize(21);
    view_->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
    view_->horizontalHeader()->setStretchLastSection(true);
    view_->setSortingEnabled(true);
    view_->sortByColumn(ClustersModel::Size, Qt::DescendingOrder);
    const int widths[] = {56, 40, 110, 74, 80, 86, 44, 80};
    for (int c = 0; c < 8; ++c)
        view_->setColumnWidth(c, widths[c]);

    members_ = new QTableWidget(0, 4);
    members_->setObjectName(QStringLiteral("membersTable"));
    members_->setHorizontalHeaderLabels({tr("Document"), tr("Id"), tr("Chars"), tr("Status")});
    members_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    members_->setSelectionBehavior(QAbstractItemView::SelectRows);
    members_->setSelectionMode(QAbstractItemView::SingleSelection);
    members_->verticalHeader()->hide();
    members_->verticalHeader()->setDefaultSectionSize(20);
    members_->horizontalHeader()->setStretchLastSection(true);
    members_->setToolTip(
        tr("Click (or double-click) a member to compare it with the kept document it is "
           "removed for (its witness), or with the representative"));

    chain_ = new ChainView;
    memberTabs_ = new QTabWidget;
    memberTabs_->setObjectName(QStringLiteral("memberTabs"));
    memberTabs_->addTab(members_, tr("Members"));
    memberTabs_->addTab(chain_, tr("Chain"));

    auto* leftBox = new QWidget;
    auto* lv = new QVBoxLayout(leftBox);
    lv->setContentsMargins(0, 0, 0, 0);
    lv->addLayout(filterRow);
    lv->addLayout(filterRow2);
    // A line of its own, so that the search status cannot squeeze it to nothing.
    lv->addWidget(reviewProgress_);
    lv->addLayout(searchRow);
    // The members and the chain get as much height as the list: a chain needs rows to be read.
    auto* leftSplit = new QSplitter(Qt::Vertical);
    leftSplit->setObjectName(QStringLiteral("clusterListSplit"));
    leftSplit->setChildrenCollapsible(false);
    leftSplit->addWidget(view_);
    leftSplit->addWidget(memberTabs_);
    leftSplit->setStretchFactor(0, 1);
    leftSplit->setStretchFactor(1, 1);
    lv->addWidget(leftSplit, 1);
    return leftBox;
}

// Filters and searches, selections, the comparison view's buttons.
void ClustersPanel::connectSignals() {
    // Searching waits for a pause in typing: each search is a query over the cluster members.
    auto* debounce = new QTimer(this);
    debounce->setSingleShot(true);
    debounce->setInterval(250);
    connect(search_, &QLineEdit::textChanged, this, [this, debounce](const QString& text) {
        comparison_->setHighlight(text.trimmed());
        if (searchMode_->currentIndex() == int(SearchMode::Ids)) {
            debounce->start();
        } else if (text.trimmed().isEmpty()) {
            // Clearing a text search shows every cluster again.
            abandonTextSearch();
            searchStatus_->clear();
            model_->setDocumentFilter(nullptr);
        }
    });
    connect(search_, &QLineEdit::returnPressed, this, [this] {
        if (searchMode_->currentIndex() == int(SearchMode::Text)) startTextSearch();
    });
    connect(searchMode_, &QComboBox::currentIndexChanged, this, [this](int mode) {
        abandonTextSearch();
        searchStatus_->clear();
        search_->setPlaceholderText(mode == int(SearchMode::Ids)
                                        ? tr("Search member ids\u2026")
                                        : tr("Search member texts, then Enter\u2026"));
        model_->setDocumentFilter(nullptr);
        applyFilter();
    });
    connect(stopSearch_, &QPushButton::clicked, this, &ClustersPanel::stopTextSearch);
    connect(minSize_, &QSpinBox::valueChanged, debounce, qOverload<>(&QTimer::start));
    connect(decidedOnly_, &QCheckBox::toggled, model_, &ClustersModel::setDecidedOnly);
    connect(flaggedOnly_, &QCheckBox::toggled, model_, &ClustersModel::setFlaggedOnly);
    connect(referenceOnly_, &QCheckBox::toggled, model_, &ClustersModel::setReferenceOnly);
    connect(debounce, &QTimer::timeout, this, &ClustersPanel::applyFilter);
    connect(model_, &ClustersModel::reloaded, this, [this] {
        updateCount();
        refreshReviewProgress();
        if (model_->rowCount() > 0)
            selectClusterRow(0);
        else
            comparison_->clear(tr("No clusters match."));
    });
    connect(model_, &QAbstractItemModel::rowsInserted, this, &ClustersPanel::updateCount);
    connect(model_, &ClustersModel::diametersReady, this, &ClustersPanel::updateCount);
    connect(model_, &ClustersModel::failed, this, [this](const QString& e) {
        comparison_->clear(tr("Cannot list clusters: %1").arg(e));
    });
    connect(view_->selectionModel(), &QItemSelectionModel::selectionChanged, this,
            &ClustersPanel::onClusterSelected);
    connect(members_, &QTableWidget::cellClicked, this,
            [this](int row, int) { onMemberActivated(row); });
    connect(members_, &QTableWidget::cellDoubleClicked, this, [this](int row, int) {
        onMemberActivated(row);
        comparison_->setFocus(Qt::OtherFocusReason);
    });
    connect(chain_, &ChainView::pairRequested, this, &ClustersPanel::showPairOf);
    connect(comparison_, &ComparisonView::nextRequested, this, &ClustersPanel::nextPair);
    connect(comparison_, &ComparisonView::previousRequested, this, &ClustersPanel::previousPair);
    connect(comparison_, &ComparisonView::notDuplicateRequested, this,
            &ClustersPanel::markNotDuplicate);
    connect(comparison_, &ComparisonView::confirmRequested, this, &ClustersPanel::confirmDuplicate);
    connect(comparison_, &ComparisonView::keepInsteadRequested, this, &ClustersPanel::keepInstead);
    connect(comparison_, &ComparisonView::keepAllRequested, this, &ClustersPanel::keepAll);
    connect(comparison_, &ComparisonView::undoRequested, this, &ClustersPanel::undoDecision);
}

// The audit keys work anywhere in the window while this panel is shown.
void ClustersPanel::addShortcuts() {
    auto shortcut = [this](QKeySequence keys, auto slot) {
        auto* s = new QShortcut(keys, this);
        s->setContext(Qt::WindowShortcut);
        connect(s, &QShortcut::activated, this, slot);
    };
    shortcut(QKeySequence(Qt::ALT | Qt::Key_Down), &ClustersPanel::nextPair);
    shortcut(QKeySequence(Qt::ALT | Qt::Key_Up), &ClustersPanel::previousPair);
    shortcut(QKeySequence(Qt::ALT | Qt::Key_N), &ClustersPanel::markNotDuplicate);
    shortcut(QKeySequence(Qt::ALT | Qt::Key_Left), [this] { keepInstead(false); });
    shortcut(QKeySequence(Qt::ALT | Qt::Key_Right), [this] { keepInstead(true); });
    shortcut(QKeySequence(Qt::ALT | Qt::Key_K), &ClustersPanel::keepAll);
    shortcut(QKeySequence(Qt::CTRL | Qt::Key_Z), &ClustersPanel::undoDecision);
    // Keyboard-only review: one key per verdict, each going on to the next pair. A line edit
    // with the focus takes these letters as text (Qt gives it the key first).
    shortcut(QKeySequence(Qt::Key_Y), &ClustersPanel::confirmDuplicate);
    shortcut(QKeySequence(Qt::Key_N), &ClustersPanel::rejectAndAdvance);
    shortcut(QKeySequence(Qt::Key_K), &ClustersPanel::keepOtherAndAdvance);
    shortcut(QKeySequence::Find, [this] {
        search_->setFocus(Qt::ShortcutFocusReason);
        search_->selectAll();
    });
}

ClustersPanel::~ClustersPanel() {
    // A text search still reading stops at its next document; searches_, a child, waits for it.
    if (searchCancel_) searchCancel_->store(true);
}

void ClustersPanel::applyFilter() {
    if (searchMode_->currentIndex() == int(SearchMode::Ids))
        model_->setFilter(search_->text().trimmed(), minSize_->value());
    else
        model_->setFilter({}, minSize_->value());
}

void ClustersPanel::setSearchMode(SearchMode mode) {
    searchMode_->setCurrentIndex(int(mode));
}

QString ClustersPanel::searchStatus() const {
    return searchStatus_->text();
}

void ClustersPanel::setRun(const RunInfo& run) {
    abandonTextSearch();
    searchStatus_->clear();
    model_->setDocumentFilter(nullptr);
    run_ = run;
    {
        // The filter is the run's: a run without a reference has none (and lists every cluster).
        const QSignalBlocker quiet(referenceOnly_);
        referenceOnly_->setChecked(false);
        referenceOnly_->setVisible(run.referenceDocuments > 0);
        model_->setReferenceOnly(false);
    }
    deciding_ = false;
    cluster_ = -1;
    messageCluster_ = -1;
    messageFollows_ = false;
    comparison_->setDecisionMessage(QString());
    pairs_.clear();
    memberList_.clear();
    members_->setRowCount(0);
    chain_->clear();
    comparison_->clear(run.runId ? tr("Loading clusters of run %1\u2026").arg(run.runId)
                                 : tr("No run selected."));
    model_->setRun(run.runId);
    updateCount();
    refreshDecisionState();
    refreshReviewProgress();
}

void ClustersPanel::setThreshold(double threshold) {
    if (!run_.runId) return;
    const bool own = std::abs(threshold - run_.params.compare.threshold) < 1e-9;
    model_->setThreshold(own ? std::numeric_limits<double>::quiet_NaN() : threshold);
}

void ClustersPanel::clearRun() {
    setRun(RunInfo{});
}

void ClustersPanel::updateCount() {
    if (!model_->runId()) {
        count_->clear();
        return;
    }
    const quint64 flagged = model_->flaggedCount();
    count_->setText(flagged ? tr("%1 clusters, %2 flagged \u26a0")
                                  .arg(countText(model_->totalCount()), countText(flagged))
                            : tr("%1 clusters").arg(countText(model_->totalCount())));
    count_->setToolTip(flagged ? tr("Chains and large components: see the Diameter column")
                               : QString());
}

void ClustersPanel::selectClusterRow(int row) {
    if (row < 0 || row >= model_->rowCount()) return;
    const QModelIndex index = model_->index(row, 0);
    view_->selectionModel()->select(
        index, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    view_->setCurrentIndex(index);
    view_->scrollTo(index);
}

void ClustersPanel::onClusterSelected() {
    const QModelIndexList rows = view_->selectionModel()->selectedRows();
    const ClusterRow* c = rows.isEmpty() ? nullptr : model_->clusterAt(rows.front().row());
    if (!c) return;
    loadCluster(c->cluster);
}

void ClustersPanel::loadCluster(qint64 clusterId) {
    cluster_ = clusterId;
    // Checked in `done` only: a failure clears the comparison even for a replaced selection.
    const LatestRequest::Ticket ticket = latestShown_.next();
    const qint64 runId = run_.runId, cluster = clusterId;
    const int hashes = run_.params.signature.hashes;
    const double threshold =
        std::isnan(model_->threshold()) ? run_.params.compare.threshold : model_->threshold();
    jobs_->submit<ClusterDetail>(
        this,
        [runId, cluster, hashes, threshold](JobContext& ctx) {
            ClusterDetail d;
            d.members = ctx.queries().clusterMembers(runId, cluster, kMaxMembersShown);
            d.pairs = ctx.queries().clusterPairs(runId, cluster, kMaxPairsBrowsed);
            d.chain = witnessChain(d.members, d.pairs, hashes, threshold);
            uint32_t rep = d.chain.empty() ? 0 : d.chain.front().doc;
            for (const ClusterMember& m : d.members)
                if (m.representative) rep = m.docIndex;
            // The cached signature rows of the chain's members only (the cache itself may not
            // fit in memory); NaN similarities when the run's signatures are not cached.
            std::vector<uint32_t> docs{rep};
            for (const ChainNode& n : d.chain)
                docs.push_back(n.doc);
            std::sort(docs.begin(), docs.end());
            docs.erase(std::unique(docs.begin(), docs.end()), docs.end());
            ComponentDiameters signatures;
            signatures.loadRows(ctx.reader(), runId, docs);
            for (const ChainNode& n : d.chain)
                d.toRepresentative.push_back(signatures.similarity(n.doc, rep));
            return d;
        },
        [this, ticket, cluster](ClusterDetail d) {
            if (!ticket.current()) return;
            // What was recorded in another cluster is not about this one.
            if (cluster != messageCluster_) {
                if (std::exchange(messageFollows_, false))
                    messageCluster_ = cluster;
                else
                    comparison_->setDecisionMessage(QString());
            }
            memberList_ = std::move(d.members);
            pairs_ = std::move(d.pairs);
            members_->setRowCount(int(memberList_.size()));
            for (int i = 0; i < int(memberList_.size()); ++i) {
                const ClusterMember& m = memberList_[std::size_t(i)];
                members_->setItem(i, 0, new QTableWidgetItem(QString::number(m.docIndex)));
                members_->setItem(i, 1, new QTableWidgetItem(QString::fromStdString(m.docId)));
                members_->setItem(i, 2, new QTableWidgetItem(countText(m.chars)));
                members_->setItem(i, 3, new QTableWidgetItem(memberStatus(m, memberList_)));
            }
            members_->resizeColumnsToContents();
            chain_->setChain(d.chain, memberList_, d.toRepresentative);
            emit clusterShown();
            pairIndex_ = 0;
            int start = wantLastPair_ ? int(pairs_.size()) - 1 : firstWitnessPair();
            wantLastPair_ = false;
            const bool advance = std::exchange(advanceAfterDecision_, false);
            if (wantPair_) {
                for (int i = 0; i < int(pairs_.size()); ++i)
                    if (pairs_[std::size_t(i)].a == wantPair_->first &&
                        pairs_[std::size_t(i)].b == wantPair_->second)
                        start = advance ? i + 1 : i;
                wantPair_.reset();
                // After the cluster's last pair, a review goes on with the next cluster.
                if (advance && start >= int(pairs_.size())) {
                    pairIndex_ = std::max(0, int(pairs_.size()) - 1);
                    messageFollows_ = true;
                    return nextPair();
                }
            }
            if (wantDocument_) {
                const uint32_t doc = *std::exchange(wantDocument_, std::nullopt);
                for (int i = 0; i < int(memberList_.size()); ++i)
                    if (memberList_[std::size_t(i)].docIndex == doc) {
                        members_->selectRow(i);
                        return onMemberActivated(i);
                    }
            }
            if (!pairs_.empty())
                showPair(std::max(0, start));
            else if (memberList_.size() >= 2)
                compare(memberList_[0].docIndex, memberList_[1].docIndex, nullptr, {});
            else
                comparison_->clear(tr("This cluster has no stored pair."));
        },
        [this](const QString& e) { comparison_->clear(e); });
}

}  // namespace neardup::ui
