// What an interrupted write of a read leaves for the next one: a dataset save interrupted
// midway rolls back whole, and a read checkpoint restores its records up to a torn last one, a
// changed byte or a touched input, restores nothing of an older version, and completed with the
// rows read after its last record becomes the signature cache itself.
#include <QTest>

#include <fstream>

#include "kill_resume_fixture.h"
#include "signature_file.h"

namespace {

// Appends document `line` of a checkpointed read: its row of the table, named `id`, and a
// signature row of four values, line * 100 + k.
void addCheckpointRow(neardup::DocumentTable& docs, neardup::SignatureMatrix& sigs, uint64_t line,
                      const std::string& id) {
    docs.append(0, line, line * 10, 9, 9, 0.5, id);
    for (uint32_t k = 0; k < 4; ++k)
        sigs.values.push_back(static_cast<uint32_t>(line * 100 + k));
    sigs.digests.push_back(line);
    sigs.eligible.push_back(1);
}

// A read that checkpoints after every chunk, into `sidecar`, of one input file whose
// modification time is `mtime` (another time is another input), four hashes, cache key "key".
struct CheckpointedRead {
    CheckpointedRead(std::string dir, const std::string& input, int64_t mtime)
        : sidecar(std::move(dir)), files{{input, 100, mtime, {}}} {
        qputenv("NEARDUP_CHECKPOINT_BYTES", "1");
        std::filesystem::create_directories(sidecar);
        sigs.resize(0, 4);
    }
    ~CheckpointedRead() { qputenv("NEARDUP_CHECKPOINT_BYTES", ""); }
    CheckpointedRead(const CheckpointedRead&) = delete;
    CheckpointedRead& operator=(const CheckpointedRead&) = delete;
    neardup::ReadCheckpoint checkpoint() const {
        return neardup::ReadCheckpoint(sidecar, files, reader, "key", 4);
    }
    std::string sidecar;
    std::vector<neardup::InputFile> files;
    neardup::ReaderOptions reader;
    neardup::DocumentTable docs;
    neardup::SignatureMatrix sigs;
};

}  // namespace

class TestKillResumeCheckpoint : public KillResumeFixture {
    Q_OBJECT

  private slots:
    void initTestCase() { QVERIFY(dir_.isValid()); }

    void savingADatasetCanBeInterrupted() {
        neardup::ProjectStore store(path("cancel.ndw"));
        neardup::DatasetRecord dataset;
        neardup::DocumentTable docs;
        for (uint64_t i = 0; i < 20000; ++i)
            docs.append(0, i + 1, i * 100, 99, 99, 0.0, "d" + std::to_string(i));
        dataset.linesRead = docs.size();
        int calls = 0;
        store.setInterruptCheck([&calls] {
            if (++calls == 3) throw std::runtime_error("cancelled");
        });
        QVERIFY_THROWS_EXCEPTION(std::runtime_error, store.saveDataset(dataset, docs));
        QCOMPARE(calls, 3);  // before the first row, then every 4096 rows
        store.setInterruptCheck({});
        QCOMPARE(sqlRows(path("cancel.ndw"), "SELECT count(*) FROM datasets"),
                 QStringList{QStringLiteral("0")});
        QCOMPARE(sqlRows(path("cancel.ndw"), "SELECT count(*) FROM documents"),
                 QStringList{QStringLiteral("0")});
        QVERIFY(store.saveDataset(dataset, docs) > 0);
    }

