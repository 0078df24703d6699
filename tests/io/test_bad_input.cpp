// Every kind of bad input, end to end through `neardup run`: malformed and odd JSON lines,
// invalid UTF-8, control bytes, BOM/CRLF, odd ids, deep nesting, damaged .gz/.zst, empty,
// unreadable and looping files, among valid near-duplicates. Checks the reported rejections,
// the accounting, the duplicates found, the rejected lines exported, and that an export checks
// its outputs first; a project given as an input, keys given twice, ids with Unicode line
// breaks, and the reason a file cannot be read. (--on-error fail, output errors, determinism:
// test_bad_input_outputs.cpp.)
#include <grp.h>
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

class TestBadInput : public BadInputFixture {
    Q_OBJECT

  private slots:
    void initTestCase() { makeCorpus(); }
    void cleanupTestCase() { restorePermissions(); }

    void skipReportsEveryBadLineAndKeepsAccounts() {
        const std::string project = path("skip.ndw");
        // Without -q: the summary (on stderr) is checked too.
        const Result r = neardup({QStringLiteral("run"), q(corpus_), QStringLiteral("-p"),
                                  q(project), QStringLiteral("--summary-json"), q(path("s.json")),
                                  QStringLiteral("--out-removed"), q(path("removed.txt")),
                                  QStringLiteral("--out-jsonl"), q(path("dedup.jsonl"))});
        QVERIFY2(r.code == 0, qPrintable(r.err));

        // Accounting, as summarized, against the corpus as built.
        const QJsonObject s =
            QJsonDocument::fromJson(QByteArray::fromStdString(readFile(path("s.json")))).object();
        const auto n = [&](const char* key) {
            return static_cast<uint64_t>(s.value(QLatin1String(key)).toDouble());
        };
        const uint64_t corruptFiles = 5;
        QCOMPARE(n("lines_read"), linesRead_);
        QCOMPARE(n("blank_lines"), blank_);
        QCOMPARE(n("documents"), documents_);
        QCOMPARE(n("rejected"), uint64_t{expected_.size()} + corruptFiles);
        QCOMPARE(n("documents") + n("rejected") + n("blank_lines"), n("lines_read"));
        QCOMPARE(n("kept") + n("removed"), n("documents"));
        QVERIFY2(r.err.contains(QStringLiteral("accounting: %1 lines read").arg(linesRead_)),
                 qPrintable(r.err));
        QVERIFY2(r.out.isEmpty(), qPrintable(r.out));  // stdout is for outputs named "-" only

        // Every bad line is in the project with its reason and file:line, and nothing else is.
        const QStringList samples = sqlRows(
            project,
            "SELECT f.path, s.line, s.reason, s.detail FROM rejection_samples s JOIN "
            "dataset_files f ON f.dataset_id = s.dataset_id AND f.file_index = s.file_index "
            "ORDER BY s.ordinal");
        QStringList plainSamples;
        for (const QString& row : samples)
            if (!row.section(QLatin1Char('|'), 2, 2).startsWith(QStringLiteral("corrupt")))
                plainSamples << row.section(QLatin1Char('|'), 0, 2);
        QStringList wanted;
        for (const Expected& e : expected_)
            wanted << q(in(e.file)) + QLatin1Char('|') + QString::number(e.line) +
                          QLatin1Char('|') + q(e.reason);
        QCOMPARE(plainSamples, wanted);
        // The first of each reason is printed with file:line.
        for (const char* reason :
             {"malformed_json", "not_an_object", "missing_text", "text_not_string", "invalid_utf8",
              "control_character", "invalid_id", "unreadable_file", "corrupt_input"})
            QVERIFY2(r.err.contains(QLatin1String(reason)), reason);
        QVERIFY(r.err.contains(q(in("b_bad.jsonl")) + QStringLiteral(":2")));

        // Damaged streams: one corrupt_input each, at the line after the last complete one,
        // naming the file and the decompressed byte offset.
        const QStringList corrupt = sqlRows(
            project,
            "SELECT f.path, s.line, s.detail FROM rejection_samples s JOIN dataset_files f ON "
            "f.dataset_id = s.dataset_id AND f.file_index = s.file_index WHERE s.reason = "
            "'corrupt_input' ORDER BY s.ordinal");
        QCOMPARE(corrupt.size(), 5);
        QVERIFY2(corrupt[0].startsWith(q(in("f_cut.jsonl.gz")) + QLatin1Char('|')),
                 qPrintable(corrupt[0]));
        QVERIFY2(corrupt[0].contains(QStringLiteral("after %1 bytes").arg(gzCutDecoded_)),
                 qPrintable(corrupt[0]));
        QVERIFY(corrupt[1].startsWith(q(in("g_tail.jsonl.gz")) + QStringLiteral("|51|")));
        QVERIFY(corrupt[2].startsWith(q(in("g_zblock.jsonl.gz")) + QStringLiteral("|1|")));
        QVERIFY(corrupt[4].startsWith(q(in("i_tail.jsonl.zst")) + QStringLiteral("|31|")));
        for (const QString& c : corrupt)
            QVERIFY2(c.contains(QStringLiteral("corrupt or truncated")), qPrintable(c));

        // The near-duplicates among the valid lines are found, wherever they are.
        std::set<std::string> removed;
        std::istringstream ids(readFile(path("removed.txt")));
        for (std::string id; std::getline(ids, id);)
            removed.insert(id);
        std::string removedList;
        for (const std::string& id : removed)
            removedList += id + " ";
        QVERIFY2(removed == removedIds_, removedList.c_str());
        QCOMPARE(countLines(readFile(path("dedup.jsonl"))), n("kept"));
        QCOMPARE(sqlRows(project, "PRAGMA integrity_check"), QStringList{QStringLiteral("ok")});
    }

