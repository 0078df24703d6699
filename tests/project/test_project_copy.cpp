// Save As (core/project_copy): the copy is a valid project with every run, its signature cache
// comes along, a write in progress elsewhere is not half-copied, and failures leave nothing.
#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>
#include <filesystem>
#include <fstream>

#include "engine_fixture.h"
#include "pipeline.h"
#include "project_copy.h"
#include "project_store.h"
#include "sqlite_handle.h"
#include "test_support.h"

using namespace neardup;
namespace fs = std::filesystem;

namespace {

// One value of a query on a read-only connection of the project's own wrapper; -1 or "" when
// the file cannot be read as a database.
int64_t queryInt(const std::string& path, const char* sql) {
    try {
        sql::Database db(path, sql::OpenMode::ReadOnly);
        auto st = db.prepare(sql);
        return st.step() ? st.int64(0) : -1;
    } catch (const StoreError&) {
        return -1;
    }
}

std::string queryText(const std::string& path, const char* sql) {
    try {
        sql::Database db(path, sql::OpenMode::ReadOnly);
        auto st = db.prepare(sql);
        return st.step() ? st.string(0) : std::string();
    } catch (const StoreError&) {
        return {};
    }
}

QStringList entries(const QString& dir, const QString& filter = QStringLiteral("*")) {
    return QDir(dir).entryList({filter}, QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot,
                               QDir::Name);
}

}  // namespace

