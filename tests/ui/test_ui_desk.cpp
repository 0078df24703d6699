// The auditor's desk on a 1280x800 screen, offscreen: on first start the comparison of two
// documents is the main stage. Both documents, the pair navigation and the decision buttons lie
// wholly inside the window without scrolling (every ancestor's rectangle holds them, so no
// scroll area clips them), each document pane keeps a readable width, and the clusters list
// lies beside the comparison; the parameters and the run history are one click away. Checked
// on the bundled sample and on a project whose document ids are 300 characters long.
#include <QtGlobal>

#ifdef NEARDUP_TEST_GUI  // defined by tests/CMakeLists.txt when neardup_ui is built

#include <QAbstractScrollArea>
#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QDockWidget>
#include <QHeaderView>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QPushButton>
#include <QRegularExpression>
#include <QScreen>
#include <QScrollBar>
#include <QSignalSpy>
#include <QSlider>
#include <QSpinBox>
#include <QTableView>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTextEdit>
#include <QWheelEvent>
#include <random>

#include <cmath>
#include "auditdialog.h"
#include "chain_corpus.h"
#include "clustersmodel.h"
#include "clusterspanel.h"
#include "comparisonview.h"
#include "elidedlabel.h"
#include "exportdialog.h"
#include "mainwindow.h"
#include "parameterspanel.h"
#include "projectdocument.h"
#include "qcp.h"
#include "runhistorymodel.h"
#include "runhistorypanel.h"
#include "startpage.h"
#include "thresholdpanel.h"
#include "ui_window_fixture.h"

using namespace neardup;
using namespace neardup::ui;
using namespace uiwindow;

namespace {

QString describe(const QRect& r) {
    return QStringLiteral("%1,%2 %3x%4").arg(r.x()).arg(r.y()).arg(r.width()).arg(r.height());
}

// Why `w` is not wholly on screen in its window: hidden, or its rectangle leaves an
// ancestor's (a scroll area's viewport clips it, or the window cuts it off). Empty: it is.
QString clipped(const QWidget* w) {
    if (!w->isVisible()) return QStringLiteral("%1 is hidden").arg(w->objectName());
    for (const QWidget* p = w->parentWidget(); p; p = p->parentWidget()) {
        const QRect r(w->mapTo(p, QPoint(0, 0)), w->size());
        if (!p->rect().contains(r))
            return QStringLiteral("%1 at %2 leaves %3 (%4)")
                .arg(w->objectName().isEmpty() ? QString::fromLatin1(w->metaObject()->className())
                                               : w->objectName(),
                     describe(r),
                     p->objectName().isEmpty() ? QString::fromLatin1(p->metaObject()->className())
                                               : p->objectName(),
                     describe(p->rect()));
        if (p->isWindow()) break;
    }
    return {};
}

QRect inWindow(const QWidget* w) {
    return QRect(w->mapTo(w->window(), QPoint(0, 0)), w->size());
}

}  // namespace

