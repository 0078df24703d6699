// Two documents side by side with word-level differences highlighted (core/word_diff), their
// estimated and exact Jaccard, and synchronized scrolling; buttons (and the clusters panel's
// keyboard shortcuts) for the audit decisions about the pair shown (core/project/decisions.h).
#pragma once

#include <QWidget>
#include <string>

#include "word_diff.h"

class QLabel;
class QPushButton;
class QTextEdit;

namespace neardup::ui {

class ElidedLabel;

struct ComparisonData {
    uint32_t docA = 0, docB = 0;
    QString idA, idB;
    bool representativeA = false, representativeB = false;
    bool keptA = false, keptB = false;  // the representative, or kept by a "keep all"
    bool notDuplicate = false;          // a decision says this pair is not a duplicate
    // Documents of the run's reference (`--reference`): never removed. A pair with one shows it
    // on the left (docA), the new document on the right.
    bool referenceA = false, referenceB = false;
    // The pair's cluster holds a reference document: it stays the representative, so neither
    // side can be kept instead.
    bool referenceCluster = false;
    // Each document's status as the members list words it ("removed (for <id>)"); empty:
    // worded from the flags above.
    QString statusA, statusB;
    std::string textA, textB;  // UTF-8, possibly shortened for display
    bool shortenedA = false, shortenedB = false;
    QString errorA, errorB;  // when a document could not be read back
    WordDiff diff;
    QString
        diffBasis;  // how words were compared: "ignoring case, spacing, ..., as the run matched"
    double estimated = 0;  // NaN when the pair was not stored
    uint32_t matches = 0;
    int hashes = 0;
    double exact = 0;          // NaN when unknown
    bool exactStored = false;  // verified by the run, rather than computed for display
    QString position;          // "pair 2 of 5 in cluster 17"
};

class ComparisonView : public QWidget {
    Q_OBJECT
  public:
    explicit ComparisonView(QWidget* parent = nullptr);

    void setComparison(const ComparisonData& d);
    void clear(const QString& message);

    QString leftText() const;
    QString rightText() const;
    QString summaryText() const;
    QTextEdit* leftView() const { return left_; }
    QTextEdit* rightView() const { return right_; }
    QPushButton* nextButton() const { return next_; }
    QPushButton* previousButton() const { return previous_; }
    QPushButton* notDuplicateButton() const { return notDuplicate_; }
    QPushButton* confirmButton() const { return confirm_; }
    QPushButton* keepLeftButton() const { return keepLeft_; }
    QPushButton* keepRightButton() const { return keepRight_; }
    QPushButton* keepAllButton() const { return keepAll_; }
    QPushButton* undoButton() const { return undo_; }
    // The documents shown (valid while hasComparison()).
    bool hasComparison() const { return shown_; }
    uint32_t leftDocument() const { return docA_; }
    uint32_t rightDocument() const { return docB_; }
    // Whether each side is kept (the representative, or kept by a decision or the rule).
    bool leftKept() const { return keptA_; }
    bool rightKept() const { return keptB_; }
    // Whether each side is a document of the run's reference.
    bool leftReference() const { return referenceA_; }
    bool rightReference() const { return referenceB_; }
    // "3 decisions; last: not a duplicate 12 / 40" next to the undo button; undo is enabled
    // when there is one to undo.
    void setDecisionState(int count, const QString& last);
    // A line about the last decision (recorded, undone, or why it failed).
    void setDecisionMessage(const QString& message);
    // Shows or hides the decision buttons, undo and pair navigation (the sampled audit has
    // its own verdicts).
    void setDecisionsVisible(bool visible);
    QString decisionMessage() const;
    // Marks every occurrence of `needle` (ignoring case) in both texts: the clusters panel's
    // search hits. Empty: none. Kept for the next comparisons.
    void setHighlight(const QString& needle);
    // Occurrences marked now, left and right together.
    int highlightCount() const { return highlights_; }

  signals:
    void nextRequested();
    void previousRequested();
    void notDuplicateRequested();
    void confirmRequested();
    void keepInsteadRequested(bool right);  // keep the right (or left) document instead
    void keepAllRequested();
    void undoRequested();

  private:
    void syncScroll(QTextEdit* from, QTextEdit* to);
    void applyHighlight();

    QLabel* headerA_;
    QLabel* headerB_;
    QLabel* summary_;
    QTextEdit* left_;
    QTextEdit* right_;
    QPushButton* previous_;
    QPushButton* next_;
    QPushButton* notDuplicate_;
    QPushButton* confirm_;
    QPushButton* keepLeft_;
    QPushButton* keepRight_;
    QPushButton* keepAll_;
    QPushButton* undo_;
    ElidedLabel* decisionState_;
    QLabel* decisionMessage_;
    bool syncing_ = false;
    bool shown_ = false;
    uint32_t docA_ = 0, docB_ = 0;
    bool keptA_ = false, keptB_ = false;
    bool referenceA_ = false, referenceB_ = false;
    QString needle_;
    int highlights_ = 0;
};

}  // namespace neardup::ui