    void checkpointSurvivesATornRecord() {
        // Two records, the second cut short as by a kill while appending it: the first is
        // restored whole, with its position, counts and rejections.
        CheckpointedRead read(path("torn.ndw.d"), path("big.jsonl"), 7);
        const std::string& sidecar = read.sidecar;
        neardup::DocumentTable& docs = read.docs;
        neardup::SignatureMatrix& sigs = read.sigs;
        neardup::DatasetRecord dataset;
        auto add = [&](uint64_t line) {
            addCheckpointRow(docs, sigs, line, "id-" + std::to_string(line));
        };
        neardup::LineChunk chunk;
        neardup::ParsedChunk parsed;
        {
            neardup::ReadCheckpoint writer = read.checkpoint();
            add(1);
            add(2);
            chunk.data = std::string(20, 'x');
            parsed.lines = 3;  // two documents and a rejected line
            neardup::Rejection bad;
            bad.reason = neardup::RejectReason::MissingText;
            bad.line = 3;
            bad.detail = "no text";
            parsed.rejections = {bad};
            dataset.linesRead = 3;
            writer.afterChunk(chunk, parsed, docs, sigs, dataset, 30);
            // Records are written on a thread of their own; records() waits for the one in
            // flight (a record still being written would defer the next one to a later chunk).
            QCOMPARE(writer.records(), 1);
            add(4);
            chunk.baseOffset = 30;
            chunk.firstLine = 4;
            parsed.lines = 1;
            parsed.rejections.clear();
            dataset.linesRead = 4;
            writer.afterChunk(chunk, parsed, docs, sigs, dataset, 40);
            QCOMPARE(writer.records(), 2);
        }
        const QStringList written = matching(sidecar, R"(checkpoint-.*\.bin)");
        QCOMPARE(written.size(), 1);
        const std::string file = sidecar + "/" + written[0].toStdString();
        fs::resize_file(file, fs::file_size(file) - 5);
        neardup::ReadCheckpoint reader2 = read.checkpoint();
        neardup::DocumentTable back;
        neardup::SignatureMatrix backSigs;
        neardup::RejectionLog log;
        neardup::DatasetRecord counts;
        uint64_t bytes = 0;
        const auto at = reader2.restore(back, backSigs, log, counts, bytes);
        qputenv("NEARDUP_CHECKPOINT_BYTES", "");
        QVERIFY(at.has_value());
        QCOMPARE(at->file, uint32_t{0});
        QCOMPARE(at->offset, uint64_t{20});
        QCOMPARE(at->line, uint64_t{4});
        QCOMPARE(bytes, uint64_t{30});
        QCOMPARE(counts.linesRead, uint64_t{3});
        QCOMPARE(back.size(), std::size_t{2});
        QCOMPARE(std::string(back.id(1)), std::string("id-2"));
        QCOMPARE(backSigs.values, (std::vector<uint32_t>{100, 101, 102, 103, 200, 201, 202, 203}));
        QCOMPARE(log.total(), uint64_t{1});
        QCOMPARE(log.samples.at(0).detail, std::string("no text"));
        // Another key (a touched input) does not see it.
        const std::vector<neardup::InputFile> touched{{path("big.jsonl"), 100, 8, {}}};
        neardup::ReadCheckpoint other(sidecar, touched, read.reader, "key", 4);
        QVERIFY(!other.restore(back, backSigs, log, counts, bytes).has_value());
    }

