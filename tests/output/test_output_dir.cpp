// The deduplicated dataset shard by shard: `--out-dir DIR` mirrors the inputs' names
// and writes each shard in its input's format, JSON Lines (plain, gzip, zstd) with exactly the
// kept lines byte for byte, Parquet with the input's schema, metadata and codecs holding exactly
// the kept rows in order; the same bytes for 1 and 2 threads and from `neardup export`; refused
// before any work when two inputs share a name or a shard would be an input; `--annotate` writes
// every document with its cluster fields, and filtering on duplicate_removed gives the kept set.
// Parquet fixtures are written and read back with pyarrow (tests/support/*_parquet.py).
#include <unistd.h>

#include <QJsonDocument>
#include <QJsonObject>
#include <QSet>
#include <QTest>
#include <algorithm>
#include <string>
#include <vector>

#include "output_formats_fixture.h"
#include "parquet_file.h"

using testsupport::q;
using testsupport::readFile;
using namespace userfiles;
using namespace outputformats;

namespace {

QString idOf(const std::string& jsonLine) {
    return QJsonDocument::fromJson(QByteArray::fromStdString(jsonLine))
        .object()
        .value(QStringLiteral("id"))
        .toVariant()
        .toString();
}

// The relative paths of the files below `dir`, sorted.
QStringList treeOf(const std::string& dir) {
    QStringList files;
    for (const auto& e : fs::recursive_directory_iterator(dir))
        if (e.is_regular_file()) files << q(fs::path(e.path()).lexically_relative(dir).string());
    files.sort();
    return files;
}

}  // namespace

class TestOutputDir : public CorpusFixture {
    Q_OBJECT

    QSet<QString> kept_;  // ids the JSONL run of the whole corpus keeps

    // The decompressed bytes of a JSONL shard, by its name.
    static std::string shardBytes(const std::string& file) {
        bool ok = true;
        const std::string bytes = readFile(file);
        if (file.ends_with(".gz")) return gunzip(bytes, ok);
        if (file.ends_with(".zst")) return unzstd(bytes, ok);
        return bytes;
    }

    // The rows of a Parquet file as JSON lines (read_parquet.py rows).
    static std::vector<std::string> parquetRows(const std::string& file) {
        const Python r = python("read_parquet.py", {QStringLiteral("rows"), q(file)});
        if (r.code != 0) qWarning("%s", qPrintable(r.err));
        return linesOf(r.out);
    }

    static std::string parquetSchema(const std::string& file) {
        const Python r = python("read_parquet.py", {QStringLiteral("schema"), q(file)});
        if (r.code != 0) qWarning("%s", qPrintable(r.err));
        return r.out;
    }

    // `lines` whose id is kept.
    std::vector<std::string> keptOf(const std::vector<std::string>& lines) const {
        std::vector<std::string> out;
        for (const std::string& line : lines)
            if (kept_.contains(idOf(line))) out.push_back(line);
        return out;
    }

    // Checks that `out` holds the shards of the mixed folder: its tree, and each shard the kept
    // lines or rows of its input.
    void checkMixedShards(const std::string& out) {
        QCOMPARE(treeOf(out), treeOf(path("mixed")));
        for (const char* name : {"a.jsonl", "sub/b.jsonl.gz", "sub/deeper/c.jsonl.zst"}) {
            const std::string in = shardBytes(path(std::string("mixed/") + name));
            const std::string shard = shardBytes(out + "/" + name);
            QVERIFY2(!shard.empty(), name);
            QCOMPARE(linesOf(shard), keptOf(linesOf(in)));
            // Byte for byte: every kept line ends in a newline, none else is written.
            QCOMPARE(shard.back(), '\n');
        }
        const std::string input = readFile(path("mixed/sub/e.parquet"));
        QCOMPARE(readFile(out + "/sub/e.parquet").substr(0, 4), std::string("PAR1"));
        for (const char* name : {"d.parquet", "sub/e.parquet"}) {
            const std::string in = path(std::string("mixed/") + name);
            const std::string shard = out + "/" + name;
            const std::string schema = parquetSchema(in);
            QVERIFY(schema.find("source: 'neardup test'") != std::string::npos);
            QCOMPARE(parquetSchema(shard), schema);  // columns, types, metadata and codecs
            const std::vector<std::string> rows = parquetRows(shard);
            QVERIFY2(!rows.empty(), name);
            QCOMPARE(rows, keptOf(parquetRows(in)));
        }
    }

