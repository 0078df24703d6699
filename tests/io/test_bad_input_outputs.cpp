// Bad input and what a run writes: --on-error fail stops at the first bad line, outputs are
// complete or absent when writing fails, and outputs are identical across runs and thread
// counts. (Rejections and their accounts: test_bad_input.cpp; the corpus: bad_input_fixture.h.)
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>
#include <csignal>
#include <filesystem>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "bad_input_fixture.h"

class TestBadInputOutputs : public BadInputFixture {
    Q_OBJECT

  private slots:
    void initTestCase() { makeCorpus(); }
    void cleanupTestCase() { restorePermissions(); }

    void failStopsAtTheFirstBadLine() {
        const std::string project = path("fail.ndw");
        Result r = run({QStringLiteral("--on-error"), QStringLiteral("fail"),
                        QStringLiteral("--out-jsonl"), q(path("fail.jsonl"))},
                       project);
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains(q(in("b_bad.jsonl")) + QStringLiteral(":2: malformed_json")),
                 qPrintable(r.err));
        QVERIFY(!fs::exists(path("fail.jsonl")));
        const QStringList runs = sqlRows(project, "SELECT status, error FROM runs");
        QCOMPARE(runs.size(), 1);
        QVERIFY2(runs[0].startsWith(QStringLiteral("failed|")) &&
                     runs[0].contains(QStringLiteral("b_bad.jsonl:2")),
                 qPrintable(runs[0]));