    void everyRejectedLineIsKept() {
        // The project of skipReportsEveryBadLineAndKeepsAccounts: every rejected line is
        // exported, in input order, with its file, line and reason, and the raw line where it
        // is valid UTF-8.
        const std::string project = path("skip.ndw");
        QVERIFY(fs::exists(project));
        Result r = neardup({QStringLiteral("export"), QStringLiteral("-p"), q(project),
                            QStringLiteral("--rejected"), q(path("rejected.jsonl"))});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        std::vector<QJsonObject> rows;
        {
            std::istringstream lines(readFile(path("rejected.jsonl")));
            for (std::string line; std::getline(lines, line);) {
                QJsonParseError error;
                const QJsonDocument d =
                    QJsonDocument::fromJson(QByteArray::fromStdString(line), &error);
                QVERIFY2(error.error == QJsonParseError::NoError, line.c_str());
                rows.push_back(d.object());
            }
        }
        const QStringList total = sqlRows(project, "SELECT sum(count) FROM dataset_rejections");
        QCOMPARE(QString::number(rows.size()), total.value(0));
        QStringList plainRows;
        for (const QJsonObject& o : rows) {
            const QString reason = o.value(QStringLiteral("reason")).toString();
            if (reason != QStringLiteral("corrupt_input"))
                plainRows << o.value(QStringLiteral("file")).toString() + QLatin1Char('|') +
                                 QString::number(o.value(QStringLiteral("line")).toInteger()) +
                                 QLatin1Char('|') + reason;
        }
        QStringList wanted;
        for (const Expected& e : expected_)
            wanted << q(in(e.file)) + QLatin1Char('|') + QString::number(e.line) +
                          QLatin1Char('|') + q(e.reason);
        QCOMPARE(plainRows, wanted);
        // b_bad.jsonl line 2 is `{"id":"mj1","text":"unterminated"`, line 14 has a 0xff byte.
        const auto at = [&](uint64_t line) {
            for (const QJsonObject& o : rows)
                if (o.value(QStringLiteral("file")).toString() == q(in("b_bad.jsonl")) &&
                    o.value(QStringLiteral("line")).toInteger() == static_cast<qint64>(line))
                    return o;
            return QJsonObject();
        };
        QCOMPARE(at(2).value(QStringLiteral("raw")).toString(),
                 QStringLiteral("{\"id\":\"mj1\",\"text\":\"unterminated\""));
        QVERIFY(!at(2).value(QStringLiteral("detail")).toString().isEmpty());
        QVERIFY(!at(14).contains(QStringLiteral("raw")));  // invalid UTF-8: not copied
        QCOMPARE(at(17).value(QStringLiteral("raw")).toString(),
                 QStringLiteral("{\"id\":\"c1\",\"text\":\"bell \x01 here\"}"));

        // Beyond the 1000 samples: 2,400 rejected lines of three reasons among documents and
        // blank lines, every one listed, the counts adding up per reason and in all.
        const std::string many = path("many");
        fs::create_directories(many);
        std::string bytes;
        uint64_t docs = 0, blank = 0;
        std::vector<std::pair<uint64_t, std::string>> bad;
        for (uint64_t line = 1; line <= 3000; ++line) {
            if (line % 5 == 0) {
                bytes += doc("ok-" + std::to_string(line), words(9000 + line, 30)) + "\n";
                ++docs;
            } else if (line % 50 == 1) {
                bytes += "\n";
                ++blank;
            } else {
                static const char* const kinds[] = {"{broken", "[1,2]", "{\"id\":\"no text\"}"};
                static const char* const reasons[] = {"malformed_json", "not_an_object",
                                                      "missing_text"};
                bytes += std::string(kinds[line % 3]) + "\n";
                bad.emplace_back(line, reasons[line % 3]);
            }
        }
        writeFile(many + "/many.jsonl", bytes);
        r = neardup({QStringLiteral("run"), q(many + "/many.jsonl"), QStringLiteral("-p"),
                     q(path("many.ndw")), QStringLiteral("-q")});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        r = neardup({QStringLiteral("export"), QStringLiteral("-p"), q(path("many.ndw")),
                     QStringLiteral("--rejected"), q(path("many-rejected.jsonl"))});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QVERIFY(bad.size() > 2000);
        std::istringstream lines(readFile(path("many-rejected.jsonl")));
        std::size_t k = 0;
        std::map<std::string, uint64_t> byReason;
        for (std::string line; std::getline(lines, line); ++k) {
            const QJsonObject o = QJsonDocument::fromJson(QByteArray::fromStdString(line)).object();
            QVERIFY(k < bad.size());
            QCOMPARE(o.value(QStringLiteral("line")).toInteger(),
                     static_cast<qint64>(bad[k].first));
            QCOMPARE(o.value(QStringLiteral("reason")).toString(), q(bad[k].second));
            QVERIFY(o.contains(QStringLiteral("raw")));
            ++byReason[bad[k].second];
        }
        QCOMPARE(k, bad.size());
        const QStringList counts = sqlRows(
            path("many.ndw"), "SELECT reason, count FROM dataset_rejections ORDER BY reason");
        QStringList fromExport;
        for (const auto& [reason, count] : byReason)
            fromExport << q(reason) + QLatin1Char('|') + QString::number(count);
        QCOMPARE(counts, fromExport);
        QCOMPARE(sqlRows(path("many.ndw"),
                         "SELECT lines_read, documents, rejected, blank_lines "
                         "FROM runs"),
                 QStringList{QStringLiteral("3000|%1|%2|%3").arg(docs).arg(bad.size()).arg(blank)});
    }