  private slots:
    void initTestCase() {
        const Result r = makeCorpus();
        QVERIFY2(r.code == 0, qPrintable(r.err));
        const Result j =
            run(path("j.ndw"), {QStringLiteral("--out-kept"), q(path("j.kept")),
                                QStringLiteral("--out-removed"), q(path("j.removed"))});
        QVERIFY2(j.code == 0, qPrintable(j.err));
        for (const std::string& id : linesOf(readFile(path("j.kept"))))
            kept_.insert(q(id));
        QVERIFY(!readFile(path("j.removed")).empty());
        // The corpus cut into five shards of every format, in a tree: a.jsonl (lines 1-150),
        // d.parquet (151-270, zstd, row groups of 32), sub/b.jsonl.gz (271-380),
        // sub/deeper/c.jsonl.zst (381-480), sub/e.parquet (481-600, snappy, groups of 50).
        const std::vector<std::string> lines = linesOf(readFile(path("corpus.jsonl")));
        QCOMPARE(lines.size(), std::size_t{600});
        auto part = [&](std::size_t from, std::size_t to) {
            std::string s;
            for (std::size_t i = from; i < to; ++i)
                s += lines[i] + "\n";
            return s;
        };
        fs::create_directories(path("mixed/sub/deeper"));
        writeFile(path("mixed/a.jsonl"), part(0, 150));
        writeFile(path("mixed/sub/b.jsonl.gz"), gzipped(part(270, 380)));
        writeFile(path("mixed/sub/deeper/c.jsonl.zst"), zstdCompressed(part(380, 480)));
        if (!neardup::columnar::parquetCompiledIn()) return;
        QString e =
            writeParquet({QStringLiteral("rich"), q(path("corpus.jsonl")),
                          q(path("mixed/d.parquet")), QStringLiteral("32"), QStringLiteral("zstd"),
                          QStringLiteral("150"), QStringLiteral("120")});
        QVERIFY2(e.isEmpty(), qPrintable(e));
        e = writeParquet({QStringLiteral("rich"), q(path("corpus.jsonl")),
                          q(path("mixed/sub/e.parquet")), QStringLiteral("50"),
                          QStringLiteral("snappy"), QStringLiteral("480")});
        QVERIFY2(e.isEmpty(), qPrintable(e));
        e = writeParquet({QStringLiteral("rich"), q(path("corpus.jsonl")),
                          q(path("corpus.parquet")), QStringLiteral("100"),
                          QStringLiteral("zstd")});
        QVERIFY2(e.isEmpty(), qPrintable(e));
    }

    // A folder of mixed shards is mirrored, each shard in its input's format with exactly the
    // kept lines or rows (the JSONL run's kept ids); the same bytes for 1 and 2 threads.
    void mirrorsMixedFolder() {
        if (!neardup::columnar::parquetCompiledIn()) QSKIP("Parquet support is not compiled in");
        for (int threads : {1, 2}) {
            const std::string prefix = "m" + std::to_string(threads);
            const Result r = runCli(
                {QStringLiteral("run"), q(path("mixed")), QStringLiteral("-p"),
                 q(path(prefix + ".ndw")), QStringLiteral("-q"), QStringLiteral("-j"),
                 QString::number(threads), QStringLiteral("--out-dir"), q(path(prefix + ".out")),
                 QStringLiteral("--out-removed"), q(path(prefix + ".removed"))},
                dir_);
            QVERIFY2(r.code == 0, qPrintable(r.err));
            QCOMPARE(readFile(path(prefix + ".removed")), readFile(path("j.removed")));
            checkMixedShards(path(prefix + ".out"));
            QVERIFY(temporaries(path(prefix + ".out")).isEmpty());
        }
        for (const QString& name : treeOf(path("m1.out")))
            QCOMPARE(readFile(path("m2.out/" + name.toStdString())),
                     readFile(path("m1.out/" + name.toStdString())));
    }

