// Arrow IPC input end to end: IPC files and streams written at test time by Arrow's
// own writers (pyarrow, tests/support/write_arrow.py), and a folder in the layout
// Dataset.save_to_disk writes, read by `neardup run` as a user would: the same documents as
// JSONL give the same removed ids and clusters; struct fields, dictionary and large strings,
// nulls and integer ids; documents re-read by (file, batch, row); the save_to_disk folder's JSON
// never read as data; --out-dir writes Arrow shards in the input's IPC format and schema
// (read back with pyarrow, tests/support/read_arrow.py) and mirrors a save_to_disk folder with its
// metadata. A build without Arrow refuses a .arrow input by name.
#include <sys/wait.h>
#include <unistd.h>

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>
#include <filesystem>
#include <string>

#include "arrow_ipc_file.h"
#include "document_fetcher.h"
#include "output_formats_fixture.h"
#include "project_store.h"
#include "test_support.h"
#include "user_files_support.h"

namespace fs = std::filesystem;
using testsupport::q;
using testsupport::readFile;
using namespace userfiles;
using outputformats::linesOf;

namespace {

// The "id" of each row (JSON objects), in order.
std::vector<std::string> idsOf(const std::vector<std::string>& rows) {
    std::vector<std::string> ids;
    for (const std::string& row : rows)
        ids.push_back(QJsonDocument::fromJson(QByteArray::fromStdString(row))
                          .object()
                          .value(QStringLiteral("id"))
                          .toString()
                          .toStdString());
    return ids;
}

// An Arrow IPC file's format and schema, and its rows as JSON objects (read_arrow.py).
std::string arrowSchema(const std::string& file) {
    const outputformats::Python r =
        outputformats::python("read_arrow.py", {QStringLiteral("schema"), q(file)});
    if (r.code != 0) qWarning("%s", qPrintable(r.err));
    return r.out;
}

std::vector<std::string> arrowRows(const std::string& file) {
    const outputformats::Python r =
        outputformats::python("read_arrow.py", {QStringLiteral("rows"), q(file)});
    if (r.code != 0) qWarning("%s", qPrintable(r.err));
    return linesOf(r.out);
}

}  // namespace

class TestArrowInput : public outputformats::ColumnarInputFixture {
    Q_OBJECT

  private slots:
    void initTestCase() {
        const Result r = makeCorpus();
        QVERIFY2(r.code == 0, qPrintable(r.err));
        if (!neardup::columnar::parquetCompiledIn()) return;
        // The corpus (600 documents) as an IPC file and an IPC stream in batches of 100, as a
        // save_to_disk folder of three stream shards, and a folder mixing JSONL (the first 300)
        // and an Arrow stream (the rest).
        const QString corpus = q(path("corpus.jsonl"));
        for (const char* format : {"file", "stream"}) {
            const QString e =
                outputformats::writeArrow({QStringLiteral("convert"), corpus,
                                           q(path(std::string("corpus.") + format + ".arrow")),
                                           QStringLiteral("100"), QLatin1String(format)});
            QVERIFY2(e.isEmpty(), qPrintable(e));
        }
        QString e = outputformats::writeArrow(
            {QStringLiteral("save_to_disk"), corpus, q(path("saved")), QStringLiteral("3")});
        QVERIFY2(e.isEmpty(), qPrintable(e));
        fs::create_directories(path("mixed/sub"));
        writeCorpusHead("mixed/a.jsonl", 300);
        e = outputformats::writeArrow({QStringLiteral("convert"), corpus,
                                       q(path("mixed/sub/b.arrow")), QStringLiteral("64"),
                                       QStringLiteral("stream"), QStringLiteral("300")});
        QVERIFY2(e.isEmpty(), qPrintable(e));
        for (const char* format : {"file", "stream"}) {
            e = outputformats::writeArrow({QStringLiteral("features"),
                                           q(path(std::string("features.") + format + ".arrow")),
                                           QLatin1String(format)});
            QVERIFY2(e.isEmpty(), qPrintable(e));
        }
    }

