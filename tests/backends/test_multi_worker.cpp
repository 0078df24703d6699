// The multi-worker scheduler (MultiWorkerBackend), driven by CPU workers: signatures, band keys
// and compared pairs identical to one CPU backend for 1, 2 and 3 workers, on uneven batches,
// empty ones and fewer documents than workers; the work split (by symbols, rows, comparison
// work); one thread per sub-backend; failures passed on; whole runs (in memory and spilled) with
// identical clusters, pairs and outputs; per-worker timings stored in worker_phases; the
// factory's --workers and --devices rules.
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <atomic>
#include <fstream>
#include <map>
#include <mutex>
#include <random>
#include <set>
#include <sstream>
#include <thread>

#include "backend_factory.h"
#include "cuda_support.h"
#include "engine_fixture.h"
#include "hash_math.h"
#include "lsh_buckets.h"
#include "memory_budget.h"
#include "multi_worker_backend.h"
#include "pipeline.h"
#include "run_compare.h"
#include "test_outputs.h"
#include "test_support.h"

using namespace neardup;
using testsupport::readFile;

namespace {

// Forwards to a CPU backend, recording which thread calls it and what it is given. It does not
// override computeBandKeyRange, so the Backend default (copying the rows) is exercised too.
class Recording final : public Backend {
  public:
    explicit Recording(int cpuThreads) : cpu_(makeCpuBackend(cpuThreads)) {}
    std::string description() const override { return "recording " + cpu_->description(); }
    void computeSignatures(const SymbolBatch& batch, const HashConstants& c,
                           uint32_t* out) override {
        note();
        documents += batch.size();
        symbols += batch.symbols.size();
        if (failNext.exchange(false)) throw std::runtime_error("worker failed on purpose");
        cpu_->computeSignatures(batch, c, out);
    }
    void computeBandKeys(const SignatureMatrix& s, const LshParams& lsh, uint64_t modulus,
                         uint64_t* keys) override {
        note();
        rows += s.size();
        cpu_->computeBandKeys(s, lsh, modulus, keys);
    }
    uint64_t compareBuckets(const BucketBatch& b, const CompareRequest& req,
                            std::vector<ScoredPair>& out) override {
        note();
        buckets += b.buckets();
        return cpu_->compareBuckets(b, req, out);
    }

    std::set<std::thread::id> threads;
    uint64_t documents = 0, symbols = 0, rows = 0, buckets = 0;
    std::atomic<bool> failNext{false};

