#include "comparisonview.h"

#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QScrollBar>
#include <QSplitter>
#include <QTextCursor>
#include <QTextDocument>
#include <QTextEdit>
#include <QVBoxLayout>
#include <cmath>

#include "elidedlabel.h"
#include "numbertext.h"

namespace neardup::ui {

namespace {

enum class Side { A, B };

// Fills `edit` with `text`, highlighting the words of every run that is not Equal on that side.
void renderSide(QTextEdit* edit, const std::string& text, const WordDiff& diff, Side side,
                const QColor& changed, const QColor& replaced) {
    edit->clear();
    QTextCursor cursor(edit->document());
    cursor.beginEditBlock();
    const QTextCharFormat plain;
    QTextCharFormat changedFormat, replacedFormat;
    changedFormat.setBackground(changed);
    replacedFormat.setBackground(replaced);
    const auto& tokens = side == Side::A ? diff.a : diff.b;
    auto insert = [&](std::size_t from, std::size_t to, const QTextCharFormat& f) {
        if (to > from)
            cursor.insertText(QString::fromUtf8(text.data() + from, qsizetype(to - from)), f);
    };
    if (tokens.empty()) {
        insert(0, text.size(), plain);
    } else {
        insert(0, tokens.front().begin, plain);
        for (const DiffRun& run : diff.runs) {
            const std::size_t first = side == Side::A ? run.aBegin : run.bBegin;
            const std::size_t last = side == Side::A ? run.aEnd : run.bEnd;
            if (last == first) continue;
            const std::size_t bodyBegin = tokens[first].begin;
            const std::size_t bodyEnd = tokens[last - 1].begin + tokens[last - 1].length;
            const std::size_t gapEnd = last < tokens.size() ? tokens[last].begin : text.size();
            const QTextCharFormat& f = run.kind == DiffKind::Equal     ? plain
                                       : run.kind == DiffKind::Replace ? replacedFormat
                                                                       : changedFormat;
            insert(bodyBegin, bodyEnd, f);
            insert(bodyEnd, gapEnd, plain);
        }
    }
    cursor.endEditBlock();
    edit->moveCursor(QTextCursor::Start);
}

// Ids of a few hundred characters (URLs, paths) are shortened in the middle; the header's
// tooltip has the whole id.
QString shortId(const QString& id) {
    constexpr int kMaxChars = 72;
    if (id.size() <= kMaxChars) return id;
    return id.left(kMaxChars / 2 - 1) + QStringLiteral("\u2026") + id.right(kMaxChars / 2);
}

QString header(uint32_t doc, const QString& id, bool representative, bool kept,
               const QString& status, bool shortened, bool reference) {
    QString h =
        QStringLiteral("<b>%1</b> &nbsp;(document %2)").arg(shortId(id).toHtmlEscaped()).arg(doc);
    if (reference) {
        // The reference's document: never removed, whatever the rule or the decisions.
        h += QStringLiteral("<br><span style='color:#0d47a1'><b>%1</b></span>")
                 .arg(QObject::tr("Reference").toHtmlEscaped());
        h += QStringLiteral(" &nbsp;") + QObject::tr("(never removed)");
        if (shortened) h += QObject::tr(" &nbsp;(shown shortened)");
        return h;
    }
    const QString word = !status.isEmpty() ? status
                         : representative  ? QObject::tr("kept")
                         : kept            ? QObject::tr("kept (keep all)")
                                           : QObject::tr("removed");
    const bool isKept =
        status.isEmpty() ? representative || kept : status.startsWith(QObject::tr("kept"));
    h += QStringLiteral("<br><span style='color:%1'>%2</span>")
             .arg(isKept ? QStringLiteral("#1b6e20") : QStringLiteral("#b71c1c"),
                  word.toHtmlEscaped());
    if (shortened) h += QObject::tr(" &nbsp;(shown shortened)");
    return h;
}

}  // namespace

ComparisonView::ComparisonView(QWidget* parent) : QWidget(parent) {
    headerA_ = new QLabel;
    headerB_ = new QLabel;
    headerA_->setObjectName(QStringLiteral("leftHeader"));
    headerB_->setObjectName(QStringLiteral("rightHeader"));
    // Never wider than the half they head: what does not fit is clipped (the id is shortened
    // and whole in the tooltip).
    for (QLabel* h : {headerA_, headerB_})
        h->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    summary_ = new QLabel;
    summary_->setObjectName(QStringLiteral("comparisonSummary"));
    summary_->setWordWrap(true);
    left_ = new QTextEdit;
    right_ = new QTextEdit;
    for (QTextEdit* e : {left_, right_}) {
        e->setReadOnly(true);
        e->setLineWrapMode(QTextEdit::WidgetWidth);
    }
    left_->setObjectName(QStringLiteral("leftDocument"));
    right_->setObjectName(QStringLiteral("rightDocument"));
    previous_ = new QPushButton(tr("\u25b2 Previous pair"));
    previous_->setToolTip(tr("Previous pair, across clusters (Alt+Up)"));
    next_ = new QPushButton(tr("Next pair \u25bc"));
    next_->setToolTip(tr("Next pair, across clusters (Alt+Down)"));
    connect(previous_, &QPushButton::clicked, this, &ComparisonView::previousRequested);
    connect(next_, &QPushButton::clicked, this, &ComparisonView::nextRequested);

    // Audit decisions, recorded in the project and honoured by every export.
    notDuplicate_ = new QPushButton(tr("Not a duplicate"));
    notDuplicate_->setObjectName(QStringLiteral("notDuplicateButton"));
    notDuplicate_->setToolTip(
        tr("These two are not duplicates: their pair no longer joins them. N records it and "
           "goes on to the next pair (N); Alt+N stays on this pair"));
    confirm_ = new QPushButton(tr("Confirm duplicate"));
    confirm_->setObjectName(QStringLiteral("confirmButton"));
    confirm_->setToolTip(
        tr("These two are duplicates: record it (the cluster counts as reviewed; nothing is "
           "changed) and go on to the next pair (Y)"));
    keepLeft_ = new QPushButton(tr("Keep this one instead"));
    keepLeft_->setObjectName(QStringLiteral("keepLeftButton"));
    keepLeft_->setToolTip(
        tr("Make the left document its cluster's representative (Alt+Left; K keeps the removed "
           "one of the two and goes on to the next pair)"));
    keepRight_ = new QPushButton(tr("Keep this one instead"));
    keepRight_->setObjectName(QStringLiteral("keepRightButton"));
    keepRight_->setToolTip(
        tr("Make the right document its cluster's representative (Alt+Right; K keeps the "
           "removed one of the two and goes on to the next pair)"));
    keepAll_ = new QPushButton(tr("Keep all"));
    keepAll_->setObjectName(QStringLiteral("keepAllButton"));
    keepAll_->setToolTip(tr("Keep every member of this cluster: remove none (Alt+K)"));
    undo_ = new QPushButton(tr("Undo decision"));
    undo_->setObjectName(QStringLiteral("undoDecisionButton"));
    undo_->setToolTip(tr("Take back the latest decision about this dataset (Ctrl+Z)"));
    undo_->setEnabled(false);
    decisionState_ = new ElidedLabel;
    decisionState_->setAlignment(Qt::AlignRight | Qt::AlignVCenter);
    decisionState_->setObjectName(QStringLiteral("decisionState"));
    decisionMessage_ = new QLabel;
    decisionMessage_->setObjectName(QStringLiteral("decisionMessage"));
    decisionMessage_->setWordWrap(true);
    connect(notDuplicate_, &QPushButton::clicked, this, &ComparisonView::notDuplicateRequested);
    connect(confirm_, &QPushButton::clicked, this, &ComparisonView::confirmRequested);
    connect(keepLeft_, &QPushButton::clicked, this, [this] { emit keepInsteadRequested(false); });
    connect(keepRight_, &QPushButton::clicked, this, [this] { emit keepInsteadRequested(true); });
    connect(keepAll_, &QPushButton::clicked, this, &ComparisonView::keepAllRequested);
    connect(undo_, &QPushButton::clicked, this, &ComparisonView::undoRequested);

    // Each document with its header and the button that keeps it; navigation and the verdicts
    // about the pair above them. Nothing here is wider than its half of a 1280-pixel screen.
    auto side = [](QLabel* head, QPushButton* keep, QTextEdit* text) {
        auto* box = new QWidget;
        auto* v = new QVBoxLayout(box);
        v->setContentsMargins(0, 0, 0, 0);
        auto* top = new QHBoxLayout;
        top->addWidget(head, 1);
        top->addWidget(keep, 0, Qt::AlignTop);
        v->addLayout(top);
        v->addWidget(text, 1);
        return box;
    };
    auto* split = new QSplitter(Qt::Horizontal);
    split->setObjectName(QStringLiteral("documentSplit"));
    split->setChildrenCollapsible(false);
    split->addWidget(side(headerA_, keepLeft_, left_));
    split->addWidget(side(headerB_, keepRight_, right_));

    auto* bar = new QHBoxLayout;
    bar->addWidget(summary_, 1);
    bar->addWidget(previous_);
    bar->addWidget(next_);
    auto* decide = new QHBoxLayout;
    decide->addWidget(confirm_);
    decide->addWidget(notDuplicate_);
    decide->addWidget(keepAll_);
    decide->addWidget(decisionState_, 1);
    decide->addWidget(undo_);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addLayout(bar);
    layout->addLayout(decide);
    layout->addWidget(decisionMessage_);
    layout->addWidget(split, 1);

    connect(left_->verticalScrollBar(), &QScrollBar::valueChanged, this,
            [this] { syncScroll(left_, right_); });
    connect(right_->verticalScrollBar(), &QScrollBar::valueChanged, this,
            [this] { syncScroll(right_, left_); });
    clear(tr("Select a cluster to compare its members."));
}

void ComparisonView::syncScroll(QTextEdit* from, QTextEdit* to) {
    if (syncing_) return;
    syncing_ = true;
    // Proportional: the two texts differ in length, so equal offsets would drift apart.
    const QScrollBar* a = from->verticalScrollBar();
    QScrollBar* b = to->verticalScrollBar();
    const double ratio = a->maximum() > 0 ? double(a->value()) / a->maximum() : 0.0;
    b->setValue(int(std::lround(ratio * b->maximum())));
    syncing_ = false;
}

void ComparisonView::setComparison(const ComparisonData& d) {
    headerA_->setText(
        header(d.docA, d.idA, d.representativeA, d.keptA, d.statusA, d.shortenedA, d.referenceA));
    headerB_->setText(
        header(d.docB, d.idB, d.representativeB, d.keptB, d.statusB, d.shortenedB, d.referenceB));
    headerA_->setToolTip(d.idA);
    headerB_->setToolTip(d.idB);
    shown_ = true;
    docA_ = d.docA;
    docB_ = d.docB;
    keptA_ = d.representativeA || d.keptA;
    keptB_ = d.representativeB || d.keptB;
    referenceA_ = d.referenceA;
    referenceB_ = d.referenceB;
    if (d.errorA.isEmpty())
        renderSide(left_, d.textA, d.diff, Side::A, QColor(255, 205, 205), QColor(255, 225, 170));
    else
        left_->setPlainText(tr("Cannot show this document: %1").arg(d.errorA));
    if (d.errorB.isEmpty())
        renderSide(right_, d.textB, d.diff, Side::B, QColor(200, 240, 200), QColor(255, 225, 170));
    else
        right_->setPlainText(tr("Cannot show this document: %1").arg(d.errorB));
    std::size_t removed = 0, added = 0;
    for (const DiffRun& r : d.diff.runs) {
        if (r.kind == DiffKind::Equal) continue;
        removed += r.aEnd - r.aBegin;
        added += r.bEnd - r.bBegin;
    }
    QStringList parts;
    if (!d.position.isEmpty()) parts << d.position;
    parts << (std::isnan(d.estimated) ? tr("estimated J: pair not stored")
                                      : tr("estimated J %1 (%2/%3)")
                                            .arg(d.estimated, 0, 'f', 3)
                                            .arg(d.matches)
                                            .arg(d.hashes));
    if (!std::isnan(d.exact))
        parts << tr("exact J %1 (%2)")
                     .arg(d.exact, 0, 'f', 3)
                     .arg(d.exactStored ? tr("verified by the run") : tr("computed now"));
    parts << tr("%1 words equal, <span style='background:#ffcdcd'>%2 only left</span>, "
                "<span style='background:#c8f0c8'>%3 only right</span>")
                 .arg(countText(d.diff.equalTokens), countText(removed), countText(added));
    if (!d.diffBasis.isEmpty()) parts.back() += QStringLiteral(" (%1)").arg(d.diffBasis);
    if (d.diff.truncated) parts << tr("too different for a word alignment");
    if (d.notDuplicate) parts << tr("<b>marked not a duplicate</b> (still linked through others)");
    summary_->setText(parts.join(QStringLiteral(" \u00b7 ")));
    previous_->setEnabled(true);
    next_->setEnabled(true);
    for (QPushButton* b : {notDuplicate_, confirm_, keepLeft_, keepRight_, keepAll_})
        b->setEnabled(true);
    // No new document is kept in place of a reference one (the decision would change nothing).
    const bool reference = d.referenceA || d.referenceB || d.referenceCluster;
    keepLeft_->setEnabled(!d.representativeA && !reference);
    keepRight_->setEnabled(!d.representativeB && !reference);
    notDuplicate_->setEnabled(!d.notDuplicate);
    applyHighlight();
}

void ComparisonView::setHighlight(const QString& needle) {
    needle_ = needle;
    applyHighlight();
}

void ComparisonView::applyHighlight() {
    highlights_ = 0;
    QTextCharFormat hit;
    hit.setBackground(QColor(255, 235, 59));
    hit.setFontWeight(QFont::Bold);
    for (QTextEdit* edit : {left_, right_}) {
        QList<QTextEdit::ExtraSelection> marks;
        if (shown_ && !needle_.isEmpty()) {
            QTextCursor at(edit->document());
            while (!(at = edit->document()->find(needle_, at)).isNull())
                marks.append({at, hit});
        }
        highlights_ += int(marks.size());
        edit->setExtraSelections(marks);
    }
}

void ComparisonView::setDecisionState(int count, const QString& last) {
    undo_->setEnabled(count > 0);
    decisionState_->setText(count == 0 ? tr("no decisions")
                                       : tr("%n decision(s); last: %1", "", count).arg(last));
}

void ComparisonView::setDecisionsVisible(bool visible) {
    for (QWidget* w :
         std::initializer_list<QWidget*>{notDuplicate_, confirm_, keepLeft_, keepRight_, keepAll_,
                                         undo_, previous_, next_, decisionState_, decisionMessage_})
        w->setVisible(visible);
}

void ComparisonView::setDecisionMessage(const QString& message) {
    decisionMessage_->setText(message);
}

QString ComparisonView::decisionMessage() const {
    return decisionMessage_->text();
}

void ComparisonView::clear(const QString& message) {
    shown_ = false;
    referenceA_ = referenceB_ = false;
    for (QPushButton* b : {notDuplicate_, confirm_, keepLeft_, keepRight_, keepAll_})
        b->setEnabled(false);
    headerA_->clear();
    headerB_->clear();
    headerA_->setToolTip(QString());
    headerB_->setToolTip(QString());
    left_->clear();
    right_->clear();
    applyHighlight();
    summary_->setText(message);
}

QString ComparisonView::leftText() const {
    return left_->toPlainText();
}
QString ComparisonView::rightText() const {
    return right_->toPlainText();
}
QString ComparisonView::summaryText() const {
    return summary_->text();
}

}  // namespace neardup::ui