    // A .arrow input is never read as text: without Arrow it is refused by name; with it, one
    // that is not Arrow IPC is an error naming it (with --on-error skip: a rejected file).
    void neverReadAsText() {
        writeFile(path("fake.arrow"), "{\"id\":1,\"text\":\"a JSON line named .arrow\"}\n");
        const bool compiledIn = neardup::columnar::parquetCompiledIn();
        if (!compiledIn) {
            // A real IPC stream's first bytes: the continuation marker.
            writeFile(path("fake.arrow"), std::string("\xff\xff\xff\xff\x10\0\0\0", 8));
        }
        const Result r =
            runCli({QStringLiteral("run"), q(path("fake.arrow")), QStringLiteral("-p"),
                    q(path("fake.ndw")), QStringLiteral("--on-error"), QStringLiteral("fail")},
                   dir_);
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains(compiledIn ? QStringLiteral("cannot read Arrow IPC file")
                                           : QStringLiteral("Arrow support is not compiled in")) &&
                     r.err.contains(q(path("fake.arrow"))),
                 qPrintable(r.err));
    }

    // The same documents as JSONL and as Arrow (IPC file, IPC stream, save_to_disk folder, a
    // folder mixing JSONL and Arrow): the same removed ids, clusters and kept documents.
    void sameClustersAsJsonl() {
        if (!neardup::columnar::parquetCompiledIn()) QSKIP("Arrow support is not compiled in");
        Result r = runOn({q(path("corpus.jsonl"))}, "j", 2);
        QVERIFY2(r.code == 0, qPrintable(r.err));
        const std::string removed = readFile(path("j.removed"));
        QVERIFY(!removed.empty());
        for (const char* input : {"corpus.file.arrow", "corpus.stream.arrow", "saved", "mixed"}) {
            const std::string prefix = std::string("a-") + input;
            r = runOn({q(path(input))}, prefix, 2);
            QVERIFY2(r.code == 0, qPrintable(QLatin1String(input) + QStringLiteral(": ") + r.err));
            QCOMPARE(readFile(path(prefix + ".removed")), removed);
            QCOMPARE(readFile(path(prefix + ".clusters")), readFile(path("j.clusters")));
            QCOMPARE(readFile(path(prefix + ".kept")), readFile(path("j.kept")));
        }
        // Kept rows are written as JSON lines of their id and text, like the input's lines.
        QCOMPARE(readFile(path("a-corpus.stream.arrow.dedup.jsonl")),
                 readFile(path("j.dedup.jsonl")));
    }

    // A save_to_disk folder is one dataset: its shards in state.json's order, its JSON files
    // never read (they were read as JSON Lines and rejected: "11 rejected lines, exit 0");
    // a file beside them that state.json does not list is refused by name; a DatasetDict
    // folder reads its splits in dataset_dict.json's order.
    void saveToDiskFolder() {
        if (!neardup::columnar::parquetCompiledIn()) QSKIP("Arrow support is not compiled in");
        Result r = runOn({q(path("saved"))}, "s", 2,
                         {QStringLiteral("--summary-json"), q(path("s.summary.json"))});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QVERIFY2(
            !QByteArray::fromStdString(readFile(path("s.summary.json"))).contains("state.json"),
            "the metadata was read as data");
        neardup::ProjectStore store(path("s.ndw"));
        neardup::DocumentTable docs;
        const neardup::DatasetRecord set = store.loadDataset(1, &docs);
        QCOMPARE(docs.size(), std::size_t{600});
        QCOMPARE(set.files.size(), std::size_t{3});
        for (std::size_t i = 0; i < 3; ++i)
            QVERIFY2(
                set.files[i].path.ends_with("/data-0000" + std::to_string(i) + "-of-00003.arrow"),
                set.files[i].path.c_str());
        // A DatasetDict of two splits listed test first: test's shards are read first.
        fs::create_directories(path("dict"));
        fs::copy(path("saved"), path("dict/train"), fs::copy_options::recursive);
        fs::copy(path("saved"), path("dict/test"), fs::copy_options::recursive);
        writeFile(path("dict/dataset_dict.json"), "{\"splits\": [\"test\", \"train\"]}");
        r = runOn({q(path("dict"))}, "d", 2);
        QVERIFY2(r.code == 0, qPrintable(r.err));
        {
            neardup::ProjectStore dict(path("d.ndw"));
            const neardup::DatasetRecord two = dict.loadDataset(1, &docs);
            QCOMPARE(two.files.size(), std::size_t{6});
            QVERIFY(two.files.front().path.find("/dict/test/") != std::string::npos);
            QVERIFY(two.files.back().path.find("/dict/train/") != std::string::npos);
        }
        // A stray file in the folder: a doubt about what the dataset is, refused by name.
        fs::copy(path("saved"), path("stray"), fs::copy_options::recursive);
        writeFile(path("stray/extra.jsonl"), "{\"id\":\"x\",\"text\":\"not listed\"}\n");
        r = runOn({q(path("stray"))}, "x", 2);
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains(q(path("stray/extra.jsonl"))) &&
                     r.err.contains(QStringLiteral("does not list it")),
                 qPrintable(r.err));
    }

    // The workbench's side-by-side view, export and verification re-read documents by
    // (file, batch, row), backwards and across batches, from both IPC formats.
    void documentsAreReadBackByLocation() {
        if (!neardup::columnar::parquetCompiledIn()) QSKIP("Arrow support is not compiled in");
        neardup::ProjectStore jsonl(path("j.ndw"));
        neardup::DocumentTable jdocs;
        const neardup::DatasetRecord jset = jsonl.loadDataset(1, &jdocs);
        neardup::DocumentFetcher jf(jset.files, jset.reader);
        for (const char* input : {"corpus.file.arrow", "corpus.stream.arrow"}) {
            neardup::ProjectStore arrow(path(std::string("a-") + input + ".ndw"));
            neardup::DocumentTable adocs;
            const neardup::DatasetRecord aset = arrow.loadDataset(1, &adocs);
            QCOMPARE(adocs.size(), jdocs.size());
            QCOMPARE(adocs.line, jdocs.line);  // rows are numbered like lines
            neardup::DocumentFetcher af(aset.files, aset.reader);
            for (std::size_t i : {std::size_t{599}, std::size_t{0}, std::size_t{250},
                                  std::size_t{99}, std::size_t{100}, std::size_t{101}}) {
                const neardup::FetchedDocument a = jf.fetch(jdocs, i), b = af.fetch(adocs, i);
                QVERIFY2(a.ok && b.ok, b.error.c_str());
                QCOMPARE(b.id, a.id);
                QCOMPARE(b.text, a.text);
                QCOMPARE(adocs.offset[i], uint64_t{i / 100});  // the record batch
                QCOMPARE(adocs.length[i], uint32_t(i % 100));  // the row in it
            }
        }
        // --verify exact reads the pairs' texts back: the same clusters as from JSONL.
        const QStringList exact{QStringLiteral("--verify"), QStringLiteral("exact")};
        Result r = runOn({q(path("corpus.jsonl"))}, "vj", 2, exact);
        QVERIFY2(r.code == 0, qPrintable(r.err));
        r = runOn({q(path("corpus.stream.arrow"))}, "va", 2, exact);
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QCOMPARE(readFile(path("va.clusters")), readFile(path("vj.clusters")));
    }

    // Struct fields by dotted path, dictionary-encoded and large strings, nulls rejected with
    // their reason, integer ids and the default id of a row without one; in both formats.
    void columnsOfEveryKind() {
        if (!neardup::columnar::parquetCompiledIn()) QSKIP("Arrow support is not compiled in");
        for (const char* format : {"file", "stream"}) {
            const std::string name = std::string("features.") + format + ".arrow";
            const QString file = q(path(name));
            const std::string prefix = std::string("f-") + format;
            Result r = runOn({file}, prefix, 2,
                             {QStringLiteral("--text-field"), QStringLiteral("meta.content"),
                              QStringLiteral("--id-field"), QStringLiteral("num")});
            QVERIFY2(r.code == 0, qPrintable(r.err));
            QCOMPARE(QString::fromStdString(readFile(path(prefix + ".kept"))),
                     QStringLiteral("10\n11\n") + file + QStringLiteral(":5\n15\n"));
            r = runCli({QStringLiteral("export"), QStringLiteral("-p"), q(path(prefix + ".ndw")),
                        QStringLiteral("--rejected"), q(path(prefix + ".rejected"))},
                       dir_);
            QVERIFY2(r.code == 0, qPrintable(r.err));
            const QList<QByteArray> rejected =
                QByteArray::fromStdString(readFile(path(prefix + ".rejected")))
                    .trimmed()
                    .split('\n');
            QCOMPARE(rejected.size(), 2);
            for (int i = 0; i < 2; ++i) {
                const QJsonObject o = QJsonDocument::fromJson(rejected[i]).object();
                QCOMPARE(o.value(QStringLiteral("file")).toString(), file);
                QCOMPARE(o.value(QStringLiteral("line")).toInt(), 3 + i);
                QCOMPARE(o.value(QStringLiteral("reason")).toString(),
                         QStringLiteral("missing_text"));
                QCOMPARE(o.value(QStringLiteral("detail")).toString(),
                         QStringLiteral("'meta.content' is null"));
            }
            const QByteArray first =
                QByteArray::fromStdString(readFile(path(prefix + ".dedup.jsonl")))
                    .split('\n')
                    .front();
            QCOMPARE(first,
                     QByteArray("{\"num\":10,\"meta\":{\"content\":\"the quick brown fox jumps "
                                "over the lazy dog near the river bank today\"}}"));
            for (const char* field : {"dict", "label"}) {
                r = runOn({file}, prefix + "-" + field, 1,
                          {QStringLiteral("--text-field"), QLatin1String(field)});
                QVERIFY2(r.code == 0, qPrintable(r.err));
                QCOMPARE(QByteArray::fromStdString(readFile(path(prefix + "-" + field + ".kept")))
                             .count('\n'),
                         6);
            }
            r = runOn({file}, prefix + "-n", 1,
                      {QStringLiteral("--text-field"), QStringLiteral("count")});
            QCOMPARE(r.code, 1);
            QVERIFY2(r.err.contains(QStringLiteral("text_not_string 6")), qPrintable(r.err));
        }
    }

    // --out-dir writes each Arrow input as an Arrow shard in its IPC format (file or stream)
    // with its schema (every column and type, the schema's metadata) holding exactly the kept
    // rows in order; --annotate writes every row with the three cluster columns appended.
    void outDirWritesArrowShards() {
        if (!neardup::columnar::parquetCompiledIn()) QSKIP("Arrow support is not compiled in");
        const std::vector<std::string> kept = linesOf(readFile(path("j.kept")));
        QVERIFY(kept.size() > 100 && kept.size() < 600);
        for (const char* format : {"file", "stream"}) {
            const std::string input = std::string("corpus.") + format + ".arrow";
            const std::string out = std::string("od-") + format;
            Result r = runOn({q(path(input))}, out, 2,
                             {QStringLiteral("--out-dir"), q(path(out + ".out"))});
            QVERIFY2(r.code == 0, qPrintable(r.err));
            const std::string shard = path(out + ".out/" + input);
            QCOMPARE(arrowSchema(shard), arrowSchema(path(input)));
            QCOMPARE(QByteArray::fromStdString(arrowSchema(shard)).split('\n').front(),
                     QByteArray("format ") + format);
            QCOMPARE(idsOf(arrowRows(shard)), kept);
            // --annotate: every row, the cluster columns added, duplicate_removed marks the rest.
            r = runOn({q(path(input))}, out + "-an", 1,
                      {QStringLiteral("--out-dir"), q(path(out + "-an.out")),
                       QStringLiteral("--annotate")});
            QVERIFY2(r.code == 0, qPrintable(r.err));
            const std::string annotated = path(out + "-an.out/" + input);
            QVERIFY2(arrowSchema(annotated) ==
                         arrowSchema(path(input)) +
                             "cluster_id: int64 not null\ncluster_size: int64 not null\n"
                             "duplicate_removed: bool not null\n",
                     arrowSchema(annotated).c_str());
            const std::vector<std::string> all = arrowRows(annotated);
            QCOMPARE(all.size(), std::size_t{600});
            std::vector<std::string> notRemoved;
            for (const std::string& row : all)
                if (row.find("\"duplicate_removed\": false") != std::string::npos)
                    notRemoved.push_back(row);
            QCOMPARE(idsOf(notRemoved), kept);
        }
        // Struct, dictionary and large string columns and schema metadata come back as they were.
        for (const char* format : {"file", "stream"}) {
            const std::string input = std::string("features.") + format + ".arrow";
            const std::string out = std::string("odf-") + format;
            const Result r = runOn({q(path(input))}, out, 1,
                                   {QStringLiteral("--text-field"), QStringLiteral("meta.content"),
                                    QStringLiteral("--out-dir"), q(path(out + ".out"))});
            QVERIFY2(r.code == 0, qPrintable(r.err));
            const std::string shard = path(out + ".out/" + input);
            QCOMPARE(arrowSchema(shard), arrowSchema(path(input)));
            QVERIFY(arrowSchema(shard).find("origin: 'write_arrow.py features'") !=
                    std::string::npos);
            const std::vector<std::string> rows = arrowRows(shard), source = arrowRows(path(input));
            QCOMPARE(rows.size(), std::size_t{4});  // rows 3 and 4 were rejected (null text)
            QCOMPARE(rows, (std::vector<std::string>{source[0], source[1], source[4], source[5]}));
        }
    }

    // A save_to_disk folder is mirrored as one: its shards under their names, state.json as it
    // was (it lists them), dataset_info.json without the split sizes that no longer hold.
    void outDirMirrorsSaveToDiskFolder() {
        if (!neardup::columnar::parquetCompiledIn()) QSKIP("Arrow support is not compiled in");
        Result r =
            runOn({q(path("saved"))}, "ods", 2, {QStringLiteral("--out-dir"), q(path("ods.out"))});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        std::vector<std::string> rows;
        const QJsonArray listed =
            QJsonDocument::fromJson(QByteArray::fromStdString(readFile(path("ods.out/state.json"))))
                .object()
                .value(QStringLiteral("_data_files"))
                .toArray();
        QCOMPARE(listed.size(), 3);
        for (const QJsonValue& entry : listed) {
            const std::string shard =
                path("ods.out/" +
                     entry.toObject().value(QStringLiteral("filename")).toString().toStdString());
            QVERIFY2(fs::exists(shard), shard.c_str());
            QCOMPARE(arrowSchema(shard), arrowSchema(path("saved/data-00000-of-00003.arrow")));
            for (std::string& row : arrowRows(shard))
                rows.push_back(std::move(row));
        }
        QCOMPARE(idsOf(rows), linesOf(readFile(path("j.kept"))));
        QCOMPARE(readFile(path("ods.out/state.json")), readFile(path("saved/state.json")));
        QJsonParseError error{};
        const QJsonObject info =
            QJsonDocument::fromJson(
                QByteArray::fromStdString(readFile(path("ods.out/dataset_info.json"))), &error)
                .object();
        QCOMPARE(error.error, QJsonParseError::NoError);
        QVERIFY(!info.contains(QStringLiteral("splits")));
        QVERIFY(info.value(QStringLiteral("features")).toObject().contains(QStringLiteral("text")));
        // With --annotate its features list the added columns, as `datasets` checks them.
        r = runOn({q(path("saved"))}, "odsa", 1,
                  {QStringLiteral("--out-dir"), q(path("odsa.out")), QStringLiteral("--annotate")});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        const QJsonObject features =
            QJsonDocument::fromJson(
                QByteArray::fromStdString(readFile(path("odsa.out/dataset_info.json"))))
                .object()
                .value(QStringLiteral("features"))
                .toObject();
        QCOMPARE(features.keys(),
                 (QStringList{QStringLiteral("cluster_id"), QStringLiteral("cluster_size"),
                              QStringLiteral("duplicate_removed"), QStringLiteral("id"),
                              QStringLiteral("text")}));
        // A DatasetDict folder: each split mirrored, and dataset_dict.json beside them.
        r = runOn({q(path("dict"))}, "odd", 1, {QStringLiteral("--out-dir"), q(path("odd.out"))});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QCOMPARE(readFile(path("odd.out/dataset_dict.json")),
                 readFile(path("dict/dataset_dict.json")));
        for (const char* split : {"train", "test"})
            QVERIFY(fs::exists(path(std::string("odd.out/") + split + "/state.json")) &&
                    fs::exists(path(std::string("odd.out/") + split + "/dataset_info.json")));
    }

    // An Arrow file truncated by another process while it is being read: the read fails with an
    // error naming the file, never a SIGBUS (the file was memory-mapped). In a child process, so
    // that a crash fails this test instead of ending the suite.
    void truncatedUnderTheReaderNamesTheFile() {
        if (!neardup::columnar::parquetCompiledIn()) QSKIP("Arrow support is not compiled in");
        for (const char* format : {"file", "stream"}) {
            const std::string victim = path(std::string("truncated.") + format + ".arrow");
            fs::copy_file(path(std::string("corpus.") + format + ".arrow"), victim,
                          fs::copy_options::overwrite_existing);
            const uint64_t size = fs::file_size(victim);
            const pid_t child = fork();
            QVERIFY(child >= 0);
            if (child == 0) {
                int code = 3;
                try {
                    neardup::columnar::ArrowBatchReader reader("text", "id", "");
                    reader.read(victim, size, 0);
                    fs::resize_file(victim, 64);
                    for (uint32_t batch = 5; batch > 0; --batch)
                        (void)reader.read(victim, size, batch);
                    code = 2;  // read without noticing
                } catch (const neardup::columnar::ColumnarError& e) {
                    code = std::string(e.what()).find(victim) != std::string::npos ? 0 : 4;
                } catch (...) {
                }
                _exit(code);
            }
            int status = 0;
            QCOMPARE(waitpid(child, &status, 0), child);
            QVERIFY2(!WIFSIGNALED(status), qPrintable(QStringLiteral("%1: killed by signal %2")
                                                          .arg(QLatin1String(format))
                                                          .arg(WTERMSIG(status))));
            QCOMPARE(WEXITSTATUS(status), 0);
        }
        // A run's Arrow input changed afterwards: export refuses it by name (its pin).
        const std::string input = path("pinned.stream.arrow");
        fs::copy_file(path("corpus.stream.arrow"), input, fs::copy_options::overwrite_existing);
        Result r = runOn({q(input)}, "pin", 1);
        QVERIFY2(r.code == 0, qPrintable(r.err));
        fs::resize_file(input, fs::file_size(input) / 2);
        r = runCli({QStringLiteral("export"), QStringLiteral("-p"), q(path("pin.ndw")),
                    QStringLiteral("--out-dir"), q(path("pin.out"))},
                   dir_);
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains(q(input)), qPrintable(r.err));
        QVERIFY(!fs::exists(path("pin.out/pinned.stream.arrow")));
    }
};

QTEST_GUILESS_MAIN(TestArrowInput)
#include "test_arrow_input.moc"