  private:
    void note() {
        std::lock_guard<std::mutex> lock(mutex_);
        threads.insert(std::this_thread::get_id());
    }
    std::unique_ptr<Backend> cpu_;
    std::mutex mutex_;
};

std::unique_ptr<MultiWorkerBackend> cpuWorkers(int count) {
    std::vector<std::unique_ptr<Backend>> parts;
    for (int i = 0; i < count; ++i)
        parts.push_back(makeCpuBackend(1));
    return std::make_unique<MultiWorkerBackend>(std::move(parts));
}

// Symbol streams of very uneven length: many short documents, some empty or shorter than a
// shingle, a few very long ones, and near copies (a few symbols changed) so that buckets form.
SymbolBatch unevenBatch(std::size_t documents, uint64_t seed) {
    std::mt19937_64 rng(seed);
    SymbolBatch batch;
    std::vector<std::vector<uint32_t>> originals;
    for (std::size_t i = 0; i < documents; ++i) {
        std::vector<uint32_t> doc;
        const uint64_t pick = rng() % 100;
        if (!originals.empty() && pick < 35) {
            doc = originals[rng() % originals.size()];
            for (int e = 0; e < 3 && !doc.empty(); ++e)
                doc[rng() % doc.size()] = static_cast<uint32_t>('a' + rng() % 26);
        } else {
            const std::size_t length = pick < 40   ? rng() % 5  // empty or below a shingle
                                       : pick < 97 ? 50 + rng() % 400
                                                   : 20000 + rng() % 30000;  // very long
            for (std::size_t k = 0; k < length; ++k)
                doc.push_back(static_cast<uint32_t>('a' + rng() % 26));
            if (doc.size() >= 50) originals.push_back(doc);
        }
        batch.symbols.insert(batch.symbols.end(), doc.begin(), doc.end());
        batch.docEnd.push_back(batch.symbols.size());
    }
    return batch;
}

SignatureMatrix sign(Backend& backend, const SymbolBatch& batch, const HashConstants& c) {
    SignatureMatrix m;
    m.resize(batch.size(), c.hashes);
    backend.computeSignatures(batch, c, m.values.data());
    for (std::size_t i = 0; i < batch.size(); ++i) {
        m.digests[i] = hashmath::signatureDigest(m.row(i), c.hashes);
        m.eligible[i] = batch.docEnd[i] - batch.docBegin(i) >= static_cast<uint64_t>(c.ngram);
    }
    return m;
}

std::vector<uint64_t> bandKeys(Backend& backend, const SignatureMatrix& m, const LshParams& lsh,
                               uint64_t modulus) {
    std::vector<uint64_t> keys(m.size() * static_cast<std::size_t>(lsh.bands), 0xDEADu);
    backend.computeBandKeys(m, lsh, modulus, keys.data());
    return keys;
}

struct Compared {
    std::vector<ScoredPair> pairs;
    uint64_t decided = 0;
};

// Every band's buckets compared by `backend`; pairs sorted, as the pipeline does.
Compared compareAll(Backend& backend, const SignatureMatrix& m, const std::vector<uint64_t>& keys,
                    const LshParams& lsh, int minMatches) {
    Compared c;
    std::vector<BucketEntry> entries;
    BucketBatch batch;
    const CompareRequest req{&m, keys.data(), lsh.bands, minMatches};
    for (int band = 0; band < lsh.bands; ++band) {
        BandStats stats;
        buildBuckets(keys.data(), m.size(), lsh.bands, band, m.eligible, 1, entries, batch, stats);
        c.decided += backend.compareBuckets(batch, req, c.pairs);
    }
    std::sort(c.pairs.begin(), c.pairs.end());
    return c;
}

}  // namespace

