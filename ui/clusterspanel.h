// The clusters of the selected run: a paged, sortable, searchable table; the members of the
// selected cluster; and the side-by-side comparison of two members, with keyboard navigation
// over the stored pairs within a cluster and on across clusters. Audit decisions about the pair
// shown are recorded in the project (core/project/decisions.h) and the table follows them at once.
//
// The panel observes the project document: it shows the document's working run at its working
// threshold, and tells the document about the decisions it records.
//
// Search: by id (SQL LIKE over the members' ids, as you type) or by text (on Enter: the texts
// of the run's clustered documents are read back from the input files on the panel's own
// JobQueue, with progress and Stop; the table then lists the clusters holding a match).
#pragma once

#include <QWidget>
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "jobqueue.h"
#include "project_queries.h"

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;
class QSpinBox;
class QTabWidget;
class QTableView;
class QTableWidget;

namespace neardup::ui {

class ElidedLabel;
class ChainView;
class ProjectDocument;
class ClustersModel;
class ComparisonView;
struct ComparisonData;

class ClustersPanel : public QWidget {
    Q_OBJECT
  public:
    explicit ClustersPanel(ProjectDocument* document, QWidget* parent = nullptr);
    ~ClustersPanel() override;

    enum class SearchMode { Ids, Text };

    ClustersModel* model() const { return model_; }
    QTableView* view() const { return view_; }
    QTableWidget* membersTable() const { return members_; }
    // The selected cluster as a tree of who vouches for whom (the "Chain" tab beside Members).
    ChainView* chainView() const { return chain_; }
    QTabWidget* memberTabs() const { return memberTabs_; }
    ComparisonView* comparison() const { return comparison_; }
    QLineEdit* searchBox() const { return search_; }
    QComboBox* searchModeBox() const { return searchMode_; }
    QCheckBox* decidedOnlyBox() const { return decidedOnly_; }
    QCheckBox* flaggedOnlyBox() const { return flaggedOnly_; }
    // "matched the reference": only clusters with a reference member (shown for a run against a
    // reference only).
    QCheckBox* referenceOnlyBox() const { return referenceOnly_; }
    QSpinBox* minSizeBox() const { return minSize_; }
    QPushButton* stopSearchButton() const { return stopSearch_; }
    // "reviewed 37 of 1,714 clusters" (ProjectQueries::reviewProgress), for the run shown at
    // the working threshold; updated after every decision, threshold change and audit verdict.
    QString reviewProgressText() const;
    QString searchStatus() const;
    bool isSearchingText() const { return searches_->pending() > 0; }
    void setSearchMode(SearchMode mode);
    // Decisions of the current run's dataset, as last read.
    int decisionCount() const { return decisionCount_; }
    qint64 currentCluster() const { return cluster_; }
    int currentPair() const { return pairIndex_; }
    int pairCount() const { return int(pairs_.size()); }

  public slots:
    void selectClusterRow(int row);
    // Opens the side-by-side view on a document: its cluster, it and the kept document it is
    // removed for (its witness), as a click on it in the members list does.
    void showDocument(uint32_t doc);
    void nextPair();
    void previousPair();
    // Decisions about the pair shown: recorded, then the table and the comparison follow.
    void markNotDuplicate();
    // Records "confirmed duplicate" on the pair shown and goes on to the next pair (Y).
    void confirmDuplicate();
    void keepInstead(bool right);
    void keepAll();
    void undoDecision();
    // Keyboard review (with confirmDuplicate): each records its decision about the pair shown,
    // then shows the next pair (the next cluster's first after the last). N and K.
    void rejectAndAdvance();
    // Keeps the document of the pair that is removed instead of the kept one.
    void keepOtherAndAdvance();
    // Reads the review progress again (after an audit verdict, say).
    void refreshReviewProgress();
    // Decisions were recorded elsewhere (the sampled audit's "Apply verdicts as decisions"):
    // the table, the comparison and the counts follow as after a decision made here, and
    // decisionsChanged() goes out.
    void reloadDecisions();
    // Text mode: searches the clustered documents' texts for the search box's text.
    void startTextSearch();
    void stopTextSearch();