    void checkpointRecordsAreCheckedAndVersioned() {
        // Three records from one writer (its record buffer reused for each): all are restored,
        // each with only its own rows. A changed byte in the last one ends the usable records
        // before it; a file of an older version (its magic) is not restored at all.
        CheckpointedRead read(path("checked.ndw.d"), path("big.jsonl"), 9);
        const std::string& sidecar = read.sidecar;
        neardup::DocumentTable& docs = read.docs;
        neardup::SignatureMatrix& sigs = read.sigs;
        neardup::DatasetRecord dataset;
        neardup::LineChunk chunk;
        neardup::ParsedChunk parsed;
        {
            neardup::ReadCheckpoint writer = read.checkpoint();
            for (uint64_t line = 1; line <= 3; ++line) {
                addCheckpointRow(docs, sigs, line, std::string(line * 100, 'a'));
                chunk.baseOffset = (line - 1) * 10;
                chunk.firstLine = line;
                chunk.data = std::string(10, 'x');
                parsed.lines = 1;
                dataset.linesRead = line;
                writer.afterChunk(chunk, parsed, docs, sigs, dataset, line * 10);
                QCOMPARE(writer.records(), static_cast<int>(line));
            }
        }
        const QStringList written = matching(sidecar, R"(checkpoint-.*\.bin)");
        QCOMPARE(written.size(), 1);
        const std::string file = sidecar + "/" + written[0].toStdString();
        // What a new read restores from the checkpoint as it is now.
        struct Restored {
            std::optional<neardup::ReadPosition> at;
            neardup::DocumentTable docs;
            neardup::SignatureMatrix sigs;
        };
        auto restore = [&] {
            Restored r;
            neardup::ReadCheckpoint checkpoint = read.checkpoint();
            neardup::RejectionLog log;
            neardup::DatasetRecord counts;
            uint64_t bytes = 0;
            r.at = checkpoint.restore(r.docs, r.sigs, log, counts, bytes);
            return r;
        };
        auto patch = [](const std::string& name, uint64_t at, char byte) {
            std::fstream f(name, std::ios::in | std::ios::out | std::ios::binary);
            f.seekp(static_cast<std::streamoff>(at));
            f.put(byte);
        };
        Restored r = restore();
        QVERIFY(r.at.has_value());
        QCOMPARE(r.at->offset, uint64_t{30});
        QCOMPARE(r.docs.size(), std::size_t{3});
        QCOMPARE(std::string(r.docs.id(2)), std::string(300, 'a'));
        QCOMPARE(r.sigs.values, (std::vector<uint32_t>{100, 101, 102, 103, 200, 201, 202, 203, 300,
                                                       301, 302, 303}));
        // The last record ends with the last id, then its digests, flags, no rejections and
        // the checksum: change a byte of its last id.
        patch(file, fs::file_size(file) - 8 - 8 - 1 - 8 - 4, '\x7f');
        r = restore();
        QVERIFY(r.at.has_value());
        QCOMPARE(r.at->offset, uint64_t{20});
        QCOMPARE(r.docs.size(), std::size_t{2});
        // The values are in a file of their own, each row where the signature cache has it
        // (after a 28-byte header and the cache key), checked by their record: a changed value
        // of the second row leaves the first record only.
        const QStringList values = matching(sidecar, R"(checkpoint-.*\.sig)");
        QCOMPARE(values.size(), 1);
        patch(sidecar + "/" + values[0].toStdString(), 28 + 3 + 4 * 4, '\x7f');
        r = restore();
        QVERIFY(r.at.has_value());
        QCOMPARE(r.at->offset, uint64_t{10});
        QCOMPARE(r.docs.size(), std::size_t{1});
        QCOMPARE(r.sigs.values, (std::vector<uint32_t>{100, 101, 102, 103}));
        patch(file, 7, '2');  // "NDWCKP02": values inside the records
        r = restore();
        QVERIFY(!r.at.has_value());
        QCOMPARE(r.docs.size(), std::size_t{0});
        qputenv("NEARDUP_CHECKPOINT_BYTES", "");
    }

    void checkpointValuesBecomeTheCache() {
        // Two records, then a row read after the last one: the values' file, completed with that
        // row, the header, digests and flags, is the very cache file sigfile::write makes of the
        // same signatures, under the cache's name; no checkpoint file is left.
        CheckpointedRead read(path("kept.ndw.d"), path("big.jsonl"), 11);
        neardup::LineChunk chunk;
        chunk.data = std::string(10, 'x');
        neardup::ParsedChunk parsed;
        parsed.lines = 1;
        neardup::ReadCheckpoint checkpoint = read.checkpoint();
        for (uint64_t line = 1; line <= 2; ++line) {
            addCheckpointRow(read.docs, read.sigs, line, "id");
            chunk.baseOffset = (line - 1) * 10;
            checkpoint.afterChunk(chunk, parsed, read.docs, read.sigs, neardup::DatasetRecord{},
                                  line * 10);
            QCOMPARE(checkpoint.records(), static_cast<int>(line));
        }
        addCheckpointRow(read.docs, read.sigs, 3, "id");
        QVERIFY(!checkpoint.keepValuesAs("another key", read.sigs, read.sidecar + "/other.bin"));
        const std::string cache = read.sidecar + "/cache.bin";
        QVERIFY(checkpoint.keepValuesAs("key", read.sigs, cache));
        qputenv("NEARDUP_CHECKPOINT_BYTES", "");
        QVERIFY(readFile(cache) == neardup::sigfile::encode("key", read.sigs));
        QCOMPARE(matching(read.sidecar, R"(checkpoint-.*)"), QStringList{});
        neardup::SignatureMatrix back;
        QVERIFY(neardup::sigfile::read(cache, "key", 3, 4, back));
        QCOMPARE(back.values, read.sigs.values);
    }
};

QTEST_GUILESS_MAIN(TestKillResumeCheckpoint)
#include "test_kill_resume_checkpoint.moc"