class TestMultiWorker : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    std::string corpus_;
    std::string path(const std::string& name) const {
        return dir_.path().toStdString() + "/" + name;
    }

    ExportOptions outputs(const std::string& prefix) const {
        return testsupport::documentOutputs(dir_.path().toStdString(), prefix);
    }

  private slots:
    void initTestCase() {
        installCudaBackends();
        QVERIFY(dir_.isValid());
        // A generated corpus with planted near-duplicates, plus very long documents (one with
        // exact copies) and one-character ones, so that chunks and buckets are uneven.
        corpus_ = path("corpus.jsonl");
        testsupport::writeGeneratedCorpus(corpus_,
                                          {.documents = 2500, .seed = 5, .meanChars = 400});
        std::ofstream out(corpus_, std::ios::binary | std::ios::app);
        std::mt19937_64 rng(9);
        std::string longText;
        for (int w = 0; w < 20000; ++w)
            longText += "w" + std::to_string(rng() % 5000) + " ";
        for (int i = 0; i < 4; ++i)
            out << "{\"id\": \"long-" << i << "\", \"text\": \"" << longText << "\"}\n";
        for (int i = 0; i < 40; ++i)
            out << "{\"id\": \"tiny-" << i << "\", \"text\": \"" << char('a' + i % 26) << "\"}\n";
        std::string base;
        for (int w = 0; w < 60; ++w)
            base += "word" + std::to_string(w * 7919 % 1000) + " ";
        for (int i = 0; i < 200; ++i)
            out << "{\"id\": \"copy-" << i << "\", \"text\": \"" << base << "\"}\n";
    }

    void splitByWeightIsContiguousAndBalanced() {
        std::mt19937_64 rng(1);
        for (const std::size_t n : {0u, 1u, 2u, 5u, 1000u}) {
            std::vector<uint64_t> cumulative(n);
            uint64_t sum = 0, largest = 0;
            for (std::size_t i = 0; i < n; ++i) {
                const uint64_t w = i % 97 == 0 ? 5000 : rng() % 20;
                largest = std::max(largest, w);
                cumulative[i] = sum += w;
            }
            for (const std::size_t parts : {1u, 2u, 3u, 7u}) {
                const auto bounds = MultiWorkerBackend::splitByWeight(
                    n, parts, [&](std::size_t i) { return cumulative[i]; });
                QCOMPARE(bounds.size(), parts + 1);
                QCOMPARE(bounds.front(), std::size_t{0});
                QCOMPARE(bounds.back(), n);
                for (std::size_t p = 0; p < parts; ++p) {
                    QVERIFY(bounds[p] <= bounds[p + 1]);
                    const uint64_t before = bounds[p] ? cumulative[bounds[p] - 1] : 0;
                    const uint64_t weight =
                        bounds[p + 1] > bounds[p] ? cumulative[bounds[p + 1] - 1] - before : 0;
                    // No part carries more than its share plus one item.
                    QVERIFY2(weight <= sum / parts + largest + 1,
                             qPrintable(QStringLiteral("n=%1 parts=%2 part %3 weight %4")
                                            .arg(n)
                                            .arg(parts)
                                            .arg(p)
                                            .arg(weight)));
                }
            }
        }
    }

    // Signatures, band keys (exact and modulo K, hash and sum keys, sub-ranges) and compared
    // pairs with their decided counts: byte for byte those of one CPU backend.
    void identicalToOneBackend_data() {
        QTest::addColumn<int>("workers");
        QTest::addColumn<int>("documents");
        QTest::newRow("1 worker") << 1 << 600;
        QTest::newRow("2 workers") << 2 << 600;
        QTest::newRow("3 workers") << 3 << 600;
        QTest::newRow("3 workers, 2 documents") << 3 << 2;
        QTest::newRow("3 workers, 1 document") << 3 << 1;
        QTest::newRow("2 workers, empty") << 2 << 0;
    }
    void identicalToOneBackend() {
        QFETCH(int, workers);
        QFETCH(int, documents);
        const SymbolBatch batch = unevenBatch(static_cast<std::size_t>(documents), 7);
        SignatureParams sp;
        sp.hashes = 64;
        const HashConstants c = HashConstants::derive(sp);
        auto reference = makeCpuBackend(2);
        auto multi = cpuWorkers(workers);
        const SignatureMatrix expected = sign(*reference, batch, c);
        const SignatureMatrix got = sign(*multi, batch, c);
        QCOMPARE(got.values, expected.values);

        for (const auto scheme : {BandKeyScheme::Hash, BandKeyScheme::Sum}) {
            LshParams lsh;
            lsh.bands = 8;
            lsh.rows = 8;
            lsh.scheme = scheme;
            for (const uint64_t modulus : {uint64_t{0}, uint64_t{97}})
                QCOMPARE(bandKeys(*multi, got, lsh, modulus),
                         bandKeys(*reference, expected, lsh, modulus));
            // A sub-range, as the spilled comparison and other callers may ask for.
            const std::vector<uint64_t> all = bandKeys(*reference, expected, lsh, 0);
            if (got.size() >= 3) {
                const std::size_t first = 1, count = got.size() - 2;
                std::vector<uint64_t> part(count * 8);
                multi->computeBandKeyRange(got, first, count, lsh, 0, part.data());
                QVERIFY(std::equal(part.begin(), part.end(), all.begin() + 8));
            }
        }

        LshParams lsh;
        lsh.bands = 16;
        lsh.rows = 4;
        const std::vector<uint64_t> keys = bandKeys(*reference, expected, lsh, 0);
        const Compared want = compareAll(*reference, expected, keys, lsh, 32);
        const Compared have = compareAll(*multi, got, keys, lsh, 32);
        QCOMPARE(have.decided, want.decided);
        testsupport::comparePairs(have.pairs, want.pairs);
        if (documents == 600) QVERIFY(want.pairs.size() > 50);  // the batch has near copies

        const std::vector<WorkerTiming> timings = multi->takeWorkerTimings();
        if (documents == 0) return;
        std::map<std::string, uint64_t> items;
        for (const WorkerTiming& t : timings) {
            QVERIFY(t.worker >= 0 && t.worker < workers);
            QVERIFY(t.seconds >= 0);
            items[t.phase] += t.items;
        }
        QCOMPARE(timings.size(), std::size_t(3 * workers));  // every worker, every phase
        QCOMPARE(items["signatures"], uint64_t(documents));
        QCOMPARE(items["compare"], want.decided);
        QVERIFY(multi->takeWorkerTimings().empty());  // taken, so reset
    }

    // Documents are split by symbols, not by count: with a few very long documents the parts'
    // symbol counts stay close while their document counts differ.
    void signaturesSplitBySymbols() {
        SymbolBatch batch;
        auto add = [&](std::size_t length) {
            batch.symbols.resize(batch.symbols.size() + length, 'x');
            batch.docEnd.push_back(batch.symbols.size());
        };
        add(30000);
        for (int i = 0; i < 300; ++i)
            add(100);
        std::vector<std::unique_ptr<Backend>> parts;
        std::vector<Recording*> recorders;
        for (int i = 0; i < 2; ++i) {
            auto r = std::make_unique<Recording>(1);
            recorders.push_back(r.get());
            parts.push_back(std::move(r));
        }
        MultiWorkerBackend multi(std::move(parts));
        const HashConstants c = HashConstants::derive(SignatureParams{});
        std::vector<uint32_t> out(batch.size() * 128);
        multi.computeSignatures(batch, c, out.data());
        QCOMPARE(recorders[0]->documents + recorders[1]->documents, uint64_t{301});
        QCOMPARE(recorders[0]->symbols + recorders[1]->symbols, uint64_t{60000});
        // One long document (30000 symbols) plus about 20 short ones, versus the rest: equal
        // work (symbols plus a fixed 16 a document, within one document's), very unequal
        // document counts.
        QVERIFY2(recorders[0]->documents <= 25,
                 qPrintable(QString::number(recorders[0]->documents)));
        QVERIFY(recorders[1]->documents >= 275);
        auto work = [](const Recording* r) {
            return static_cast<int64_t>(r->symbols + 16 * r->documents);
        };
        const int64_t gap = work(recorders[0]) - work(recorders[1]);
        QVERIFY2(std::abs(gap) <= 2 * (100 + 16), qPrintable(QString::number(gap)));
        const auto timings = multi.takeWorkerTimings();
        QCOMPARE(timings.size(), std::size_t{2});
        QCOMPARE(timings[0].bytes, recorders[0]->symbols * 4);
        QCOMPARE(timings[1].items, recorders[1]->documents);
    }

    // Every sub-backend is always called from one thread of its own (a GPU context stays put),
    // and a failure in a worker reaches the caller, after which the backend still works.
    void oneThreadPerWorkerAndFailures() {
        std::vector<std::unique_ptr<Backend>> parts;
        std::vector<Recording*> recorders;
        for (int i = 0; i < 3; ++i) {
            auto r = std::make_unique<Recording>(1);
            recorders.push_back(r.get());
            parts.push_back(std::move(r));
        }
        MultiWorkerBackend multi(std::move(parts), {"a", "b", "c"});
        QCOMPARE(multi.description(), std::string("3 workers: a, b, c"));
        const SymbolBatch batch = unevenBatch(300, 3);
        SignatureParams sp;
        sp.hashes = 32;
        const HashConstants c = HashConstants::derive(sp);
        LshParams lsh;
        lsh.bands = 4;
        lsh.rows = 8;
        SignatureMatrix m;
        for (int round = 0; round < 3; ++round) {
            m = sign(multi, batch, c);
            bandKeys(multi, m, lsh, 0);
        }
        // Band keys through the Backend default (copying rows) equal the CPU backend's.
        auto reference = makeCpuBackend(1);
        QCOMPARE(bandKeys(multi, m, lsh, 0), bandKeys(*reference, m, lsh, 0));
        std::set<std::thread::id> seen;
        for (Recording* r : recorders) {
            QCOMPARE(r->threads.size(), std::size_t{1});
            QVERIFY(*r->threads.begin() != std::this_thread::get_id());
            seen.insert(*r->threads.begin());
            QVERIFY(r->rows > 0);
        }
        QCOMPARE(seen.size(), std::size_t{3});

        recorders[1]->failNext = true;
        std::vector<uint32_t> out(batch.size() * 32);
        QVERIFY_THROWS_EXCEPTION(std::runtime_error, multi.computeSignatures(batch, c, out.data()));
        multi.computeSignatures(batch, c, out.data());
        QVERIFY(std::equal(out.begin(), out.end(), m.values.begin()));
        const auto timings = multi.takeWorkerTimings();
        QVERIFY(!timings.empty());
        QCOMPARE(timings.front().label, std::string("a"));
    }

    // Whole runs with 1, 2 and 3 CPU workers give the clusters, pairs, statistics and output
    // files of the plain CPU backend, in memory and spilled to disk (several partitions, under a
    // budget just above the corpus's per-document floor of about 285 KiB); the
    // project stores each worker's time per phase.
    void pipelineIdenticalForAnyWorkerCount_data() {
        QTest::addColumn<QString>("budget");
        QTest::addColumn<int>("verify");
        QTest::newRow("in memory") << QString() << 1;
        QTest::newRow("spilled 400K") << QStringLiteral("400K") << 0;
    }
    void pipelineIdenticalForAnyWorkerCount() {
        QFETCH(QString, budget);
        QFETCH(int, verify);
        const std::string tag = QTest::currentDataTag();
        RunParams params;
        params.threads = 2;
        params.reader.chunkBytes = std::size_t{64} << 10;  // several batches
        params.compare.verify = static_cast<VerifyMode>(verify);
        params.memoryBudget =
            budget.isEmpty() ? uint64_t{1} << 40 : *parseByteSize(budget.toStdString());
        auto run = [&](Backend& backend, const std::string& name) {
            ProjectStore store(path(name + ".ndw"));
            Pipeline pipeline(store, backend);
            return pipeline.run({corpus_}, params, outputs(name));
        };
        auto single = makeCpuBackend(2);
        const RunResult reference = run(*single, tag + " reference");
        QVERIFY(reference.counts.removed > 200);
        QCOMPARE(reference.spilled, !budget.isEmpty());
        QVERIFY(reference.workerPhases.empty());
        for (int workers = 1; workers <= 3; ++workers) {
            const std::string name = tag + " " + std::to_string(workers);
            BackendOptions o;
            o.name = "cpu";
            o.threads = 2;
            o.workers = workers;
            std::string reason;
            auto backend = makeBackend(o, &reason);
            const RunResult r = run(*backend, name);
            testsupport::compareRuns(reference, r);
            for (const char* ext : {".jsonl", ".kept", ".removed", ".clusters"})
                QVERIFY2(readFile(path(name + ext)) == readFile(path(tag + " reference" + ext)),
                         (name + ext).c_str());
            if (workers == 1) {
                QCOMPARE(backend->description(), std::string("cpu (2 threads)"));
                QVERIFY(r.workerPhases.empty());
                continue;
            }
            // Two threads over two or three workers: one thread each.
            QCOMPARE(r.backend, std::to_string(workers) + " workers: cpu (1 thread) x" +
                                    std::to_string(workers));
            QVERIFY2(reason == "cpu: requested (" + std::to_string(workers) + " workers)",
                     reason.c_str());
            ProjectStore store(path(name + ".ndw"));
            const std::vector<WorkerTiming> stored = store.loadWorkerPhases(r.runId);
            QCOMPARE(stored.size(), r.workerPhases.size());
            QCOMPARE(stored.size(), std::size_t(3 * workers));
            std::map<std::string, uint64_t> items;
            std::map<std::string, int> rows;
            for (const WorkerTiming& t : stored) {
                items[t.phase] += t.items;
                ++rows[t.phase];
                if (t.phase != "compare") QVERIFY(t.items > 0);  // every worker had a part
                QVERIFY(t.label.rfind("worker " + std::to_string(t.worker) + ": cpu", 0) == 0);
            }
            QCOMPARE(rows["signatures"], workers);
            QCOMPARE(rows["buckets"], workers);
            QCOMPARE(rows["compare"], workers);
            QCOMPARE(items["signatures"], r.counts.documents);
            if (!r.spilled) {
                QCOMPARE(items["buckets"], r.counts.documents);
                QCOMPARE(items["compare"], r.counts.candidatePairs);
            }
            QCOMPARE(store.loadRun(r.runId).workerPhases.size(), stored.size());
        }
    }

    void factoryRules() {
        BackendOptions o;
        o.name = "cpu";
        o.threads = 5;
        o.workers = 3;
        std::string reason;
        auto backend = makeBackend(o, &reason);
        // 5 threads over 3 workers: 2, 2, 1.
        QCOMPARE(backend->description(),
                 std::string("3 workers: cpu (2 threads), cpu (2 threads), cpu (1 thread)"));
        o.threads = 1;  // fewer threads than workers: one each
        QCOMPARE(makeBackend(o)->description(), std::string("3 workers: cpu (1 thread) x3"));
        auto refused = [](const BackendOptions& options, const char* part) {
            try {
                makeBackend(options);
                QFAIL(qPrintable(QStringLiteral("accepted: %1").arg(QLatin1String(part))));
            } catch (const BackendError& e) {
                QVERIFY2(std::string(e.what()).find(part) != std::string::npos, e.what());
            }
        };
        o.workers = 0;
        refused(o, "workers must be between 1 and 64");
        o.workers = 65;
        refused(o, "workers must be between 1 and 64");
        o.workers = 1;
        o.devices = "0";
        refused(o, "cannot be used with the cpu backend");
        o.name = "auto";
        for (const char* bad : {"x", "0,,1", "1,1", "-1", "0 1"}) {
            o.devices = bad;
            refused(o, "devices must be all or distinct device numbers");
        }
        o.name = "cuda";
        o.devices.clear();
        o.workers = 2;
        const GpuInventory gpus = queryGpus();
        if (gpus.devices.empty()) {
            refused(o, "backend cuda: ");
        } else {
            // --workers N with GPUs: N workers share each GPU.
            backend = makeBackend(o, &reason);
            QVERIFY2(backend->description().rfind("2 workers: cuda:", 0) == 0,
                     backend->description().c_str());
            QVERIFY2(reason.find("2 workers per GPU") != std::string::npos, reason.c_str());
        }

        const GpuInventory inv = queryGpus();
        o.name = "auto";
        o.workers = 2;
        o.devices = "0";
        if (inv.devices.empty()) {
            // Without a GPU, auto falls back to the CPU workers and says why.
            backend = makeBackend(o, &reason);
            QCOMPARE(backend->description(), std::string("2 workers: cpu (1 thread) x2"));
            QVERIFY2(reason.rfind("cpu: ", 0) == 0, reason.c_str());
            QVERIFY2(reason.find(inv.status) != std::string::npos, reason.c_str());
            QVERIFY2(reason.find("; devices ignored") != std::string::npos, reason.c_str());
        } else {
            o.devices = "63";
            refused(o, "devices: no usable GPU 63; usable devices: ");
        }

        // The run parameters check the same rules, for a usage error before anything starts.
        RunParams p;
        p.workers = 0;
        QVERIFY(validate(p).find("--workers") != std::string::npos);
        p.workers = 64;
        QVERIFY(validate(p).empty());
        p.backend = "cpu";
        p.devices = "0";
        QVERIFY(validate(p).find("--devices") != std::string::npos);
        p.backend = "auto";
        QVERIFY(validate(p).empty());
        p.devices = "all";
        QVERIFY(validate(p).empty());
        p.devices = "0,x";
        QVERIFY(validate(p).find("--devices") != std::string::npos);
        bool all = false;
        std::vector<int> list;
        QVERIFY(parseDeviceList("3,0,1", all, list));
        QVERIFY(!all);
        QCOMPARE(list, (std::vector<int>{3, 0, 1}));
        QVERIFY(!parseDeviceList("", all, list));
    }
};

QTEST_GUILESS_MAIN(TestMultiWorker)
#include "test_multi_worker.moc"