    // A project, or any SQLite file, given as an input is refused by name before anything is
    // read, not read as hundreds of lines of bad JSON.
    void projectGivenAsInputIsRefused() {
        const std::string project = path("input-project.ndw");
        Result r = neardup({QStringLiteral("run"), q(in("a_good.jsonl")), QStringLiteral("-p"),
                            q(project), QStringLiteral("-q")});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        for (const std::string& p :
             {std::string("plain"), std::string("skip"), std::string("fail")}) {
            const std::string other = path("other-" + p + ".ndw");
            QStringList args{QStringLiteral("run"), q(project), QStringLiteral("-p"), q(other),
                             QStringLiteral("-q")};
            if (p != "plain") args << QStringLiteral("--on-error") << q(p);
            r = neardup(args);
            QCOMPARE(r.code, 1);
            QVERIFY2(r.err.contains(q("'" + fs::canonical(project).string() +
                                      "' is a NearDup project, not a dataset")),
                     qPrintable(r.err));
            QVERIFY2(!r.err.contains(QStringLiteral("malformed_json")), qPrintable(r.err));
            // The run is recorded as failed, and nothing was read.
            QCOMPARE(sqlRows(other, "SELECT status FROM runs"),
                     QStringList{QStringLiteral("failed")});
            QCOMPARE(sqlRows(other,
                             "SELECT (SELECT count(*) FROM dataset_files), "
                             "(SELECT coalesce(sum(lines_read), 0) FROM datasets)"),
                     QStringList{QStringLiteral("0|0")});
        }
    }

