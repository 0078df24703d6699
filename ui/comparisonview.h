// Two documents side by side with word-level differences highlighted (core/word_diff), their
// estimated and exact Jaccard, and synchronized scrolling.
#pragma once

#include <QWidget>
#include <string>

#include "word_diff.h"

class QLabel;
class QPushButton;
class QTextEdit;

namespace neardup::ui {

struct ComparisonData {
    uint32_t docA = 0, docB = 0;
    QString idA, idB;
    bool representativeA = false, representativeB = false;
    std::string textA, textB;  // UTF-8, possibly shortened for display
    bool shortenedA = false, shortenedB = false;
    QString errorA, errorB;  // when a document could not be read back
    WordDiff diff;
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

  signals:
    void nextRequested();
    void previousRequested();

  private:
    void syncScroll(QTextEdit* from, QTextEdit* to);

    QLabel* headerA_;
    QLabel* headerB_;
    QLabel* summary_;
    QTextEdit* left_;
    QTextEdit* right_;
    QPushButton* previous_;
    QPushButton* next_;
    bool syncing_ = false;
};

}  // namespace neardup::ui