    // One Parquet file given directly: its shard is its base name, with exactly the rows the
    // JSONL run of the same documents keeps; `export` writes the same bytes again, naming the
    // shards below the inputs' common folder.
    void parquetFileAndExport() {
        if (!neardup::columnar::parquetCompiledIn()) QSKIP("Parquet support is not compiled in");
        Result r = runCli(
            {QStringLiteral("run"), q(path("corpus.parquet")), QStringLiteral("-p"),
             q(path("p.ndw")), QStringLiteral("-q"), QStringLiteral("--out-dir"), q(path("p.out"))},
            dir_);
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QCOMPARE(treeOf(path("p.out")), QStringList{QStringLiteral("corpus.parquet")});
        const std::vector<std::string> rows = parquetRows(path("p.out/corpus.parquet"));
        QCOMPARE(rows.size(), static_cast<std::size_t>(kept_.size()));
        QCOMPARE(rows, keptOf(parquetRows(path("corpus.parquet"))));
        r = runCli({QStringLiteral("export"), QStringLiteral("-p"), q(path("p.ndw")),
                    QStringLiteral("--out-dir"), q(path("p.export"))},
                   dir_);
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QCOMPARE(readFile(path("p.export/corpus.parquet")), readFile(path("p.out/corpus.parquet")));
        if (!fs::exists(path("m1.ndw"))) QSKIP("needs mirrorsMixedFolder's project");
        r = runCli({QStringLiteral("export"), QStringLiteral("-p"), q(path("m1.ndw")),
                    QStringLiteral("--out-dir"), q(path("m1.export"))},
                   dir_);
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QCOMPARE(treeOf(path("m1.export")), treeOf(path("m1.out")));
        for (const QString& name : treeOf(path("m1.out")))
            QCOMPARE(readFile(path("m1.export/" + name.toStdString())),
                     readFile(path("m1.out/" + name.toStdString())));
    }