    // Lines that other readers would take differently end to end: an object with a key twice is
    // duplicate_key (the case: B kept here while Python's json sees it as a copy), an id
    // with a Unicode line break invalid_id; both counted, stored and listed like every rejection.
    void duplicateKeysAndLineBreakIds() {
        const std::string dir = path("ambiguous");
        fs::create_directories(dir);
        const std::string t1 = words(8001, 60), t2 = words(8002, 60);
        writeFile(dir + "/in.jsonl",
                  doc("A", t1) + "\n" + "{\"id\":\"B\",\"text\":\"" + t2 + "\",\"text\":\"" + t1 +
                      "\"}\n" + "{\"id\":\"C\\u2028D\",\"text\":\"" + words(8003, 60) + "\"}\n" +
                      "{\"id\":\"E\xc2\x85" + "F\",\"text\":\"" + words(8004, 60) + "\"}\n" +
                      doc("G", words(8005, 60)) + "\n");
        const std::string project = path("ambiguous.ndw");
        Result r =
            neardup({QStringLiteral("run"), q(dir + "/in.jsonl"), QStringLiteral("-p"), q(project),
                     QStringLiteral("--summary-json"), q(path("ambiguous.json"))});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QVERIFY2(r.err.contains(QStringLiteral("duplicate_key")), qPrintable(r.err));
        QCOMPARE(
            sqlRows(project,
                    "SELECT reason, count, first_line FROM dataset_rejections "
                    "ORDER BY reason"),
            (QStringList{QStringLiteral("duplicate_key|1|2"), QStringLiteral("invalid_id|2|3")}));
        QCOMPARE(sqlRows(project, "SELECT documents, rejected FROM runs"),
                 QStringList{QStringLiteral("2|3")});
        const QStringList details =
            sqlRows(project, "SELECT line, detail FROM rejection_samples ORDER BY ordinal");
        QCOMPARE(details.size(), 3);
        QVERIFY2(details[0].contains(QStringLiteral("'text' appears twice")),
                 qPrintable(details[0]));
        QVERIFY2(details[1].contains(QStringLiteral("U+2028")), qPrintable(details[1]));
        QVERIFY2(details[2].contains(QStringLiteral("U+0085")), qPrintable(details[2]));
        const QJsonObject s =
            QJsonDocument::fromJson(QByteArray::fromStdString(readFile(path("ambiguous.json"))))
                .object();
        QCOMPARE(s.value(QStringLiteral("rejected")).toInteger(), qint64{3});
        r = neardup({QStringLiteral("export"), QStringLiteral("-p"), q(project),
                     QStringLiteral("--rejected"), q(path("ambiguous-rejected.jsonl"))});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        const std::string listed = readFile(path("ambiguous-rejected.jsonl"));
        QCOMPARE(countLines(listed), uint64_t{3});
        QVERIFY(listed.find("\"reason\":\"duplicate_key\"") != std::string::npos);
    }

