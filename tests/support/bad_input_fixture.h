// What the bad-input tests share (test_bad_input.cpp, test_bad_input_outputs.cpp): a corpus
// folder holding every kind of bad input among valid near-duplicates, written once per test
// executable, with the rejections, accounts and removals it must produce.
#pragma once

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

#include "test_support.h"

namespace fs = std::filesystem;

namespace badinput {

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

}  // namespace badinput

using namespace badinput;

class BadInputFixture : public QObject {
  protected:
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

    uint64_t gzCutDecoded_ = 0;

    // Writes the corpus folder and counts what it must give.
    void makeCorpus() {
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

    // Gives the unreadable files back their permissions, so that the folder can be removed.
    void restorePermissions() {
        if (!root_) {
            ::chmod(in("k_locked.jsonl").c_str(), 0644);
            ::chmod(in("m_locked").c_str(), 0755);
        }
    }
};