    // Refused before any work, naming the files: two inputs with one shard name, a shard that
    // would be its input, a shard that is another output. Nothing is written or recorded.
    void refusals() {
        fs::create_directories(path("other"));
        writeFile(path("other/a.jsonl"), readFile(path("mixed/a.jsonl")));
        Result r = runCli({QStringLiteral("run"), q(path("mixed/a.jsonl")),
                           q(path("other/a.jsonl")), QStringLiteral("-p"), q(path("r1.ndw")),
                           QStringLiteral("-q"), QStringLiteral("--out-dir"), q(path("r1.out"))},
                          dir_);
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains(q(path("mixed/a.jsonl"))) &&
                     r.err.contains(q(path("other/a.jsonl"))) &&
                     r.err.contains(QStringLiteral("would both be written")),
                 qPrintable(r.err));
        QVERIFY(!fs::exists(path("r1.out")));
        QVERIFY(testsupport::noRunRecorded(path("r1.ndw")));
        // The input folder as --out-dir: every shard would replace its input.
        const std::string before = readFile(path("other/a.jsonl"));
        r = runCli(
            {QStringLiteral("run"), q(path("other")), QStringLiteral("-p"), q(path("r2.ndw")),
             QStringLiteral("-q"), QStringLiteral("--out-dir"), q(path("other"))},
            dir_);
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains(QStringLiteral("refusing to overwrite input file")) &&
                     r.err.contains(q(path("other/a.jsonl"))),
                 qPrintable(r.err));
        QCOMPARE(readFile(path("other/a.jsonl")), before);
        // A shard on another output's file.
        fs::create_directories(path("r3.out"));
        r = runCli({QStringLiteral("run"), q(path("other")), QStringLiteral("-p"),
                    q(path("r3.ndw")), QStringLiteral("-q"), QStringLiteral("--out-dir"),
                    q(path("r3.out")), QStringLiteral("--out-jsonl"), q(path("r3.out/a.jsonl"))},
                   dir_);
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains(QStringLiteral("name the same file")), qPrintable(r.err));
        QVERIFY(treeOf(path("r3.out")).isEmpty());
        // A file where the folder should be.
        writeFile(path("r4.out"), "x");
        r = runCli(
            {QStringLiteral("run"), q(path("other")), QStringLiteral("-p"), q(path("r4.ndw")),
             QStringLiteral("-q"), QStringLiteral("--out-dir"), q(path("r4.out"))},
            dir_);
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains(QStringLiteral("not a directory")), qPrintable(r.err));
        // --annotate with nothing to annotate.
        r = runCli({QStringLiteral("run"), q(path("other")), QStringLiteral("-p"),
                    q(path("r5.ndw")), QStringLiteral("-q"), QStringLiteral("--annotate"),
                    QStringLiteral("--out-removed"), q(path("r5.removed"))},
                   dir_);
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains(QStringLiteral("--annotate needs")), qPrintable(r.err));
        QVERIFY(!fs::exists(path("r5.removed")));
    }

    // A Parquet input the run cannot read at all (cut short) is rejected under --on-error skip
    // and has no shard; the others are mirrored and the run succeeds, as with --out-jsonl.
    void anUnreadableColumnarInputHasNoShard() {
        if (!neardup::columnar::parquetCompiledIn()) QSKIP("Parquet support is not compiled in");
        fs::create_directories(path("cut"));
        writeFile(path("cut/a.jsonl"), readFile(path("mixed/a.jsonl")));
        const std::string parquet = readFile(path("mixed/d.parquet"));
        writeFile(path("cut/good.parquet"), parquet);
        writeFile(path("cut/bad.parquet"), parquet.substr(0, 3000));
        const Result r =
            runCli({QStringLiteral("run"), q(path("cut")), QStringLiteral("-p"), q(path("cut.ndw")),
                    QStringLiteral("--out-dir"), q(path("cut.out")),
                    QStringLiteral("--summary-json"), q(path("cut.json"))},
                   dir_);
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QCOMPARE(treeOf(path("cut.out")),
                 (QStringList{QStringLiteral("a.jsonl"), QStringLiteral("good.parquet")}));
        QVERIFY2(readFile(path("cut.json")).find("unreadable_file") != std::string::npos,
                 readFile(path("cut.json")).c_str());
    }

    // A link planted at a subfolder's name in the output folder (to another user's files, say)
    // is refused before the run starts, naming it; what it points to is untouched, and the
    // export of a stored run refuses it too.
    void aLinkedSubfolderIsRefusedNotFollowed() {
        fs::create_directories(path("linked.out"));
        fs::create_directories(path("victim/deeper"));
        writeFile(path("victim/b.jsonl.gz"), "precious");
        QCOMPARE(::symlink(path("victim").c_str(), path("linked.out/sub").c_str()), 0);
        const QStringList outDir = {QStringLiteral("--out-dir"), q(path("linked.out"))};
        Result r = runCli(QStringList{QStringLiteral("run"), q(path("mixed")), QStringLiteral("-p"),
                                      q(path("linked.ndw")), QStringLiteral("-q")} +
                              outDir,
                          dir_);
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains(q(path("linked.out/sub")) + QStringLiteral("': it is a symbolic")),
                 qPrintable(r.err));
        QVERIFY(testsupport::noRunRecorded(path("linked.ndw")));
        r = runCli({QStringLiteral("run"), q(path("mixed")), QStringLiteral("-p"),
                    q(path("linked.ndw")), QStringLiteral("-q")},
                   dir_);
        QVERIFY2(r.code == 0, qPrintable(r.err));
        r = runCli(
            QStringList{QStringLiteral("export"), QStringLiteral("-p"), q(path("linked.ndw"))} +
                outDir,
            dir_);
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains(QStringLiteral("it is a symbolic link")), qPrintable(r.err));
        QCOMPARE(readFile(path("victim/b.jsonl.gz")), std::string("precious"));
        QCOMPARE(treeOf(path("victim")), QStringList{QStringLiteral("b.jsonl.gz")});
    }

    // --annotate: every document, with cluster_id, cluster_size and duplicate_removed appended
    // (each JSON line's bytes up to its closing brace kept); keeping the rows where
    // duplicate_removed is false gives exactly the deduplicated dataset.
    void annotate() {
        if (!neardup::columnar::parquetCompiledIn()) QSKIP("Parquet support is not compiled in");
        const Result r = runCli(
            {QStringLiteral("run"), q(path("mixed")), QStringLiteral("-p"), q(path("an.ndw")),
             QStringLiteral("-q"), QStringLiteral("--out-dir"), q(path("an.out")),
             QStringLiteral("--annotate"), QStringLiteral("--out-jsonl"), q(path("an.jsonl"))},
            dir_);
        QVERIFY2(r.code == 0, qPrintable(r.err));
        int documents = 0, kept = 0, inClusters = 0;
        auto count = [&](const QJsonObject& o) {
            ++documents;
            const bool removed = o.value(QStringLiteral("duplicate_removed")).toBool();
            QVERIFY(o.value(QStringLiteral("duplicate_removed")).isBool());
            QCOMPARE(!removed, kept_.contains(o.value(QStringLiteral("id")).toString()));
            kept += removed ? 0 : 1;
            const int cluster = o.value(QStringLiteral("cluster_id")).toInt();
            const int size = o.value(QStringLiteral("cluster_size")).toInt();
            if (cluster < 0) {
                QCOMPARE(cluster, -1);
                QCOMPARE(size, 1);
                QVERIFY(!removed);
            } else {
                ++inClusters;
                QVERIFY(size >= 2);
            }
        };
        for (const char* name : {"a.jsonl", "sub/b.jsonl.gz", "sub/deeper/c.jsonl.zst"}) {
            const std::vector<std::string> in =
                linesOf(shardBytes(path(std::string("mixed/") + name)));
            const std::vector<std::string> out =
                linesOf(shardBytes(path(std::string("an.out/") + name)));
            QCOMPARE(out.size(), in.size());
            for (std::size_t i = 0; i < in.size(); ++i) {
                QCOMPARE(out[i].substr(0, in[i].size() - 1), in[i].substr(0, in[i].size() - 1));
                QCOMPARE(out[i].back(), '}');
                count(QJsonDocument::fromJson(QByteArray::fromStdString(out[i])).object());
            }
        }
        for (const char* name : {"d.parquet", "sub/e.parquet"}) {
            const std::string schema = parquetSchema(path(std::string("an.out/") + name));
            QVERIFY2(schema.find("cluster_id: int64 not null\ncluster_size: int64 not null\n"
                                 "duplicate_removed: bool not null") != std::string::npos,
                     schema.c_str());
            const std::vector<std::string> rows = parquetRows(path(std::string("an.out/") + name));
            QCOMPARE(rows.size(), parquetRows(path(std::string("mixed/") + name)).size());
            for (const std::string& row : rows)
                count(QJsonDocument::fromJson(QByteArray::fromStdString(row)).object());
        }
        QCOMPARE(documents, 600);
        QCOMPARE(kept, static_cast<int>(kept_.size()));
        QVERIFY(inClusters > 600 - kept);
        // --out-jsonl annotates every document the same way, in input order.
        const std::vector<std::string> all = linesOf(readFile(path("an.jsonl")));
        QCOMPARE(all.size(), std::size_t{600});
        int unremoved = 0;
        for (const std::string& line : all)
            unremoved += line.find("\"duplicate_removed\":false}") != std::string::npos ? 1 : 0;
        QCOMPARE(unremoved, kept);
    }
};

QTEST_GUILESS_MAIN(TestOutputDir)
#include "test_output_dir.moc"
