// Every kind of bad input, end to end through `neardup run`: malformed and odd JSON lines,
// invalid UTF-8, control bytes, BOM/CRLF, odd ids, deep nesting, damaged .gz/.zst, empty,
// unreadable and looping files, among valid near-duplicates. Checks the reported rejections,
// the accounting, the duplicates found, --on-error fail, output errors and determinism.
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>
#include <csignal>
#include <cstdint>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <sqlite3.h>
#include "test_support.h"

namespace fs = std::filesystem;

namespace {

using testsupport::neardup;
using testsupport::q;
using testsupport::readFile;
using testsupport::sqlRows;
using testsupport::writeFile;
using Result = testsupport::CliResult;

std::string gzipBytes(const std::string& data) {
    const std::string tmp = fs::temp_directory_path() / ("nd-gz-" + std::to_string(::getpid()));
    gzFile gz = gzopen(tmp.c_str(), "wb");
    gzwrite(gz, data.data(), static_cast<unsigned>(data.size()));
    gzclose(gz);
    std::string out = readFile(tmp);
    fs::remove(tmp);
    return out;
}

std::string zstdBytes(const std::string& data) {
    std::string out(ZSTD_compressBound(data.size()), '\0');
    out.resize(ZSTD_compress(out.data(), out.size(), data.data(), data.size(), 3));
    return out;
}

// What zlib's own gzread decodes from a damaged file: an independent count of what survives.
std::string gunzipPrefix(const std::string& path) {
    gzFile gz = gzopen(path.c_str(), "rb");
    std::string out;
    char buf[65536];
    for (;;) {
        const int n = gzread(gz, buf, sizeof buf);
        if (n <= 0) break;
        out.append(buf, static_cast<std::size_t>(n));
    }
    gzclose(gz);
    return out;
}

std::string unzstdPrefix(const std::string& compressed) {
    ZSTD_DCtx* dctx = ZSTD_createDCtx();
    std::string out;
    std::string buf(1 << 16, '\0');
    ZSTD_inBuffer in{compressed.data(), compressed.size(), 0};
    while (in.pos < in.size) {
        ZSTD_outBuffer o{buf.data(), buf.size(), 0};
        const std::size_t r = ZSTD_decompressStream(dctx, &o, &in);
        out.append(buf.data(), o.pos);
        if (ZSTD_isError(r) || (o.pos == 0 && r != 0 && in.pos == in.size)) break;
    }
    // Drain what is buffered.
    for (;;) {
        ZSTD_outBuffer o{buf.data(), buf.size(), 0};
        ZSTD_inBuffer none{nullptr, 0, 0};
        const std::size_t r = ZSTD_decompressStream(dctx, &o, &none);
        out.append(buf.data(), o.pos);
        if (ZSTD_isError(r) || o.pos == 0) break;
    }
    ZSTD_freeDCtx(dctx);
    return out;
}

uint64_t countLines(const std::string& s) {
    uint64_t n = 0;
    for (const char c : s)
        n += c == '\n';
    return n;
}

// Deterministic text of random lowercase words: distinct seeds give unrelated documents.
std::string words(uint64_t seed, int count) {
    std::string s;
    uint64_t x = seed * 0x9E3779B97F4A7C15ull + 1;
    for (int w = 0; w < count; ++w) {
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        const uint64_t r = x * 0x2545F4914F6CDD1Dull;
        const int len = 3 + static_cast<int>(r % 7);
        if (w) s += ' ';
        for (int i = 0; i < len; ++i)
            s += static_cast<char>('a' + (r >> (8 + 5 * i)) % 26);
    }
    return s;
}

// A near-duplicate: one word of `text` replaced.
std::string variant(const std::string& text) {
    const std::size_t at = text.find(' ', text.size() / 2);
    const std::size_t end = text.find(' ', at + 1);
    return text.substr(0, at) + " changed" + text.substr(end);
}

std::string doc(const std::string& id, const std::string& text) {
    return "{\"id\":\"" + id + "\",\"text\":\"" + text + "\"}";
}

struct Expected {
    std::string file;  // name inside the corpus directory
    uint64_t line;
    std::string reason;
};

}  // namespace