  signals:
    // After a comparison is shown (for tests and the status bar).
    void comparisonShown();
    // After a cluster's members and chain are shown.
    void clusterShown();
    // After a decision was recorded or undone and the table shows its effect.
    void decisionsChanged();
    // After a text search finished (or was stopped) and the table lists its clusters.
    void textSearchFinished(quint64 matches);

  private:
    // A giant cluster is browsed through its first pairs only.
    static constexpr uint64_t kMaxPairsBrowsed = 20000;

    void setRun(const RunInfo& run);  // runId 0 clears
    // The working threshold (the threshold slider's): the table lists the run re-clustered at
    // it; at the run's own threshold, its stored clustering.
    void setThreshold(double threshold);
    void clearRun();
    void onClusterSelected();
    void loadCluster(qint64 cluster);
    void applyFilter();
    void record(DecisionKind kind, uint32_t a, uint32_t b, uint32_t anchor, bool advance = false);
    void afterDecision(const QString& message, int64_t anchorCluster);
    void refreshDecisionState();
    struct SearchInput;
    // The text search's second step: reading the listed documents back, on searches_.
    void searchTextsOf(std::shared_ptr<const SearchInput> in, const QString& needle,
                       const LatestRequest::Ticket& ticket,
                       std::shared_ptr<std::atomic<bool>> cancel,
                       std::function<void(const QString&)> failed);
    void abandonTextSearch();
    void onMemberActivated(int row);
    void showPairOf(uint32_t a, uint32_t b);
    // The first stored pair of a removed member and its witness (0 when there is none): shown
    // first when a cluster opens.
    int firstWitnessPair() const;
    void showPair(int index);
    void compare(uint32_t a, uint32_t b, const PairRow* stored, const QString& position);
    void updateCount();
    // The constructor's steps.
    QWidget* buildClusterList();
    void connectSignals();
    void observe(ProjectDocument* document);
    void addShortcuts();

    JobQueue* jobs_;
    JobQueue* searches_;  // the text search's reading, so that jobs_ keeps serving the table
    RunInfo run_;
    ClustersModel* model_;
    QLineEdit* search_;
    QComboBox* searchMode_;
    QSpinBox* minSize_;
    QCheckBox* decidedOnly_;
    QCheckBox* flaggedOnly_;
    QCheckBox* referenceOnly_;
    QLabel* count_;
    ElidedLabel* reviewProgress_;
    LatestRequest latestProgress_;
    QProgressBar* searchProgress_;
    QPushButton* stopSearch_;
    QLabel* searchStatus_;
    QTableView* view_;
    QTableWidget* members_;
    ChainView* chain_;
    QTabWidget* memberTabs_;
    ComparisonView* comparison_;
    qint64 cluster_ = -1;
    std::vector<ClusterMember> memberList_;
    std::vector<PairRow> pairs_;
    int pairIndex_ = 0;
    bool wantLastPair_ = false;
    std::optional<std::pair<uint32_t, uint32_t>> wantPair_;  // show this pair once loaded
    std::optional<uint32_t> wantDocument_;                   // or this member's comparison
    LatestRequest latestShown_;  // the cluster or pair shown: an earlier selection's is dropped
    int decisionCount_ = 0;
    bool deciding_ = false;              // a decision is being recorded: ignore more until it shows
    bool advanceAfterDecision_ = false;  // then show the pair after wantPair_
    // The cluster the decision message speaks of: another cluster shown clears the message,
    // unless the review itself moved on to it (messageFollows_: after the last pair of a
    // cluster, Y, N or K go on to the next one, and the message confirms the key pressed).
    qint64 messageCluster_ = -1;
    bool messageFollows_ = false;
    // The running text search: its stop flag, and the latest search (an earlier one's results
    // are dropped).
    std::shared_ptr<std::atomic<bool>> searchCancel_;
    LatestRequest latestSearch_;
};

}  // namespace neardup::ui