class TestProjectCopy : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    std::string project_, corpus_;

    std::string path(const char* name) const {
        return dir_.filePath(QLatin1String(name)).toStdString();
    }

  private slots:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        project_ = path("source.ndw");
        corpus_ = path("corpus.jsonl");
        testsupport::writeGeneratedCorpus(corpus_,
                                          {.documents = 600, .seed = 11, .meanChars = 500});
        RunParams params;
        params.compare.threshold = 0.7;
        QVERIFY(testsupport::runEngine(project_, {corpus_}, params).counts.clusters > 0);
        params.compare.threshold = 0.9;
        testsupport::runEngine(project_, {corpus_}, params);
    }

    void copyIsACompleteProject() {
        const std::string target = path("copy.ndw");
        std::vector<std::pair<uint64_t, uint64_t>> ticks;
        const ProjectCopyResult r =
            copyProject(project_, target,
                        [&](uint64_t done, uint64_t total) { ticks.emplace_back(done, total); });
        QVERIFY(fs::is_regular_file(target));
        QCOMPARE(r.databaseBytes, uint64_t(fs::file_size(target)));
        QCOMPARE(r.sidecarFiles, uint64_t{1});
        // Progress goes up to its total, never down.
        QVERIFY(!ticks.empty());
        for (std::size_t i = 1; i < ticks.size(); ++i)
            QVERIFY(ticks[i].first >= ticks[i - 1].first);
        QCOMPARE(ticks.back().first, ticks.back().second);
        QCOMPARE(ticks.back().second, uint64_t(fs::file_size(project_)) + r.sidecarBytes);

        QCOMPARE(queryText(target, "PRAGMA integrity_check"), std::string("ok"));
        QCOMPARE(queryInt(target, "PRAGMA application_id"),
                 queryInt(project_, "PRAGMA application_id"));
        QCOMPARE(queryInt(target, "PRAGMA user_version"),
                 queryInt(project_, "PRAGMA user_version"));
        ProjectStore original(project_), copy(target);
        QCOMPARE(copy.listRuns().size(), original.listRuns().size());
        const RunResult a = original.loadRun(1), b = copy.loadRun(1);
        QCOMPARE(b.pairs.size(), a.pairs.size());
        QCOMPARE(b.clusterOf, a.clusterOf);
        QCOMPARE(b.representative, a.representative);
        // The signature cache came along, byte for byte.
        QVERIFY(fs::is_directory(target + ".d"));
        for (const auto& e : fs::directory_iterator(project_ + ".d")) {
            if (e.path().filename().string().rfind("signatures-", 0) != 0) continue;
            const fs::path twin = fs::path(target + ".d") / e.path().filename();
            QVERIFY2(fs::exists(twin), twin.c_str());
            QCOMPARE(fs::file_size(twin), fs::file_size(e.path()));
        }
        RunParams params;
        const std::string key = signatureCacheKey(params.signature, params.reader);
        SignatureMatrix sa, sb;
        QVERIFY(original.loadSignatures(a.datasetId, key, sa));
        QVERIFY(copy.loadSignatures(b.datasetId, key, sb));
        QCOMPARE(sb.values, sa.values);
        // A later run on the copy reuses them.
        auto backend = makeCpuBackend(2);
        Pipeline pipeline(copy, *backend);
        params.lsh.bands = 8;
        params.lsh.rows = 8;
        QVERIFY(pipeline.run({corpus_}, params).signaturesReused);
        // Nothing temporary is left next to the target.
        for (const QString& name : entries(dir_.path()))
            QVERIFY2(!name.contains(QStringLiteral(".tmp-")), qPrintable(name));
    }

    void replacesATargetAndItsStaleCache() {
        const std::string target = path("old.ndw");
        { std::ofstream(target) << "an old file"; }
        fs::create_directories(target + ".d");
        { std::ofstream(target + ".d/stale.bin") << "stale"; }
        copyProject(project_, target);
        QCOMPARE(queryText(target, "PRAGMA integrity_check"), std::string("ok"));
        QVERIFY(!fs::exists(target + ".d/stale.bin"));
        // The signature files (the sidecar may also hold run locks, which are not copied).
        const QString sigs = QStringLiteral("signatures-*");
        QVERIFY(!entries(QString::fromStdString(project_ + ".d"), sigs).isEmpty());
        QCOMPARE(entries(QString::fromStdString(target + ".d")),
                 entries(QString::fromStdString(project_ + ".d"), sigs));
    }

    void copiesResumeRecordsNotLocks() {
        const std::string side = project_ + ".d/";
        { std::ofstream(side + "run-7.resume") << "{}"; }
        { std::ofstream(side + "run-8.lock") << "{}"; }
        { std::ofstream(side + "notes.txt") << "stray"; }
        const std::string target = path("resumable.ndw");
        copyProject(project_, target);
        QVERIFY(fs::exists(target + ".d/run-7.resume"));
        QVERIFY(!fs::exists(target + ".d/run-8.lock"));
        QVERIFY(!fs::exists(target + ".d/notes.txt"));
        for (const char* f : {"run-7.resume", "run-8.lock", "notes.txt"})
            fs::remove(side + f);
    }

    void copiesACommittedSnapshot() {
        // Another connection is writing (a transaction is open): the copy holds the last
        // committed state, not half of the write.
        const std::string target = path("snapshot.ndw");
        {
            sql::Database writer(project_, sql::OpenMode::ReadWrite);
            sql::Transaction tx(writer);
            writer.exec("INSERT INTO meta(key, value) VALUES('uncommitted', 'yes')");
            copyProject(project_, target);
            tx.commit();
        }
        QCOMPARE(queryInt(target, "SELECT count(*) FROM meta WHERE key = 'uncommitted'"),
                 int64_t{0});
        QCOMPARE(queryInt(project_, "SELECT count(*) FROM meta WHERE key = 'uncommitted'"),
                 int64_t{1});
        QCOMPARE(queryInt(target, "SELECT count(*) FROM runs"),
                 queryInt(project_, "SELECT count(*) FROM runs"));
    }

    void refusesAndLeavesNothing() {
        QVERIFY_THROWS_EXCEPTION(StoreError, copyProject(project_, project_));
        QVERIFY_THROWS_EXCEPTION(StoreError, copyProject(path("missing.ndw"), path("x.ndw")));
        QVERIFY(!fs::exists(path("x.ndw")));
        // The project's own input: Save As must not replace what its datasets read.
        const std::string corpus = testsupport::readFile(corpus_);
        try {
            copyProject(project_, corpus_);
            QFAIL("copied onto the project's input");
        } catch (const StoreError& e) {
            QVERIFY2(std::string(e.what()).find("an input of dataset 1") != std::string::npos,
                     e.what());
        }
        QVERIFY(testsupport::readFile(corpus_) == corpus);
        // A file that is not a project.
        QVERIFY_THROWS_EXCEPTION(StoreError, copyProject(corpus_, path("y.ndw")));
        QVERIFY(!fs::exists(path("y.ndw")));
        // A folder that does not exist: the message names the target, nothing is created.
        const std::string nowhere = path("no/such/dir/z.ndw");
        try {
            copyProject(project_, nowhere);
            QFAIL("copied into a missing folder");
        } catch (const StoreError& e) {
            QVERIFY2(std::string(e.what()).find("z.ndw") != std::string::npos, e.what());
        }
        QVERIFY(!fs::exists(path("no")));
        for (const QString& name : entries(dir_.path()))
            QVERIFY2(!name.contains(QStringLiteral(".tmp-")), qPrintable(name));
    }
};

QTEST_GUILESS_MAIN(TestProjectCopy)
#include "test_project_copy.moc"