    // A file the user may not read: its unreadable_file rejection carries the operating
    // system's reason wherever it is reported (the run's summary, and the error when nothing
    // else is left), not only file:0. As root the run is made by an unprivileged user (root
    // reads any file).
    void unreadableFileSaysWhy() {
        char tmpl[] = "/tmp/neardup-unreadable-XXXXXX";
        QVERIFY(::mkdtemp(tmpl) != nullptr);
        const std::string dir = tmpl;
        ::chmod(dir.c_str(), 0777);  // the unprivileged run writes its project here
        writeFile(dir + "/good.jsonl", doc("g1", words(8101, 50)) + "\n");
        writeFile(dir + "/secret.jsonl", doc("s1", words(8102, 50)) + "\n");
        ::chmod((dir + "/good.jsonl").c_str(), 0644);
        ::chmod((dir + "/secret.jsonl").c_str(), root_ ? 0600 : 0);
        testsupport::CliOptions asUser;
        if (root_)
            asUser.withChildSetup([] {
                const gid_t nogroup = 65534;
                const uid_t nobody = 65534;
                if (::setgroups(0, nullptr) != 0 || ::setresgid(nogroup, nogroup, nogroup) != 0 ||
                    ::setresuid(nobody, nobody, nobody) != 0)
                    ::_exit(99);
            });
        const Result mixed =
            neardup({QStringLiteral("run"), q(dir + "/good.jsonl"), q(dir + "/secret.jsonl"),
                     QStringLiteral("-p"), q(dir + "/mixed.ndw")},
                    asUser);
        const Result alone = neardup({QStringLiteral("run"), q(dir + "/secret.jsonl"),
                                      QStringLiteral("-p"), q(dir + "/alone.ndw")},
                                     asUser);
        ::chmod((dir + "/secret.jsonl").c_str(), 0644);
        fs::remove_all(dir);
        QVERIFY2(mixed.code == 0, qPrintable(mixed.err));
        const QString why =
            QStringLiteral("cannot read '%1': Permission denied").arg(q(dir + "/secret.jsonl"));
        QVERIFY2(mixed.err.contains(QStringLiteral("unreadable_file (first at %1:0: %2)")
                                        .arg(q(dir + "/secret.jsonl"), why)),
                 qPrintable(mixed.err));
        QCOMPARE(alone.code, 1);
        QVERIFY2(alone.err.contains(QStringLiteral("unreadable_file 1, first at %1:0 (%2)")
                                        .arg(q(dir + "/secret.jsonl"), why)),
                 qPrintable(alone.err));
    }

    void exportChecksOutputsFirst() {
        const std::string project = path("skip.ndw");
        const std::string input = in("a_good.jsonl");
        const std::string before = readFile(input);
        // A missing directory, a directory as output, an input file as output: exit 1 and
        // nothing written.
        Result r = neardup({QStringLiteral("export"), QStringLiteral("-p"), q(project),
                            QStringLiteral("--out-jsonl"), q(path("nowhere/x.jsonl"))});
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains(QStringLiteral("nowhere")), qPrintable(r.err));
        QVERIFY(!fs::exists(path("nowhere")));
        r = neardup({QStringLiteral("export"), QStringLiteral("-p"), q(project),
                     QStringLiteral("--rejected"), q(corpus_)});
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains(QStringLiteral("is a directory")), qPrintable(r.err));
        r = neardup({QStringLiteral("export"), QStringLiteral("-p"), q(project),
                     QStringLiteral("--out-kept"), q(path("k.txt")), QStringLiteral("--out-jsonl"),
                     q(input)});
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains(QStringLiteral("refusing to overwrite input file")),
                 qPrintable(r.err));
        QVERIFY(readFile(input) == before);
        QVERIFY(!fs::exists(path("k.txt")));  // nothing written when one output is refused
        r = neardup({QStringLiteral("export"), QStringLiteral("-p"), q(project),
                     QStringLiteral("--rejected"), q(in("b_bad.jsonl"))});
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains(QStringLiteral("refusing to overwrite input file")),
                 qPrintable(r.err));
        if (!root_) {
            fs::create_directories(path("ro"));
            ::chmod(path("ro").c_str(), 0555);
            r = neardup({QStringLiteral("export"), QStringLiteral("-p"), q(project),
                         QStringLiteral("--rejected"), q(path("ro/r.jsonl"))});
            ::chmod(path("ro").c_str(), 0755);
            QCOMPARE(r.code, 1);
            QVERIFY2(r.err.contains(QStringLiteral("Permission denied")), qPrintable(r.err));
            QVERIFY(fs::is_empty(path("ro")));
        }
        // `run` refuses an input as output before it starts: no run is recorded.
        r = neardup({QStringLiteral("run"), q(corpus_), QStringLiteral("-p"),
                     q(path("overwrite.ndw")), QStringLiteral("-q"), QStringLiteral("--out-jsonl"),
                     q(input)});
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains(QStringLiteral("refusing to overwrite input file")),
                 qPrintable(r.err));
        QVERIFY(readFile(input) == before);
        QVERIFY(testsupport::noRunRecorded(path("overwrite.ndw")));
    }
};

QTEST_GUILESS_MAIN(TestBadInput)
#include "test_bad_input.moc"