class TestBadInput : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    std::string corpus_;
    std::vector<Expected> expected_;  // rejections of the plain files, in input order
    uint64_t linesRead_ = 0, blank_ = 0, documents_ = 0;
    std::set<std::string> removedIds_;
    bool root_ = ::geteuid() == 0;

    std::string path(const std::string& name) const {
        return dir_.path().toStdString() + "/" + name;
    }
    std::string in(const std::string& name) const { return corpus_ + "/" + name; }

    // A plain file whose every line is described: documents, blank lines or rejections.
    void plain(const std::string& name,
               const std::vector<std::pair<std::string, const char*>>& lines,
               bool finalNewline = true) {
        std::string bytes;
        for (std::size_t i = 0; i < lines.size(); ++i) {
            bytes += lines[i].first;
            if (i + 1 < lines.size() || finalNewline) bytes += '\n';
            const std::string kind = lines[i].second;
            if (kind == "doc") {
                ++documents_;
            } else if (kind == "blank") {
                ++blank_;
            } else {
                expected_.push_back({name, i + 1, kind});
            }
        }
        linesRead_ += lines.size();
        writeFile(in(name), bytes);
    }

    // A damaged compressed file: `survivors` lines (all documents) come before the damage,
    // which counts as one line rejected as corrupt_input.
    void damaged(const std::string& name, const std::string& bytes, uint64_t survivors) {
        writeFile(in(name), bytes);
        linesRead_ += survivors + 1;
        documents_ += survivors;
    }

    Result run(const QStringList& extra, const std::string& project) {
        return neardup(QStringList{QStringLiteral("run"), q(corpus_), QStringLiteral("-p"),
                                   q(project), QStringLiteral("-q")} +
                       extra);
    }

  private slots:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        corpus_ = path("corpus");
        fs::create_directories(corpus_);

        // Valid documents and the near-duplicates planted across the files.
        const std::string near1 = words(1, 80), near2 = words(2, 80), near3 = words(3, 80),
                          near4 = words(4, 80);
        std::vector<std::pair<std::string, const char*>> good;
        good.push_back({doc("near-1a", near1), "doc"});
        good.push_back({doc("near-1b", variant(near1)), "doc"});
        good.push_back({doc("near-2a", near2), "doc"});
        good.push_back({doc("near-3a", near3), "doc"});
        good.push_back({doc("near-4a", near4), "doc"});
        for (int i = 0; i < 20; ++i)
            good.push_back({doc("solo-a" + std::to_string(i), words(100 + i, 60)), "doc"});
        plain("a_good.jsonl", good);
        removedIds_ = {"near-1b", "near-1c", "near-2c", "near-3b", "near-4b"};

        plain("b_bad.jsonl",
              {{doc("solo-b1", words(201, 50)), "doc"},
               {"{\"id\":\"mj1\",\"text\":\"unterminated\"", "malformed_json"},
               {"{\"id\":\"mj2\",\"text\":\"x\"} trailing", "malformed_json"},
               {"[1,2,3]", "not_an_object"},
               {"\"a string\"", "not_an_object"},
               {"42", "not_an_object"},
               {"null", "not_an_object"},
               {"{\"id\":\"mt1\"}", "missing_text"},
               {"{\"id\":\"mt2\",\"text\":null}", "missing_text"},
               {"{\"id\":\"tn1\",\"text\":12}", "text_not_string"},
               {"{\"id\":\"tn2\",\"text\":[\"a\",\"b\"]}", "text_not_string"},
               {"{\"id\":\"tn3\",\"text\":{\"a\":\"b\"}}", "text_not_string"},
               {"{\"id\":\"tn4\",\"text\":true}", "text_not_string"},
               {"{\"id\":\"u1\",\"text\":\"bad \xff byte\"}", "invalid_utf8"},
               {"{\"id\":\"u2\xc3\",\"text\":\"ok\"}", "invalid_utf8"},
               {"{\"id\":\"u3\",\"text\":\"ok\",\"meta\":\"\xed\xa0\x80\"}", "invalid_utf8"},
               {"{\"id\":\"c1\",\"text\":\"bell \x01 here\"}", "control_character"},
               {"{\"id\":\"c2\",\"text\":\"nul " + std::string(1, '\0') + " here\"}",
                "control_character"},
               {"", "blank"},
               {"   \t  ", "blank"},
               {doc("empty-text", ""), "doc"},
               {"{\"text\":\"" + words(202, 50) + "\"}", "doc"},  // id: <file>:<line>
               {doc("dup-id", words(203, 50)), "doc"},
               {doc("dup-id", words(204, 50)), "doc"},
               {"{\"id\":12345,\"text\":\"" + words(205, 50) + "\"}", "doc"},
               {"{\"id\":1.5,\"text\":\"x\"}", "invalid_id"},
               {"{\"id\":[\"a\"],\"text\":\"x\"}", "invalid_id"},
               {doc(std::string(1 << 20, 'i'), words(206, 50)), "doc"},
               {"\xef\xbb\xbf" + doc("mid-bom", "x"), "malformed_json"},
               {doc("crlf-mid", words(207, 50)) + "\r", "doc"},
               {doc("near-3b", variant(near3)), "doc"},
               {doc("last-no-newline", words(208, 50)), "doc"}},
              false);

        plain("c_bom_crlf.jsonl",
              {{"\xef\xbb\xbf" + doc("bom-first", words(301, 50)) + "\r", "doc"},
               {doc("near-1c", variant(near1)) + "\r", "doc"}});

        const int depth = 100000;
        plain("d_deep.jsonl", {{"{\"id\":\"deep1\",\"text\":\"x\",\"n\":" +
                                    std::string(depth, '[') + std::string(depth, ']') + "}",
                                "malformed_json"},
                               {"{\"id\":\"deep2\",\"text\":\"x\",\"n\":" +
                                    [&] {
                                        std::string s;
                                        for (int i = 0; i < depth; ++i)
                                            s += "{\"a\":";
                                        return s + "1" + std::string(depth, '}');
                                    }() +
                                    "}",
                                "malformed_json"},
                               {doc("after-deep", words(401, 50)), "doc"}});

        writeFile(in("e_empty.jsonl"), "");

        // Damaged compressed streams. Truncated: what zlib/zstd decode independently tells how
        // many complete lines survive; trailing garbage after a valid member/frame; a gzip
        // stream whose first deflate block is invalid.
        std::string lines;
        for (int i = 0; i < 600; ++i)
            lines +=
                doc("gz-" + std::to_string(i), i == 4 ? variant(near2) : words(500 + i, 40)) + "\n";
        lines.replace(lines.find("\"gz-4\""), 6, "\"near-2c\"");
        const std::string gz = gzipBytes(lines);
        writeFile(in("f_cut.jsonl.gz"), gz.substr(0, gz.size() / 2));
        const std::string cutText = gunzipPrefix(in("f_cut.jsonl.gz"));
        QVERIFY(countLines(cutText) > 10 && countLines(cutText) < 600);
        damaged("f_cut.jsonl.gz", gz.substr(0, gz.size() / 2), countLines(cutText));
        gzCutDecoded_ = cutText.size();

        std::string small;
        for (int i = 0; i < 50; ++i)
            small += doc("tail-" + std::to_string(i), words(1200 + i, 40)) + "\n";
        damaged("g_tail.jsonl.gz", gzipBytes(small) + "this is not gzip data\n", 50);
        std::string badBlock = gzipBytes(small);
        badBlock[10] = static_cast<char>(0xff);  // BTYPE 11: invalid deflate block
        damaged("g_zblock.jsonl.gz", badBlock, 0);

        std::string zlines;
        for (int i = 0; i < 3000; ++i)
            zlines += doc("zst-" + std::to_string(i), words(2000 + i, 40)) + "\n";
        const std::string zst = zstdBytes(zlines);
        const std::string zcut = zst.substr(0, zst.size() / 2);
        const uint64_t zSurvivors = countLines(unzstdPrefix(zcut));
        QVERIFY(zSurvivors < 3000);
        damaged("h_cut.jsonl.zst", zcut, zSurvivors);
        std::string zsmall;
        for (int i = 0; i < 30; ++i)
            zsmall += doc(i == 7 ? "near-4b" : "ztail-" + std::to_string(i),
                          i == 7 ? variant(near4) : words(6000 + i, 40)) +
                      "\n";
        damaged("i_tail.jsonl.zst", zstdBytes(zsmall) + "garbage, not a zstd frame", 30);

        // A symlink loop with an input name: one unreadable_file entry (line 0).
        fs::create_symlink("j_loop.jsonl", in("j_loop.jsonl"));
        expected_.push_back({"j_loop.jsonl", 0, "unreadable_file"});
        ++linesRead_;
        if (!root_) {  // root reads files whatever their mode
            writeFile(in("k_locked.jsonl"), doc("locked", "x") + "\n");
            ::chmod(in("k_locked.jsonl").c_str(), 0);
            expected_.push_back({"k_locked.jsonl", 0, "unreadable_file"});
            ++linesRead_;
        }
        // One document longer than a read chunk (4 MiB).
        plain("l_big.jsonl", {{doc("big", words(7000, 700000)), "doc"}});
        if (!root_) {  // a subdirectory that cannot be listed: reported, not passed over
            fs::create_directories(in("m_locked"));
            writeFile(in("m_locked/inside.jsonl"), doc("hidden", "x") + "\n");
            ::chmod(in("m_locked").c_str(), 0);
            expected_.push_back({"m_locked", 0, "unreadable_file"});
            ++linesRead_;
        }
    }

    void cleanupTestCase() {
        if (!root_) {
            ::chmod(in("k_locked.jsonl").c_str(), 0644);
            ::chmod(in("m_locked").c_str(), 0755);
        }
    }

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
            const std::string all = readFile(path(tag + ".jsonl")) +
                                    readFile(path(tag + ".clusters")) +
                                    readFile(path(tag + ".removed"));
            if (first.empty()) {
                first = all;
                QVERIFY(!first.empty());
            } else {
                QVERIFY2(all == first, threads);
            }
        }
    }

  private:
    uint64_t gzCutDecoded_ = 0;
};

QTEST_GUILESS_MAIN(TestBadInput)
#include "test_bad_input.moc"
