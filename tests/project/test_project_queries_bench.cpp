// What the workbench does on a large project, timed: the pipeline, opening, cluster pages and
// searches, the threshold slider's loads, an audit decision, the listing at other thresholds
// and a text search. Not a test: it
// does nothing unless NEARDUP_QUERIES_BENCH_DOCS is set (the workbench queries' tests are in
// test_project_queries.cpp and test_project_queries_audit.cpp).
#include <QElapsedTimer>
#include <QTemporaryDir>
#include <QTest>

#include "clustering.h"
#include "decisions.h"
#include "document_fetcher.h"
#include "engine_fixture.h"
#include "pipeline.h"
#include "project_queries.h"

using namespace neardup;

class TestProjectQueriesBench : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;

    std::string path(const char* name) const {
        return (dir_.path() + QLatin1Char('/') + QLatin1String(name)).toStdString();
    }

  private slots:
    void initTestCase() { QVERIFY(dir_.isValid()); }

    // What the workbench does on a large project, timed. Not a test: set
    // NEARDUP_QUERIES_BENCH_DOCS=100000 to run it (about a minute on 2 cores).
    void benchmarkLargeProject() {
        const qulonglong n = qEnvironmentVariable("NEARDUP_QUERIES_BENCH_DOCS").toULongLong();
        if (n == 0) {
            qInfo("set NEARDUP_QUERIES_BENCH_DOCS=100000 to time the workbench's queries");
            return;
        }
        const std::string corpus = path("bench.jsonl"), project = path("bench.ndw");
        testsupport::writeGeneratedCorpus(corpus, {.documents = n, .seed = 2, .meanChars = 600});
        QElapsedTimer t;
        t.start();
        RunResult run;
        {
            ProjectStore store(project);
            auto backend = makeCpuBackend(0);
            Pipeline pipeline(store, *backend);
            run = pipeline.run({corpus}, RunParams{});
        }
        qInfo("pipeline on %llu documents: %lld ms; %llu clusters, %llu stored pairs", n,
              t.restart(), qulonglong(run.counts.clusters), qulonglong(run.counts.storedPairs));
        {
            ProjectStore store(project);
            const auto runs = store.listRuns();
            ProjectQueries q(project);
            const RunInfo info = q.runInfo(runs.back().runId);
            qInfo("open: ProjectStore + listRuns + ProjectQueries + runInfo: %lld ms", t.restart());
            const uint64_t total = q.clusterCount(info.runId, {});
            qInfo("cluster summary (first listing) + count: %lld ms", t.restart());
            q.clusters(info.runId, {}, ClusterSort::Size, true, 0, 200);
            qInfo("first page by size: %lld ms", t.restart());
            q.clusters(info.runId, {}, ClusterSort::Size, true, total * 9 / 10, 200);
            qInfo("page at 90%% by size: %lld ms", t.restart());
            q.clusters(info.runId, {}, ClusterSort::MinEstimated, false, 0, 200);
            qInfo("first page by min similarity: %lld ms", t.restart());
            ClusterFilter f;
            f.idSearch = "doc-0000";
            q.clusterCount(info.runId, f);
            q.clusters(info.runId, f, ClusterSort::Size, true, 0, 200);
            qInfo("id search count + page: %lld ms", t.restart());
            const auto top = q.clusters(info.runId, {}, ClusterSort::Size, true, 0, 1);
            q.clusterMembers(info.runId, top.front().cluster);
            q.clusterPairs(info.runId, top.front().cluster);
            qInfo("members + pairs of the largest cluster (%llu): %lld ms",
                  qulonglong(top.front().size), t.restart());
            const auto pairs = store.loadPairs(info.runId);
            DocumentTable docs;
            store.loadDataset(info.datasetId, &docs);
            qInfo("threshold slider, first use: load pairs + documents: %lld ms", t.restart());
            for (const double threshold : {0.6, 0.8, 0.95}) {
                RunResult r;
                clusterDocuments(pairs, info.params.signature.hashes, threshold, KeepPolicy::First,
                                 info.params.decide, docs, r);
                qInfo("re-cluster at %.2f: %lld ms (%llu clusters)", threshold, t.restart(),
                      qulonglong(r.counts.clusters));
            }
            // An audit decision: recorded, then the audited listing is rebuilt.
            const auto members = q.clusterMembers(info.runId, top.front().cluster);
            recordDecision(store, info.datasetId, DecisionKind::KeepInstead,
                           members.back().docIndex);
            qInfo("record a decision: %lld ms", t.restart());
            q.clusterCount(info.runId, {});
            q.clusters(info.runId, {}, ClusterSort::Size, true, 0, 200);
            qInfo(
                "audited listing rebuilt (re-cluster + temp tables + summary) + first page: "
                "%lld ms",
                t.restart());
            q.clusters(info.runId, {}, ClusterSort::Size, true, total * 9 / 10, 200);
            qInfo("audited page at 90%% by size: %lld ms", t.restart());
            // The threshold slider moves the table: the whole run re-clustered at another
            // threshold (with the decision), its temp tables and summary, and a first page.
            for (const double threshold : {0.6, 0.95}) {
                ClusterFilter at;
                at.threshold = threshold;
                const uint64_t count = q.clusterCount(info.runId, at);
                q.clusters(info.runId, at, ClusterSort::Size, true, 0, 200);
                qInfo(
                    "listing at %.2f (whole run re-clustered) + first page: %lld ms (%llu "
                    "clusters)",
                    threshold, t.restart(), qulonglong(count));
            }
            q.clusterCount(info.runId, {});
            q.clusters(info.runId, {}, ClusterSort::Size, true, 0, 200);
            qInfo("back at the run's threshold + first page: %lld ms", t.restart());
            const auto clustered = q.clusteredDocuments(info.runId);
            const DatasetSource src = q.datasetSource(info.datasetId);
            DocumentFetcher fetcher(src.files, src.reader);
            t.restart();
            const TextSearchResult found = searchTexts(fetcher, clustered, "zzqx");
            qInfo("text search over %zu clustered documents: %lld ms (%zu matches)",
                  clustered.size(), t.restart(), found.matches.size());
        }
    }
};

QTEST_GUILESS_MAIN(TestProjectQueriesBench)
#include "test_project_queries_bench.moc"
