// The run service every front end starts runs through: what it checks before anything starts,
// the order of its hooks, the execution options it honours, and the record of a resumed run.
#include <QFileInfo>
#include <QTemporaryDir>
#include <QtTest>

#include <fstream>
#include <string>
#include <vector>

#include "project_store.h"
#include "run_lock.h"
#include "run_service.h"

using namespace neardup;

class TestRunService : public QObject {
    Q_OBJECT

    QTemporaryDir dir_;
    std::string corpus_;

    std::string path(const char* name) const {
        return dir_.filePath(QLatin1String(name)).toStdString();
    }

  private slots:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        corpus_ = path("corpus.jsonl");
        std::ofstream out(corpus_);
        const std::string base = "the quick brown fox jumps over the lazy dog near the river bank";
        for (int i = 0; i < 40; ++i)
            out << "{\"id\":\"d" << i << "\",\"text\":\"" << base << (i % 2 ? " again" : "") << " "
                << (i / 2) << "\"}\n";
    }

    void parametersAreCheckedFirst() {
        RunRequest r;
        r.project = path("p1.ndw");
        r.inputs = {corpus_};
        r.params.lsh.bands = 0;
        r.outputs.removed = corpus_;  // would overwrite the input too
        const RunProblem problem = checkRun(r);
        QVERIFY(problem.kind == RunProblem::Kind::Parameters);
        QVERIFY(!problem.message.empty());
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, executeRun(r));
        QVERIFY(!QFileInfo::exists(QString::fromStdString(r.project)));  // nothing started
    }

    void outputsThatOverwriteAnInputAreRefused() {
        RunRequest r;
        r.project = path("p2.ndw");
        r.inputs = {corpus_};
        r.outputs.removed = corpus_;
        const RunProblem problem = checkRun(r);
        QVERIFY(problem.kind == RunProblem::Kind::Outputs);
        QVERIFY2(problem.message.find("corpus.jsonl") != std::string::npos,
                 problem.message.c_str());
        try {
            executeRun(r);
            QFAIL("an output onto the input was accepted");
        } catch (const RunRefused& e) {
            QVERIFY(e.problem().kind == RunProblem::Kind::Outputs);
            QCOMPARE(std::string(e.what()), problem.message);
        }
        QVERIFY(!QFileInfo::exists(QString::fromStdString(r.project)));
    }

    // Execution options reach the backend: workers are honoured (and refused out of range),
    // and the hooks run in order: adjust, wrap, chosen.
    void executionOptionsAndHooks() {
        RunRequest r;
        r.project = path("p3.ndw");
        r.inputs = {corpus_};
        r.params.backend = "cpu";
        r.params.threads = 2;
        r.params.workers = 2;
        std::vector<std::string> calls;
        std::string chosen;
        RunHooks hooks;
        hooks.adjustBackend = [&](BackendOptions& o) {
            calls.push_back("adjust");
            QCOMPARE(o.workers, 2);
            QCOMPARE(o.name, std::string("cpu"));
        };
        hooks.wrapBackend = [&](std::unique_ptr<Backend> b, std::string& reason) {
            calls.push_back("wrap");
            reason += " (wrapped)";
            return b;
        };
        hooks.backendChosen = [&](const std::string& reason) {
            calls.push_back("chosen");
            chosen = reason;
        };
        const RunResult result = executeRun(r, hooks);
        QCOMPARE(calls, (std::vector<std::string>{"adjust", "wrap", "chosen"}));
        QVERIFY2(chosen.find("2 workers") != std::string::npos, chosen.c_str());
        QVERIFY2(chosen.find("(wrapped)") != std::string::npos, chosen.c_str());
        QCOMPARE(result.status, std::string("ok"));
        QCOMPARE(result.counts.documents, uint64_t(40));
        QVERIFY(result.counts.removed > 0);

        r.params.workers = 65;
        try {
            executeRun(r);
            QFAIL("65 workers accepted");
        } catch (const std::invalid_argument& e) {
            QVERIFY2(std::string(e.what()).find("--workers") != std::string::npos, e.what());
        }
    }

    // A run that resumes an unfinished one drops that run's resume record when it finishes.
    void resumedRunDropsItsRecord() {
        const std::string project = path("p4.ndw");
        RunRequest first;
        first.project = project;
        first.inputs = {corpus_};
        first.params.backend = "cpu";
        std::atomic<bool> cancel{true};  // interrupted at once: a resumable run
        RunHooks hooks;
        hooks.cancel = &cancel;
        QVERIFY_THROWS_EXCEPTION(Cancelled, executeRun(first, hooks));
        std::optional<ResumeRecord> record;
        {
            ProjectStore store(project);
            record = findResumable(store);
        }
        QVERIFY(record.has_value());
        RunRequest again = first;
        again.resumes = record->runId;
        QCOMPARE(executeRun(again).status, std::string("ok"));
        ProjectStore store(project);
        QVERIFY(!findResumable(store).has_value());
    }
};

QTEST_GUILESS_MAIN(TestRunService)
#include "test_run_service.moc"