class TestUiDesk : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    QString longIds_, caseCopy_;

    // The desk as a first start shows it: both documents, navigation and decisions whole and
    // unscrolled, the clusters list to their left.
    void checkDesk(MainWindow& w, const char* what) {
        QVERIFY(QGuiApplication::primaryScreen()->availableGeometry().contains(w.frameGeometry()));
        ComparisonView* cmp = w.clusters()->comparison();
        QTRY_VERIFY_WITH_TIMEOUT(cmp->hasComparison(), 20000);
        QVERIFY(settle(w));
        QTest::qWait(50);  // layouts settle after the last text is set
        QStringList problems;
        const QList<QWidget*> parts{
            cmp->leftView(),      cmp->rightView(),      cmp->previousButton(),
            cmp->nextButton(),    cmp->undoButton(),     cmp->notDuplicateButton(),
            cmp->confirmButton(), cmp->keepLeftButton(), cmp->keepRightButton(),
            cmp->keepAllButton(), w.clusters()->view()};
        for (QWidget* part : parts)
            if (const QString p = clipped(part); !p.isEmpty()) problems << p;
        // No scroll bar stands between the user and the second document.
        for (auto* area :
             w.findChildren<QAbstractScrollArea*>(QStringLiteral("clustersPanelScroll")))
            if (area->horizontalScrollBar()->isVisible())
                problems << QStringLiteral("the clusters tab scrolls sideways");
        const QRect left = inWindow(cmp->leftView()), right = inWindow(cmp->rightView());
        const QRect list = inWindow(w.clusters()->view());
        qInfo(
            "%s: window %dx%d, clusters list %s, left document %s, right document %s, "
            "next %s, undo %s",
            what, w.width(), w.height(), qPrintable(describe(list)), qPrintable(describe(left)),
            qPrintable(describe(right)), qPrintable(describe(inWindow(cmp->nextButton()))),
            qPrintable(describe(inWindow(cmp->undoButton()))));
        // Each document is readable (a line of some 45 characters at least) and the
        // comparison is the larger part of the window.
        for (const QRect& pane : {left, right})
            if (pane.width() < 360 || pane.height() < 250)
                problems << QStringLiteral("a document pane is %1").arg(describe(pane));
        if (left.right() >= right.left()) problems << QStringLiteral("the panes overlap");
        if (list.right() >= left.left())
            problems << QStringLiteral("the clusters list is not beside the comparison");
        if (right.right() - left.left() < w.width() / 2)
            problems << QStringLiteral("the comparison takes less than half the width");
        QVERIFY2(problems.isEmpty(), qPrintable(problems.join(QStringLiteral("; "))));

        // Parameters and history: a click on their tab shows them.
        for (const char* name : {"parametersDock", "historyDock"}) {
            auto* d = w.findChild<QDockWidget*>(QString::fromLatin1(name));
            QVERIFY(d);
            QVERIFY2(!d->isHidden() || w.tabifiedDockWidgets(d).size() > 0,
                     qPrintable(QStringLiteral("%1 is closed").arg(QString::fromLatin1(name))));
            d->raise();
            QTRY_VERIFY(d->isVisible() && !d->visibleRegion().isEmpty());
        }
        QVERIFY2(clipped(cmp->nextButton()).isEmpty(), qPrintable(clipped(cmp->nextButton())));

        // The run history shows each run's counts without scrolling; the long parameters
        // line may run past the edge.
        w.findChild<QDockWidget*>(QStringLiteral("historyDock"))->raise();
        QTableView* runs = w.history()->view();
        QTRY_VERIFY(runs->isVisible() && runs->model()->rowCount() > 0);
        for (const int column : {int(RunHistoryModel::Documents), int(RunHistoryModel::Clusters),
                                 int(RunHistoryModel::Removed)}) {
            const QHeaderView* h = runs->horizontalHeader();
            const int end = h->sectionViewportPosition(column) + h->sectionSize(column);
            QVERIFY2(h->sectionViewportPosition(column) >= 0 && end <= runs->viewport()->width(),
                     qPrintable(QStringLiteral("column %1 ends at %2 of %3")
                                    .arg(column)
                                    .arg(end)
                                    .arg(runs->viewport()->width())));
        }
    }

  private slots:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        isolateSettings(dir_.filePath(QStringLiteral("settings")), "test_ui_desk");
        const QString corpus = dir_.filePath(QStringLiteral("long-ids.jsonl"));
        writeLongIdCorpus(corpus, 160, 11, 300);
        longIds_ = dir_.filePath(QStringLiteral("long-ids.ndw"));
        const QString problem =
            cliRun(longIds_, {corpus}, {QStringLiteral("--threshold"), QStringLiteral("0.7")});
        QVERIFY2(problem.isEmpty(), qPrintable(problem));
    }

    // Two documents, the second the first in capitals with more spacing: one pair.
    void makeCaseCopyProject() {
        const QString corpus = dir_.filePath(QStringLiteral("case.jsonl"));
        QString text;
        for (int i = 0; i < 60; ++i)
            text += QStringLiteral("Word%1 of The Original Text ").arg(i);
        {
            QFile f(corpus);
            QVERIFY(f.open(QIODevice::WriteOnly));
            auto line = [&f](const QString& id, const QString& t) {
                QJsonObject o;
                o.insert(QStringLiteral("id"), id);
                o.insert(QStringLiteral("text"), t);
                f.write(QJsonDocument(o).toJson(QJsonDocument::Compact) + '\n');
            };
            line(QStringLiteral("original"), text);
            line(QStringLiteral("shouted"),
                 text.toUpper().replace(QStringLiteral(" "), QStringLiteral("  \t")));
        }
        caseCopy_ = dir_.filePath(QStringLiteral("case.ndw"));
        const QString problem = cliRun(caseCopy_, {corpus});
        QVERIFY2(problem.isEmpty(), qPrintable(problem));
    }

    void theScreenIsSmall() {
        QCOMPARE(QGuiApplication::primaryScreen()->geometry().size(), kSmallScreen);
    }

    void theSampleFitsAtFirstStart() {
        QSettings().clear();
        MainWindow w;
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(w.openSample(dir_.filePath(QStringLiteral("sample"))));
        checkDesk(w, "sample");
    }

    // "reviewed N of M clusters" is on screen, whole, and counts a confirmed pair.
    void reviewProgressIsShownAndCounted() {
        QSettings().clear();
        MainWindow w;
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(w.openProject(longIds_, true));
        QTRY_VERIFY_WITH_TIMEOUT(w.clusters()->comparison()->hasComparison(), 20000);
        QVERIFY(settle(w));
        auto* label = w.clusters()->findChild<ElidedLabel*>(QStringLiteral("reviewProgress"));
        QVERIFY(label);
        const quint64 total = w.clusters()->model()->totalCount();
        QVERIFY(total > 1u);
        QTRY_COMPARE(label->text(), QStringLiteral("reviewed 0 of %1 clusters").arg(total));
        QVERIFY2(clipped(label).isEmpty(), qPrintable(clipped(label)));
        QVERIFY2(!label->isElided(), qPrintable(QStringLiteral("%1 px wide").arg(label->width())));
        QSignalSpy decided(w.clusters(), &ClustersPanel::decisionsChanged);
        QTest::mouseClick(w.clusters()->comparison()->confirmButton(), Qt::LeftButton);
        QTRY_COMPARE_WITH_TIMEOUT(decided.size(), 1, 10000);
        QTRY_COMPARE(label->text(), QStringLiteral("reviewed 1 of %1 clusters").arg(total));
        QVERIFY(!label->isElided());
        // The decision is named by the documents' ids, not their internal numbers.
        const QString message = w.clusters()->comparison()->decisionMessage();
        QVERIFY2(message.startsWith(QStringLiteral("Recorded: confirmed duplicate https://")),
                 qPrintable(message));
    }

    // A copy that changed only case and spacing shows as equal word for word: the diff
    // compares words as the run's matcher did (lowercase, collapsed whitespace, NFC).
    void caseChangedCopyShowsEqual() {
        MainWindow w;
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(w.openProject(caseCopy_, true));
        ComparisonView* cmp = w.clusters()->comparison();
        QTRY_VERIFY_WITH_TIMEOUT(cmp->hasComparison(), 20000);
        QVERIFY(cmp->leftText() != cmp->rightText());  // each shown as written
        const QString summary = cmp->summaryText();
        QVERIFY2(summary.contains(QStringLiteral("300 words equal")), qPrintable(summary));
        QVERIFY2(summary.contains(QStringLiteral(">0 only left<")), qPrintable(summary));
        QVERIFY2(summary.contains(QStringLiteral(">0 only right<")), qPrintable(summary));
        QVERIFY2(summary.contains(QStringLiteral("ignoring case")), qPrintable(summary));
    }

    // The sampled audit words each document's status as the members list does ("removed (for
    // original)"), never "kept" for both.
    void auditLabelsEqualTheMainView() {
        MainWindow w;
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(w.openProject(caseCopy_, true));
        QTRY_VERIFY_WITH_TIMEOUT(w.clusters()->comparison()->hasComparison(), 20000);
        QVERIFY(settle(w));
        QTableWidget* members = w.clusters()->membersTable();
        QCOMPARE(members->rowCount(), 2);
        QStringList statuses;
        for (int row = 0; row < 2; ++row)
            statuses << members->item(row, 3)->text();
        QVERIFY2(statuses.contains(QStringLiteral("removed (for original)")),
                 qPrintable(statuses.join(QStringLiteral(", "))));
        AuditDialog* dialog = w.openAuditDialog();
        QVERIFY(dialog);
        QSignalSpy shown(dialog, &AuditDialog::pairShown);
        QTest::mouseClick(dialog->drawButton(), Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(shown.size() >= 1, 20000);
        for (int row = 0; row < 2; ++row) {
            const QString doc = QStringLiteral("(document %1)").arg(members->item(row, 0)->text());
            bool found = false;
            for (const char* side : {"leftHeader", "rightHeader"}) {
                auto* header = dialog->comparison()->findChild<QLabel*>(QString::fromLatin1(side));
                QVERIFY(header);
                if (!header->text().contains(doc)) continue;
                found = true;
                QVERIFY2(
                    header->text().contains(QLatin1Char('>') + statuses[row] + QLatin1Char('<')),
                    qPrintable(header->text() + QStringLiteral(" lacks ") + statuses[row]));
            }
            QVERIFY2(found, qPrintable(doc));
        }
        dialog->close();
    }

    // One run, three front ends, one count: a chain smaller than the three largest components
    // (stars of 30) is flagged by the workbench, --summary-json and the HTML report alike.
    void chainFlagsAgree() {
        const QString corpus = dir_.filePath(QStringLiteral("chains.jsonl"));
        testsupport::writeChainCorpus(corpus.toStdString());
        {
            QFile f(corpus);
            QVERIFY(f.open(QIODevice::Append));
            std::mt19937 random(5);
            for (int star = 0; star < 3; ++star) {
                QStringList words;
                for (int i = 0; i < 160; ++i)
                    words << QStringLiteral("w%1s%2").arg(random() % 100000).arg(star);
                for (int v = 0; v < 30; ++v) {
                    QStringList copy = words;
                    copy[int(random() % 160)] = QStringLiteral("edit%1").arg(v);
                    QJsonObject o;
                    o.insert(QStringLiteral("id"), QStringLiteral("s%1-%2").arg(star).arg(v));
                    o.insert(QStringLiteral("text"), copy.join(QLatin1Char(' ')));
                    f.write(QJsonDocument(o).toJson(QJsonDocument::Compact) + '\n');
                }
            }
        }
        const QString project = dir_.filePath(QStringLiteral("chains.ndw"));
        const QString summaryPath = dir_.filePath(QStringLiteral("chains.json"));
        const QString problem =
            cliRun(project, {corpus}, {QStringLiteral("--summary-json"), summaryPath});
        QVERIFY2(problem.isEmpty(), qPrintable(problem));
        QFile summaryFile(summaryPath);
        QVERIFY(summaryFile.open(QIODevice::ReadOnly));
        const QJsonObject components = QJsonDocument::fromJson(summaryFile.readAll())
                                           .object()
                                           .value(QStringLiteral("components"))
                                           .toObject();
        const int cliFlagged = components.value(QStringLiteral("chains")).toInt() +
                               components.value(QStringLiteral("large")).toInt();

        const QString html = dir_.filePath(QStringLiteral("chains.html"));
        const testsupport::CliResult report =
            testsupport::neardup({QStringLiteral("report"), QStringLiteral("-p"), project,
                                  QStringLiteral("--out"), html, QStringLiteral("--no-text")});
        QCOMPARE(report.code, 0);
        QFile htmlFile(html);
        QVERIFY(htmlFile.open(QIODevice::ReadOnly));
        const QRegularExpression counts(QStringLiteral("(\\d+) chain\\(s\\), (\\d+) large"));
        const QRegularExpressionMatch m = counts.match(QString::fromUtf8(htmlFile.readAll()));
        QVERIFY(m.hasMatch());
        const int reportFlagged = m.captured(1).toInt() + m.captured(2).toInt();

        MainWindow w;
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(w.openProject(project, true));
        QVERIFY(settle(w));
        QTRY_VERIFY_WITH_TIMEOUT(w.clusters()->model()->flaggedCount() > 0, 20000);
        const int workbenchFlagged = int(w.clusters()->model()->flaggedCount());
        QCOMPARE(cliFlagged, workbenchFlagged);
        QCOMPARE(reportFlagged, workbenchFlagged);
    }

    // The wheel over an unfocused combo or spin box of the Parameters dock changes nothing.
    void wheelOverUnfocusedFieldsChangesNothing() {
        MainWindow w;
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        w.findChild<QDockWidget*>(QStringLiteral("parametersDock"))->raise();
        QTRY_VERIFY(w.parameters()->isVisible());
        int tried = 0;
        for (QWidget* field : w.parameters()->findChildren<QWidget*>()) {
            auto* combo = qobject_cast<QComboBox*>(field);
            auto* spin = qobject_cast<QSpinBox*>(field);
            if (!field->isVisible() || !field->isEnabled() || (!combo && !spin)) continue;
            if (combo && combo->count() < 2) continue;
            if (combo) combo->setCurrentIndex(0);
            if (spin) spin->setValue(spin->minimum());
            const QString before = combo ? combo->currentText() : spin->text();
            field->clearFocus();
            QVERIFY(!field->hasFocus());
            const QPointF at(field->width() / 2.0, field->height() / 2.0);
            for (const int delta : {-120, 120, -120}) {
                QWheelEvent wheel(at, field->mapToGlobal(at), QPoint(), QPoint(0, delta),
                                  Qt::NoButton, Qt::NoModifier, Qt::NoScrollPhase, false);
                QApplication::sendEvent(field, &wheel);
            }
            const QString after = combo ? combo->currentText() : spin->text();
            QVERIFY2(
                after == before,
                qPrintable(
                    QStringLiteral("%1: %2 became %3").arg(field->objectName(), before, after)));
            ++tried;
        }
        QVERIFY(tried >= 5);
    }

    // The slider moves θ by 0.01 with the arrows and 0.05 with Page Down.
    void sliderStepsInHundredths() {
        MainWindow w;
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(w.openProject(caseCopy_, true));
        QVERIFY(settle(w));
        QSlider* slider = w.threshold()->slider();
        QTRY_VERIFY(slider->isEnabled());
        const double start = w.threshold()->threshold();
        slider->setFocus();
        QTest::keyClick(slider, Qt::Key_PageDown);
        QTRY_VERIFY(std::abs(w.threshold()->threshold() - (start - 0.05)) < 1e-9);
        QTest::keyClick(slider, Qt::Key_Left);
        QTRY_VERIFY(std::abs(w.threshold()->threshold() - (start - 0.06)) < 1e-9);
    }

    // Export's file names carry the working threshold when the slider is off the run's own,
    // so that exports at two thresholds never overwrite each other.
    void exportNamesCarryTheta() {
        MainWindow w;
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(w.openProject(caseCopy_, true));
        QVERIFY(settle(w));
        ExportDialog* own = w.openExportDialog();
        QVERIFY(own);
        QVERIFY2(own->plannedFiles().value(0).endsWith(QStringLiteral("case-run-1-kept.txt")),
                 qPrintable(own->plannedFiles().value(0)));
        own->close();
        QSlider* slider = w.threshold()->slider();
        QTRY_VERIFY(slider->isEnabled());
        slider->setFocus();
        QTest::keyClick(slider, Qt::Key_PageDown);
        // The clusters at the new θ shown: the document's working threshold, which Export uses.
        QTRY_VERIFY(!std::isnan(w.document()->workingThreshold()));
        ExportDialog* moved = w.openExportDialog();
        QVERIFY(moved);
        const QString expected = QStringLiteral("case-run-1-theta-%1-kept.txt")
                                     .arg(w.document()->workingThreshold(), 0, 'f', 3);
        QVERIFY2(moved->plannedFiles().value(0).endsWith(expected),
                 qPrintable(moved->plannedFiles().value(0) + QStringLiteral(" for ") + expected));
        moved->close();
    }

    // File > Close Project goes back to the start page with nothing of the project shown;
    // Help > Keyboard Shortcuts lists the review keys.
    void closeProjectAndShortcuts() {
        MainWindow w;
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(w.openProject(caseCopy_, true));
        QTRY_VERIFY_WITH_TIMEOUT(w.clusters()->comparison()->hasComparison(), 20000);
        QVERIFY(settle(w));
        auto* close = w.findChild<QAction*>(QStringLiteral("closeProjectAction"));
        QVERIFY(close && close->isEnabled());
        close->trigger();
        QVERIFY(w.projectPath().isEmpty());
        QTRY_VERIFY(w.startPage()->isVisible());
        QVERIFY(!w.clusters()->comparison()->hasComparison());
        QCOMPARE(w.history()->model()->rowCount(), 0);
        QCOMPARE(w.clusters()->model()->rowCount(), 0);
        QVERIFY(!close->isEnabled());
        QVERIFY(settle(w));
        QVERIFY(w.projectPath().isEmpty());  // nothing pending brought it back

        auto* shortcuts = w.findChild<QAction*>(QStringLiteral("keyboardShortcutsAction"));
        QVERIFY(shortcuts);
        shortcuts->trigger();
        auto* table = w.findChild<QTableWidget*>(QStringLiteral("shortcutsTable"));
        QVERIFY(table);
        QStringList keys;
        for (int r = 0; r < table->rowCount(); ++r)
            keys << table->item(r, 0)->text();
        for (const char* k : {"Y", "N", "K", "Ctrl+Z", "F5 / Shift+F5"})
            QVERIFY2(keys.contains(QString::fromLatin1(k)), k);
    }

    // "Suggest b, r" is whole at 1280x800; its tooltip and auto's describe one choice, in the
    // workbench's words (they named command-line flags and weighed the choice differently).
    void suggestIsWholeAndTooltipsAgree() {
        QSettings().clear();
        MainWindow w;
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        w.findChild<QDockWidget*>(QStringLiteral("parametersDock"))->raise();
        QPushButton* suggest = w.parameters()->suggestButton();
        QTRY_VERIFY(suggest->isVisible());
        QVERIFY2(clipped(suggest).isEmpty(), qPrintable(clipped(suggest)));
        QVERIFY2(suggest->width() >= suggest->sizeHint().width(),
                 qPrintable(QStringLiteral("%1 px of %2")
                                .arg(suggest->width())
                                .arg(suggest->sizeHint().width())));
        const QString autoTip = w.parameters()->autoBandsRowsBox()->toolTip();
        const QString choice = QStringLiteral("a missed duplicate weighing 99 times a false");
        for (const QString& tip : {autoTip, suggest->toolTip()}) {
            QVERIFY2(tip.contains(choice), qPrintable(tip));
            QVERIFY2(!tip.contains(QStringLiteral("neardup")) &&
                         !tip.contains(QRegularExpression(QStringLiteral("(^|\\s)--?[a-z]"))),
                     qPrintable(tip));
        }
    }

    // The phase chart's seconds labels never overlap at the history dock's width.
    void phaseChartLabelsDoNotOverlap() {
        MainWindow w;
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(w.openProject(longIds_, true));
        QVERIFY(settle(w));
        auto* chart = w.findChild<QCustomPlot*>(QStringLiteral("phaseChart"));
        QVERIFY(chart && chart->isVisible());
        QTest::qWait(100);  // the queued replot after the layout
        chart->replot();
        QCPAxis* x = chart->xAxis;
        const QVector<double> ticks = x->tickVector();
        const QVector<QString> labels = x->tickVectorLabels();
        QVERIFY(ticks.size() >= 2);
        const QFontMetrics metrics(x->tickLabelFont());
        for (int i = 1; i < ticks.size(); ++i) {
            const double gap = x->coordToPixel(ticks[i]) - x->coordToPixel(ticks[i - 1]);
            const double need =
                (metrics.horizontalAdvance(labels[i]) + metrics.horizontalAdvance(labels[i - 1])) /
                2.0;
            QVERIFY2(gap > need + 2, qPrintable(QStringLiteral("'%1' and '%2': %3 px apart")
                                                    .arg(labels[i - 1], labels[i])
                                                    .arg(gap)));
        }
    }

    void threeHundredCharacterIdsFit() {
        QSettings().clear();
        MainWindow w;
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(w.openProject(longIds_, true));
        checkDesk(w, "300-character ids");
    }
};

// The screen is 1280x800 (ui_window_fixture.h).
int main(int argc, char** argv) {
    return runOnSmallScreen<TestUiDesk>(argc, argv);
}

#else  // built without the GUI

#include <QTest>

class TestUiDesk : public QObject {
    Q_OBJECT
  private slots:
    void skipped() { QSKIP("built without the GUI (NEARDUP_GUI=OFF)"); }
};
QTEST_GUILESS_MAIN(TestUiDesk)

#endif

#include "test_ui_desk.moc"