        // The same when the dataset is taken from the project instead of being read again.
        QCOMPARE(run({}, path("reuse.ndw")).code, 0);
        r = run({QStringLiteral("--on-error"), QStringLiteral("fail")}, path("reuse.ndw"));
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains(q(in("b_bad.jsonl")) + QStringLiteral(":2: malformed_json")),
                 qPrintable(r.err));
        QCOMPARE(sqlRows(path("reuse.ndw"), "SELECT status FROM runs ORDER BY id"),
                 (QStringList{QStringLiteral("ok"), QStringLiteral("failed")}));

        // Damaged and unreadable inputs fail too, naming the file.
        r = neardup({QStringLiteral("run"), q(in("f_cut.jsonl.gz")), QStringLiteral("-p"),
                     q(path("fail2.ndw")), QStringLiteral("--on-error"), QStringLiteral("fail")});
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains(q(in("f_cut.jsonl.gz"))) &&
                     r.err.contains(QStringLiteral("corrupt or truncated gzip")),
                 qPrintable(r.err));
        r = neardup({QStringLiteral("run"), q(in("a_good.jsonl")), q(in("j_loop.jsonl")),
                     QStringLiteral("-p"), q(path("fail3.ndw")), QStringLiteral("--on-error"),
                     QStringLiteral("fail")});
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains(q(in("j_loop.jsonl")) + QStringLiteral(":0: unreadable_file")),
                 qPrintable(r.err));
    }

    void outputsAreCompleteOrAbsent() {
        const QString good = q(in("a_good.jsonl"));
        auto runTo = [&](const char* option, const std::string& target) {
            return neardup({QStringLiteral("run"), good, QStringLiteral("-p"), q(path("out.ndw")),
                            QStringLiteral("-q"), QLatin1String(option), q(target)});
        };
        // Checked before the run starts: a missing directory, a file as directory, a directory
        // as file, two outputs on one path.
        Result r = runTo("--out-jsonl", path("missing/dir/out.jsonl"));
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains(QStringLiteral("missing/dir")), qPrintable(r.err));
        r = runTo("--out-kept", in("a_good.jsonl") + "/kept.txt");
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains(QStringLiteral("not a directory")), qPrintable(r.err));
        r = runTo("--out-kept", corpus_);
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains(QStringLiteral("is a directory")), qPrintable(r.err));
        r = neardup({QStringLiteral("run"), good, QStringLiteral("-p"), q(path("out.ndw")),
                     QStringLiteral("--out-kept"), q(path("same.txt")),
                     QStringLiteral("--out-removed"), q(path("same.txt"))});
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains(QStringLiteral("same file")), qPrintable(r.err));
        QVERIFY(testsupport::noRunRecorded(path("out.ndw")));
        if (!root_) {
            fs::create_directories(path("readonly"));
            ::chmod(path("readonly").c_str(), 0555);
            r = runTo("--out-kept", path("readonly/kept.txt"));
            ::chmod(path("readonly").c_str(), 0755);
            QCOMPARE(r.code, 1);
            QVERIFY2(r.err.contains(QStringLiteral("Permission denied")), qPrintable(r.err));
        }

        // A full disk at the last moment: /dev/full fails every write with ENOSPC. The run is
        // recorded as failed, and the device is still a device afterwards.
        if (fs::exists("/dev/full")) {
            r = runTo("--out-kept", "/dev/full");
            QCOMPARE(r.code, 1);
            QVERIFY2(r.err.contains(QStringLiteral("No space left on device")), qPrintable(r.err));
            QVERIFY(fs::is_character_file("/dev/full"));
            QCOMPARE(sqlRows(path("out.ndw"), "SELECT status FROM runs"),
                     QStringList{QStringLiteral("failed")});
            // With two threads the run's pairs and clusters are written into the project while
            // the outputs are: a failed export takes them back, and the run is still recorded
            // as failed.
            r = neardup({QStringLiteral("run"), good, QStringLiteral("-p"), q(path("two.ndw")),
                         QStringLiteral("-q"), QStringLiteral("-j"), QStringLiteral("2"),
                         QStringLiteral("--out-jsonl"), QStringLiteral("/dev/full")});
            QCOMPARE(r.code, 1);
            QVERIFY2(r.err.contains(QStringLiteral("No space left on device")), qPrintable(r.err));
            QCOMPARE(sqlRows(path("two.ndw"), "SELECT status FROM runs"),
                     QStringList{QStringLiteral("failed")});
            QCOMPARE(sqlRows(path("two.ndw"),
                             "SELECT (SELECT count(*) FROM pairs) + (SELECT count(*) FROM clusters)"
                             " + (SELECT count(*) FROM cluster_members)"),
                     QStringList{QStringLiteral("0")});
            QCOMPARE(sqlRows(path("two.ndw"), "PRAGMA integrity_check"),
                     QStringList{QStringLiteral("ok")});
            r = neardup({QStringLiteral("run"), good, QStringLiteral("-p"), q(path("two.ndw")),
                         QStringLiteral("-q"), QStringLiteral("-j"), QStringLiteral("2"),
                         QStringLiteral("--out-jsonl"), q(path("two.jsonl"))});
            QCOMPARE(r.code, 0);
            QCOMPARE(sqlRows(path("two.ndw"), "SELECT status FROM runs ORDER BY id"),
                     (QStringList{QStringLiteral("failed"), QStringLiteral("ok")}));
            QVERIFY(sqlRows(path("two.ndw"), "SELECT count(*) FROM pairs WHERE run_id = 2") !=
                    QStringList{QStringLiteral("0")});
        }

        // A write that fails half-way through a regular file (the file size limit stands in for
        // a full disk): an error, and neither the output nor its temporary file is left.
        r = runTo("--out-kept", path("kept-ok.txt"));
        QCOMPARE(r.code, 0);
        const std::string target = path("limited/dedup.jsonl");
        fs::create_directories(path("limited"));
        r = neardup({QStringLiteral("export"), QStringLiteral("-p"), q(path("out.ndw")),
                     QStringLiteral("--out-jsonl"), q(target)},
                    testsupport::CliOptions().withChildSetup([] {
                        ::signal(SIGXFSZ, SIG_IGN);
                        const rlimit limit{4096, 4096};
                        ::setrlimit(RLIMIT_FSIZE, &limit);
                    }));
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains(QStringLiteral("File too large")), qPrintable(r.err));
        QVERIFY(fs::is_empty(path("limited")));
        QCOMPARE(sqlRows(path("out.ndw"), "PRAGMA integrity_check"),
                 QStringList{QStringLiteral("ok")});
    }

    void outputsAreIdenticalAcrossRunsAndThreads() {
        std::string first;
        for (const char* threads : {"1", "2", "3"}) {
            const std::string tag = std::string("det") + threads;
            const Result r = run({QStringLiteral("-j"), QLatin1String(threads),
                                  QStringLiteral("--out-jsonl"), q(path(tag + ".jsonl")),
                                  QStringLiteral("--out-clusters"), q(path(tag + ".clusters")),
                                  QStringLiteral("--out-removed"), q(path(tag + ".removed"))},
                                 path(tag + ".ndw"));
            QVERIFY2(r.code == 0, qPrintable(r.err));
            // The project's record of the run too: with two threads or more its pairs and
            // clusters are written beside the export (ExportPhase), with one after it.
            const QStringList rows =
                sqlRows(path(tag + ".ndw"),
                        "SELECT a, b, matches, exact FROM pairs ORDER BY a, b") +
                sqlRows(path(tag + ".ndw"),
                        "SELECT cluster, representative, size FROM clusters ORDER BY cluster") +
                sqlRows(path(tag + ".ndw"),
                        "SELECT doc_index, cluster, removed_for, copy_of FROM cluster_members "
                        "ORDER BY doc_index") +
                sqlRows(path(tag + ".ndw"), "SELECT count(*) FROM band_stats");
            QVERIFY(rows.size() > 3);
            const std::string all =
                readFile(path(tag + ".jsonl")) + readFile(path(tag + ".clusters")) +
                readFile(path(tag + ".removed")) + rows.join(QLatin1Char('\n')).toStdString();
            if (first.empty()) {
                first = all;
                QVERIFY(!first.empty());
            } else {
                QVERIFY2(all == first, threads);
            }
        }
    }
};

QTEST_GUILESS_MAIN(TestBadInputOutputs)
#include "test_bad_input_outputs.moc"
