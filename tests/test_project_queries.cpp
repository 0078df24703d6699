// Read-only queries behind the workbench's views, checked against the RunResult the pipeline
// returned for the same run: cluster pages, sorting, search, members, pairs, bucket statistics,
// document locations and fetching, and that querying never modifies the project.
#include <QCryptographicHash>
#include <QElapsedTimer>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <set>

#include "chain_corpus.h"
#include "clustering.h"
#include "component_chain.h"
#include "corpus_generator.h"
#include "decisions.h"
#include "document_fetcher.h"
#include "pipeline.h"
#include "project_copy.h"
#include "project_queries.h"

using namespace neardup;

namespace {

QByteArray fileHash(const std::string& path) {
    QFile f(QString::fromStdString(path));
    if (!f.open(QIODevice::ReadOnly)) return {};
    return QCryptographicHash::hash(f.readAll(), QCryptographicHash::Sha256);
}

bool near(double a, double b) {
    return std::abs(a - b) < 1e-9;
}

}  // namespace

class TestProjectQueries : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    std::string corpus_, project_;
    GroundTruth truth_;
    RunResult run_;

    uint64_t clusteredCount() const {
        return uint64_t(std::count_if(run_.clusterOf.begin(), run_.clusterOf.end(),
                                      [](uint32_t c) { return c != RunResult::kNoCluster; }));
    }
    DocumentTable docs_;
    DatasetRecord dataset_;

    std::string path(const char* name) const {
        return (dir_.path() + QLatin1Char('/') + QLatin1String(name)).toStdString();
    }

    // diameterSortAndFlaggedFilter on one listing, which has `flaggedWanted` flagged clusters.
    void checkDiameterListing(const std::string& project, int64_t runId, double threshold,
                              std::size_t flaggedWanted) {
        ProjectQueries q(project);
        QVERIFY(!q.storedDiameters(runId, threshold));
        StoredDiameters got;
        {
            const ProjectStore store(project, ProjectStore::Mode::ReadOnly);
            got = listingDiameters(q, store, runId, threshold);
            ComponentDiameters measure;
            const std::vector<ComponentDiameter> want = measure.measureFromCache(
                store, runId, q.listingMembers(runId, threshold), threshold);
            QVERIFY2(got.why.empty(), got.why.c_str());
            QCOMPARE(got.components.size(), want.size());
            for (std::size_t i = 0; i < want.size(); ++i) {
                QCOMPARE(got.components[i].cluster, want[i].cluster);
                QCOMPARE(got.components[i].diameter, want[i].diameter);
                QCOMPARE(got.components[i].farthest, want[i].farthest);
                QCOMPARE(got.components[i].chain, want[i].chain);
            }
        }
        const std::optional<StoredDiameters> stored = q.storedDiameters(runId, threshold);
        QVERIFY(stored);
        QCOMPARE(stored->components.size(), got.components.size());
        for (std::size_t i = 0; i < got.components.size(); ++i) {
            QCOMPARE(stored->components[i].cluster, got.components[i].cluster);
            QCOMPARE(stored->components[i].diameter, got.components[i].diameter);
            QCOMPARE(stored->components[i].farthest, got.components[i].farthest);
            QCOMPARE(stored->components[i].large, got.components[i].large);
        }
        ClusterFilter all;
        all.threshold = threshold;
        QCOMPARE(q.clusterCount(runId, all), uint64_t(got.components.size()));

        std::vector<ComponentDiameter> order = got.components;  // in cluster order
        std::stable_sort(order.begin(), order.end(),
                         [](const ComponentDiameter& x, const ComponentDiameter& y) {
                             return x.diameter < y.diameter;
                         });
        QVERIFY(order.front().diameter < order.back().diameter);
        for (const bool descending : {false, true}) {
            const auto rows = q.clusters(runId, all, ClusterSort::Diameter, descending, 0, 100000);
            QCOMPARE(rows.size(), order.size());
            for (std::size_t i = 0; i < rows.size(); ++i)
                QCOMPARE(rows[i].cluster,
                         descending ? order[order.size() - 1 - i].cluster : order[i].cluster);
        }

        std::set<int64_t> flagged;
        for (const ComponentDiameter& c : got.components)
            if (c.flagged()) flagged.insert(c.cluster);
        QCOMPARE(flagged.size(), flaggedWanted);
        ClusterFilter onlyFlagged = all;
        onlyFlagged.flaggedOnly = true;
        QCOMPARE(q.clusterCount(runId, onlyFlagged), uint64_t(flagged.size()));
        std::set<int64_t> listed;
        for (const ClusterRow& r :
             q.clusters(runId, onlyFlagged, ClusterSort::Size, true, 0, 100000))
            listed.insert(r.cluster);
        QCOMPARE(listed, flagged);
    }

  private slots:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        corpus_ = path("corpus.jsonl");
        project_ = path("fixture.ndw");
        GeneratorOptions gen;
        gen.documents = 600;
        gen.seed = 11;
        gen.meanChars = 800;
        std::ofstream out(corpus_, std::ios::binary);
        generateCorpus(gen, out, truth_);
        out.close();
        ProjectStore store(project_);
        auto backend = makeCpuBackend(2);
        Pipeline pipeline(store, *backend);
        RunParams params;
        params.compare.threshold = 0.7;
        params.lsh.bands = 16;  // not the defaults, so that the round trip shows
        params.lsh.rows = 8;
        run_ = pipeline.run({corpus_}, params);
        dataset_ = store.loadDataset(run_.datasetId, &docs_);
        QVERIFY(run_.counts.clusters > 10);
    }

    void runInfoMatchesTheRun() {
        ProjectQueries q(project_);
        QCOMPARE(q.runIds(), std::vector<int64_t>{run_.runId});
        const RunInfo info = q.runInfo(run_.runId);
        QCOMPARE(info.datasetId, run_.datasetId);
        QCOMPARE(info.status, std::string("ok"));
        QCOMPARE(info.params.signature.hashes, 128);
        QCOMPARE(info.params.lsh.bands, 16);
        QCOMPARE(info.params.lsh.rows, 8);
        QCOMPARE(info.params.compare.threshold, 0.7);
        QCOMPARE(info.params.compare.verify, run_.params.compare.verify);
        QCOMPARE(info.documents, run_.counts.documents);
        QCOMPARE(info.clusters, run_.counts.clusters);
        QCOMPARE(info.removed, run_.counts.removed);
        QCOMPARE(info.storedPairs, run_.counts.storedPairs);
        QVERIFY_THROWS_EXCEPTION(QueryError, q.runInfo(run_.runId + 100));

        const DatasetSource src = q.datasetSource(run_.datasetId);
        QCOMPARE(src.files.size(), std::size_t{1});
        QCOMPARE(src.files[0].path, corpus_);
        QCOMPARE(src.reader.textField, std::string("text"));
        QCOMPARE(src.documents, uint64_t{docs_.size()});
    }

    void clusterPagesCoverEveryClusterOnce() {
        ProjectQueries q(project_);
        const uint64_t total = q.clusterCount(run_.runId, {});
        QCOMPARE(total, run_.counts.clusters);
        std::set<int64_t> seen;
        uint64_t sizes = 0;
        for (uint64_t offset = 0; offset < total + 7; offset += 7) {
            const auto page = q.clusters(run_.runId, {}, ClusterSort::Cluster, false, offset, 7);
            QVERIFY(page.size() <= 7);
            for (const auto& row : page) {
                QVERIFY(seen.insert(row.cluster).second);
                QCOMPARE(row.representative, run_.representative[std::size_t(row.cluster)]);
                QCOMPARE(row.representativeId, std::string(docs_.id(row.representative)));
                sizes += row.size;
            }
        }
        QCOMPARE(uint64_t(seen.size()), total);
        // Every clustered document is in exactly one cluster.
        QCOMPARE(sizes, clusteredCount());
    }

    void similarityStatisticsMatchThePairs() {
        // Recompute min / mean estimated and exact Jaccard per cluster from the run's pairs.
        struct Acc {
            uint64_t n = 0, nx = 0;
            double minE = 2, sumE = 0, minX = 2, sumX = 0;
        };
        std::map<uint32_t, Acc> acc;
        for (const ScoredPair& p : run_.pairs) {
            const uint32_t ca = run_.clusterOf[p.a], cb = run_.clusterOf[p.b];
            if (ca == RunResult::kNoCluster || ca != cb) continue;
            Acc& a = acc[ca];
            const double e = double(p.matches) / 128.0;
            ++a.n;
            a.minE = std::min(a.minE, e);
            a.sumE += e;
            if (p.exact >= 0) {
                ++a.nx;
                a.minX = std::min(a.minX, double(p.exact));
                a.sumX += double(p.exact);
            }
        }
        ProjectQueries q(project_);
        const auto rows = q.clusters(run_.runId, {}, ClusterSort::Cluster, false, 0, 1000000);
        QCOMPARE(rows.size(), acc.size());
        for (const auto& row : rows) {
            const Acc& a = acc.at(uint32_t(row.cluster));
            QCOMPARE(row.pairs, a.n);
            QVERIFY(near(row.minEstimated, a.minE));
            QVERIFY(near(row.meanEstimated, a.sumE / double(a.n)));
            if (a.nx == 0) {
                QVERIFY(std::isnan(row.minExact));
            } else {
                QVERIFY(std::abs(row.minExact - a.minX) < 1e-6);
                QVERIFY(std::abs(row.meanExact - a.sumX / double(a.nx)) < 1e-6);
            }
        }
    }

    void sortOrders() {
        ProjectQueries q(project_);
        const auto bySize = q.clusters(run_.runId, {}, ClusterSort::Size, true, 0, 100000);
        for (std::size_t i = 1; i < bySize.size(); ++i) {
            QVERIFY(bySize[i - 1].size >= bySize[i].size);
            if (bySize[i - 1].size == bySize[i].size)
                QVERIFY(bySize[i - 1].cluster > bySize[i].cluster);
        }
        QVERIFY(bySize.front().size > bySize.back().size);
        const auto byMin = q.clusters(run_.runId, {}, ClusterSort::MinEstimated, false, 0, 100000);
        for (std::size_t i = 1; i < byMin.size(); ++i)
            QVERIFY(byMin[i - 1].minEstimated <= byMin[i].minEstimated);
        const auto byMean = q.clusters(run_.runId, {}, ClusterSort::MeanEstimated, true, 0, 100000);
        for (std::size_t i = 1; i < byMean.size(); ++i)
            QVERIFY(byMean[i - 1].meanEstimated >= byMean[i].meanEstimated);
        const auto byRep =
            q.clusters(run_.runId, {}, ClusterSort::Representative, false, 0, 100000);
        for (std::size_t i = 1; i < byRep.size(); ++i)
            QVERIFY(byRep[i - 1].representativeId <= byRep[i].representativeId);
        // A page of a sorted listing is the same slice of the whole sorted listing.
        const auto page = q.clusters(run_.runId, {}, ClusterSort::Size, true, 5, 3);
        QCOMPARE(page.size(), std::size_t{3});
        QCOMPARE(page[0].cluster, bySize[5].cluster);
        QCOMPARE(page[2].cluster, bySize[7].cluster);
    }

    // The listing sorts and filters by its components' diameters once they are stored
    // (listingDiameters, which the workbench's Diameter column uses): they are the diameters
    // measured from the cache over the listing's members, the sort is by diameter with ties in
    // cluster order, the flagged filter keeps exactly the chains and large components (the chain
    // of the issue-19 corpus, not its star), and a listing at another threshold, or changed by a
    // decision, has none stored until measured again.
    void diameterSortAndFlaggedFilter() {
        const std::string planted = path("diameters.ndw");
        QVERIFY(copyProject(project_, planted).sidecarFiles > 0);  // with its signature cache
        const std::string chain = path("chain-diameters.ndw");
        const std::string chainCorpus = path("chain.jsonl");
        testsupport::writeChainCorpus(chainCorpus, 12);
        int64_t chainRun = 0;
        {
            ProjectStore store(chain);
            auto backend = makeCpuBackend(2);
            Pipeline pipeline(store, *backend);
            RunParams params;
            params.compare.verify = VerifyMode::Exact;
            chainRun = pipeline.run({chainCorpus}, params).runId;
        }
        const double own = std::nan("");
        checkDiameterListing(planted, run_.runId, own, 0);
        checkDiameterListing(planted, run_.runId, 0.6, 0);
        checkDiameterListing(chain, chainRun, own, 1);

        // Back at the run's own threshold the listing is built again, without diameters; a
        // decision changes it again.
        ProjectQueries q(planted);
        const int64_t runId = run_.runId;
        QVERIFY(!q.storedDiameters(runId, own));
        {
            const ProjectStore store(planted, ProjectStore::Mode::ReadOnly);
            listingDiameters(q, store, runId, own);
        }
        QVERIFY(q.storedDiameters(runId, own));
        ClusterFilter other;
        other.threshold = 0.6;
        q.clusterCount(runId, other);
        QVERIFY(!q.storedDiameters(runId, own));
        {
            const ProjectStore store(planted, ProjectStore::Mode::ReadOnly);
            listingDiameters(q, store, runId, own);
        }
        const auto bySize = q.clusters(runId, {}, ClusterSort::Size, true, 0, 1);
        const auto members = q.clusterMembers(runId, bySize.front().cluster);
        {
            ProjectStore store(planted);
            recordDecision(store, run_.datasetId, DecisionKind::KeepAll, members.front().docIndex);
        }
        QVERIFY(!q.storedDiameters(runId, own));
    }

    void searchAndMinimumSize() {
        ProjectQueries q(project_);
        // A removed member's id finds its cluster, although it is not the representative.
        std::size_t doc = 0;
        while (!run_.removed(doc))
            ++doc;
        const std::string id(docs_.id(doc));
        ClusterFilter f;
        f.idSearch = id;
        const auto rows = q.clusters(run_.runId, f, ClusterSort::Cluster, false, 0, 100);
        QVERIFY(!rows.empty());
        bool found = false;
        for (const auto& r : rows)
            found = found || r.cluster == int64_t(run_.clusterOf[doc]);
        QVERIFY(found);
        QCOMPARE(q.clusterCount(run_.runId, f), uint64_t(rows.size()));
        // LIKE wildcards in the search are literal characters.
        f.idSearch = "%";
        QCOMPARE(q.clusterCount(run_.runId, f), uint64_t{0});
        f.idSearch = "no-such-id";
        QVERIFY(q.clusters(run_.runId, f, ClusterSort::Size, true, 0, 10).empty());
        ClusterFilter big;
        big.minSize = 3;
        uint64_t expected = 0;
        const auto all = q.clusters(run_.runId, {}, ClusterSort::Cluster, false, 0, 100000);
        for (const auto& r : all)
            expected += r.size >= 3 ? 1 : 0;
        QVERIFY(expected > 0 && expected < all.size());
        QCOMPARE(q.clusterCount(run_.runId, big), expected);
    }

    void membersAndPairsOfACluster() {
        ProjectQueries q(project_);
        const auto largest = q.clusters(run_.runId, {}, ClusterSort::Size, true, 0, 1).front();
        const auto members = q.clusterMembers(run_.runId, largest.cluster);
        QCOMPARE(uint64_t(members.size()), largest.size);
        int representatives = 0;
        for (const auto& m : members) {
            QCOMPARE(run_.clusterOf[m.docIndex], uint32_t(largest.cluster));
            QCOMPARE(m.docId, std::string(docs_.id(m.docIndex)));
            QCOMPARE(m.chars, docs_.chars[m.docIndex]);
            QCOMPARE(m.location.offset, docs_.offset[m.docIndex]);
            QCOMPARE(m.location.length, docs_.length[m.docIndex]);
            QCOMPARE(m.location.line, docs_.line[m.docIndex]);
            representatives += m.representative ? 1 : 0;
            if (m.representative) QCOMPARE(m.docIndex, largest.representative);
        }
        QCOMPARE(representatives, 1);
        const auto pairs = q.clusterPairs(run_.runId, largest.cluster);
        QCOMPARE(uint64_t(pairs.size()), largest.pairs);
        std::size_t expected = 0;
        for (const ScoredPair& p : run_.pairs)
            if (run_.clusterOf[p.a] == uint32_t(largest.cluster) &&
                run_.clusterOf[p.b] == uint32_t(largest.cluster))
                ++expected;
        QCOMPARE(pairs.size(), expected);
        for (const auto& p : pairs) {
            QVERIFY(p.a < p.b);
            QVERIFY(near(p.estimated, p.matches / 128.0));
        }
        QVERIFY(q.clusterMembers(run_.runId, 1 << 30).empty());
    }

    void bucketStatistics() {
        ProjectQueries q(project_);
        const auto bands = q.bandStats(run_.runId);
        QCOMPARE(bands.size(), run_.bands.size());
        uint64_t allComparisons = 0;
        for (const auto& b : run_.bands)
            allComparisons += b.comparisons;
        std::vector<uint64_t> summed;
        for (std::size_t i = 0; i < bands.size(); ++i) {
            const BandStats& s = run_.bands[i];
            QCOMPARE(bands[i].band, s.band);
            QCOMPARE(bands[i].buckets, s.buckets);
            QCOMPARE(bands[i].maxSize, s.maxSize);
            QCOMPARE(bands[i].comparisons, s.comparisons);
            const auto hist = q.histogram(run_.runId, s.band);
            QCOMPARE(hist.size(), s.histogram.size());
            for (std::size_t k = 0; k < hist.size(); ++k) {
                QCOMPARE(hist[k].count, s.histogram[k]);
                QCOMPARE(hist[k].sizeMin, uint64_t{1} << k);
                if (summed.size() <= k) summed.resize(k + 1, 0);
                summed[k] += s.histogram[k];
            }
            const SizeMoments m = q.bucketSizeMoments(run_.runId, s.band);
            QVERIFY(std::abs(m.mean - s.meanSize) < 1e-9);
            QVERIFY(std::abs(m.stddev - s.stddevSize) < 1e-6);
            const auto out = q.outliers(run_.runId, s.band);
            QCOMPARE(out.size(), s.outliers.size());
            for (const auto& o : out) {
                QCOMPARE(o.band, s.band);
                QCOMPARE(o.comparisons, o.size * (o.size - 1) / 2);
                QVERIFY(near(o.share, double(o.comparisons) / double(allComparisons)));
            }
        }
        const auto all = q.histogram(run_.runId, -1);
        QCOMPARE(all.size(), summed.size());
        for (std::size_t k = 0; k < all.size(); ++k)
            QCOMPARE(all[k].count, summed[k]);
        std::size_t outliers = 0;
        for (const auto& b : run_.bands)
            outliers += b.outliers.size();
        const auto allOut = q.outliers(run_.runId, -1);
        QCOMPARE(allOut.size(), outliers);
        for (std::size_t i = 1; i < allOut.size(); ++i)
            QVERIFY(allOut[i - 1].size >= allOut[i].size);
        // Pooled moments: mean of all buckets of all bands.
        double n = 0, sum = 0;
        for (const auto& b : run_.bands) {
            n += double(b.buckets);
            sum += double(b.buckets) * b.meanSize;
        }
        QVERIFY(std::abs(q.bucketSizeMoments(run_.runId, -1).mean - sum / n) < 1e-9);
    }

    void fetchingDocumentsBack() {
        ProjectQueries q(project_);
        const DatasetSource src = q.datasetSource(run_.datasetId);
        DocumentFetcher fetcher(src.files, src.reader);
        // Out of order on purpose: the viewer jumps around.
        for (const uint32_t doc : {uint32_t(docs_.size() - 1), 0u, 17u, 3u}) {
            const DocumentLocation where = q.documentLocation(run_.datasetId, doc);
            const FetchedDocument d = fetcher.fetch(where);
            QVERIFY2(d.ok, d.error.c_str());
            QCOMPARE(d.id, std::string(docs_.id(doc)));
            QCOMPARE(q.documentId(run_.datasetId, doc), d.id);
            QVERIFY(d.text.size() > 20);
            QVERIFY(d.line.find("\"text\"") != std::string::npos);
            const FetchedDocument viaTable = fetcher.fetch(docs_, doc);
            QCOMPARE(viaTable.text, d.text);
        }
        QVERIFY(!fetcher.fetch(docs_, docs_.size()).ok);
        DocumentLocation bad = q.documentLocation(run_.datasetId, 0);
        bad.offset += 1;  // now mid-line: not JSON
        const FetchedDocument broken = fetcher.fetch(bad);
        QVERIFY(!broken.ok);
        QVERIFY(!broken.error.empty());
        bad.offset = 1ull << 40;
        QVERIFY(!fetcher.fetch(bad).ok);
    }

    // Text search reads clustered documents back and matches ignoring ASCII case; it can be
    // cancelled from its progress callback.
    void textSearchOverClusteredDocuments() {
        ProjectQueries q(project_);
        const DatasetSource src = q.datasetSource(run_.datasetId);
        DocumentFetcher fetcher(src.files, src.reader);
        const auto clustered = q.clusteredDocuments(run_.runId);
        QVERIFY(clustered.size() > 10);
        const uint32_t target = clustered[clustered.size() / 2].first;
        const FetchedDocument doc = fetcher.fetch(docs_, target);
        QVERIFY(doc.ok && doc.text.size() > 60);
        std::string needle = doc.text.substr(20, 24);
        for (char& c : needle)
            c = (c >= 'a' && c <= 'z') ? char(c - 'a' + 'A') : c;
        uint64_t lastTotal = 0, calls = 0;
        bool ordered = true;
        const TextSearchResult r =
            searchTexts(fetcher, clustered, needle, [&](uint64_t done, uint64_t total) {
                ordered = ordered && done <= total;
                lastTotal = total;
                ++calls;
                return true;
            });
        QVERIFY(!r.cancelled);
        QVERIFY(ordered);
        QCOMPARE(r.searched, uint64_t(clustered.size()));
        QCOMPARE(lastTotal, uint64_t(clustered.size()));
        QVERIFY(calls >= 2);
        QCOMPARE(r.unreadable, uint64_t{0});
        QVERIFY(std::find(r.matches.begin(), r.matches.end(), target) != r.matches.end());
        // Every match really contains the needle (case aside); the others do not.
        std::set<uint32_t> matched(r.matches.begin(), r.matches.end());
        std::string lowerNeedle = needle;
        for (char& c : lowerNeedle)
            c = char(std::tolower(static_cast<unsigned char>(c)));
        for (const auto& [index, where] : clustered) {
            std::string text = fetcher.fetch(where).text;
            for (char& c : text)
                c = char(std::tolower(static_cast<unsigned char>(c)));
            QCOMPARE(matched.count(index) == 1, text.find(lowerNeedle) != std::string::npos);
        }
        QVERIFY(searchTexts(fetcher, clustered, "no such text \x01 anywhere").matches.empty());
        const TextSearchResult stopped = searchTexts(
            fetcher, clustered, needle, [](uint64_t done, uint64_t) { return done < 256; });
        QVERIFY(stopped.cancelled || clustered.size() <= 256);
        QVERIFY(stopped.searched <= 256);
    }

    void exactJaccardOfFetchedTexts() {
        // The generator's truth uses the engine's shingling, so the fetched texts must agree.
        std::map<std::string, uint32_t> byId;
        for (std::size_t i = 0; i < docs_.size(); ++i)
            byId[std::string(docs_.id(i))] = uint32_t(i);
        DocumentFetcher fetcher(dataset_.files, dataset_.reader);
        int checked = 0;
        for (const TruthPair& t : truth_.pairs) {
            if (checked == 5) break;
            const auto a = fetcher.fetch(docs_, byId.at(t.a));
            const auto b = fetcher.fetch(docs_, byId.at(t.b));
            QVERIFY(a.ok && b.ok);
            QVERIFY(std::abs(exactTextJaccard(a.text, b.text, SignatureParams{}) - t.jaccard) <
                    1e-6);
            ++checked;
        }
        QCOMPARE(checked, 5);
        QCOMPARE(exactTextJaccard("same text here", "Same   text here", SignatureParams{}), 1.0);
    }

    void readOnlyAndRefusals() {
        const QByteArray before = fileHash(project_);
        {
            ProjectQueries q(project_);
            q.clusters(run_.runId, {}, ClusterSort::Size, true, 0, 50);
            q.clusterCount(run_.runId, ClusterFilter{"doc", 0});
        }
        QCOMPARE(fileHash(project_), before);
        QVERIFY_THROWS_EXCEPTION(QueryError, ProjectQueries{path("missing.ndw")});
        QVERIFY(!QFile::exists(QString::fromStdString(path("missing.ndw"))));
        QVERIFY_THROWS_EXCEPTION(QueryError, ProjectQueries{corpus_});
        // A second run appears to an open reader, and its summary is built separately.
        ProjectQueries q(project_);
        const uint64_t first = q.clusterCount(run_.runId, {});
        RunResult second;
        {
            ProjectStore store(project_);
            auto backend = makeCpuBackend(1);
            Pipeline pipeline(store, *backend);
            RunParams params;
            params.compare.threshold = 0.9;
            second = pipeline.run({corpus_}, params);
        }
        QCOMPARE(q.runIds().size(), std::size_t{2});
        QCOMPARE(q.clusterCount(second.runId, {}), second.counts.clusters);
        QCOMPARE(q.clusterCount(run_.runId, {}), first);
    }

    // Decisions recorded through another connection reshape the listing at the next call: a
    // cut pair of two leaves the list, keep_instead changes the representative, keep_all keeps
    // every member; the filters by decision and by a document list; undoing restores it.
    void auditedClustersFollowDecisions() {
        const std::string copy = path("audit.ndw");
        QVERIFY(QFile::copy(QString::fromStdString(project_), QString::fromStdString(copy)));
        ProjectQueries q(copy);
        const int64_t runId = run_.runId;
        const uint64_t total = q.clusterCount(runId, {});
        QCOMPARE(total, run_.counts.clusters);
        QVERIFY(q.decisions(run_.datasetId).empty());
        // The documents a text search reads: every clustered one, in input order.
        const auto clustered = q.clusteredDocuments(runId);
        QCOMPARE(uint64_t(clustered.size()), clusteredCount());
        for (std::size_t i = 1; i < clustered.size(); ++i)
            QVERIFY(clustered[i - 1].first < clustered[i].first);
        QCOMPARE(clustered.front().second.offset, docs_.offset[clustered.front().first]);

        const auto bySize = q.clusters(runId, {}, ClusterSort::Size, true, 0, 100000);
        const ClusterRow big = bySize.front();
        QVERIFY(big.size >= 3);
        const ClusterRow whole = bySize[1];
        const ClusterRow two = bySize.back();
        QCOMPARE(two.size, uint64_t{2});
        const auto twoPairs = q.clusterPairs(runId, two.cluster);
        QCOMPARE(twoPairs.size(), std::size_t{1});
        uint32_t instead = 0;
        for (const auto& m : q.clusterMembers(runId, big.cluster))
            if (!m.representative) instead = m.docIndex;
        const uint32_t wholeMember = q.clusterMembers(runId, whole.cluster).back().docIndex;
        {
            ProjectStore store(copy);
            recordDecision(store, run_.datasetId, DecisionKind::NotDuplicate, twoPairs[0].a,
                           twoPairs[0].b);
            recordDecision(store, run_.datasetId, DecisionKind::KeepInstead, instead);
            recordDecision(store, run_.datasetId, DecisionKind::KeepAll, wholeMember);
        }
        QCOMPARE(q.decisions(run_.datasetId).size(), std::size_t{3});
        QCOMPARE(q.clusterCount(runId, {}), total - 1);
        QCOMPARE(q.clusterOfDocument(runId, twoPairs[0].a), int64_t{-1});
        const int64_t bigNow = q.clusterOfDocument(runId, instead);
        QVERIFY(bigNow >= 0);
        // The listing agrees with loadRun, which exports use.
        RunResult audited;
        {
            ProjectStore store(copy);
            audited = store.loadRun(runId);
        }
        QCOMPARE(audited.decisionsApplied, uint64_t{3});
        const auto rows = q.clusters(runId, {}, ClusterSort::Cluster, false, 0, 100000);
        QCOMPARE(uint64_t(rows.size()), audited.counts.clusters);
        uint64_t sizes = 0;
        std::set<uint32_t> representatives;
        for (const auto& r : rows) {
            // Numbers differ (a split's further pieces are numbered after the run's clusters);
            // each listed cluster is an audited cluster with the same representative and size.
            const uint32_t c = audited.clusterOf[r.representative];
            QVERIFY(c != RunResult::kNoCluster);
            QCOMPARE(audited.representative[c], r.representative);
            QCOMPARE(r.size,
                     uint64_t(std::count(audited.clusterOf.begin(), audited.clusterOf.end(), c)));
            QVERIFY(representatives.insert(r.representative).second);
            sizes += r.size;
        }
        uint64_t clusteredNow = 0;
        for (const uint32_t c : audited.clusterOf)
            clusteredNow += c != RunResult::kNoCluster ? 1 : 0;
        QCOMPARE(sizes, clusteredNow);
        // keep_instead: the chosen member is the representative, marked as decided.
        ClusterFilter decided;
        decided.decidedOnly = true;
        const auto marked = q.clusters(runId, decided, ClusterSort::Cluster, false, 0, 100);
        QCOMPARE(marked.size(), std::size_t{2});
        for (const auto& r : marked) {
            if (r.cluster == bigNow) {
                QCOMPARE(r.representative, instead);
                QVERIFY(r.decisions & kMarkKeepInstead);
            } else {
                QVERIFY(r.decisions & kMarkKeepAll);
            }
        }
        // Its members' status and witnesses are those loadRun computes with the decisions.
        for (const auto& m : q.clusterMembers(runId, bigNow)) {
            QCOMPARE(m.kept, !audited.removed(m.docIndex));
            QCOMPARE(m.removedFor, m.kept ? int64_t{-1} : int64_t{audited.removedFor[m.docIndex]});
            if (m.docIndex == instead) QVERIFY(m.kept);
        }
        const auto wholeMembers = q.clusterMembers(runId, q.clusterOfDocument(runId, wholeMember));
        QCOMPARE(uint64_t(wholeMembers.size()), whole.size);
        for (const auto& m : wholeMembers)
            QVERIFY(m.kept);
        // Clusters holding one of a list of documents.
        ClusterFilter byDocs;
        byDocs.documents =
            std::make_shared<const std::vector<uint32_t>>(std::vector<uint32_t>{instead});
        const auto found = q.clusters(runId, byDocs, ClusterSort::Size, true, 0, 10);
        QCOMPARE(found.size(), std::size_t{1});
        QCOMPARE(found[0].cluster, bigNow);
        byDocs.documents = std::make_shared<const std::vector<uint32_t>>(
            std::vector<uint32_t>{instead, wholeMember, twoPairs[0].a});
        QCOMPARE(q.clusterCount(runId, byDocs), uint64_t{2});
        // Cutting every pair between the two halves of the largest cluster splits it; further
        // pieces are numbered after the run's clusters and list their own members.
        const auto bigMembers = [&] {
            std::vector<uint32_t> out;
            for (uint32_t d = 0; d < run_.clusterOf.size(); ++d)
                if (run_.clusterOf[d] == uint32_t(big.cluster)) out.push_back(d);
            return out;
        }();
        const uint32_t middle = bigMembers[bigMembers.size() / 2];
        {
            ProjectStore store(copy);
            for (const ScoredPair& p : run_.pairs)
                if (run_.clusterOf[p.a] == uint32_t(big.cluster) &&
                    run_.clusterOf[p.b] == uint32_t(big.cluster) &&
                    (p.a < middle) != (p.b < middle))
                    recordDecision(store, run_.datasetId, DecisionKind::NotDuplicate, p.a, p.b);
            audited = store.loadRun(runId);
        }
        std::set<uint32_t> pieces;
        for (const uint32_t d : bigMembers)
            if (audited.clusterOf[d] != RunResult::kNoCluster) pieces.insert(audited.clusterOf[d]);
        QVERIFY(pieces.size() >= 2);
        const auto split = q.clusters(runId, {}, ClusterSort::Cluster, false, 0, 100000);
        QCOMPARE(uint64_t(split.size()), audited.counts.clusters);
        int numberedAfter = 0;
        for (const auto& r : split) {
            const uint32_t c = audited.clusterOf[r.representative];
            QCOMPARE(audited.representative[c], r.representative);
            if (r.cluster < int64_t(run_.counts.clusters)) continue;
            ++numberedAfter;
            QVERIFY(r.decisions & kMarkSplit);
            for (const auto& m : q.clusterMembers(runId, r.cluster)) {
                QCOMPARE(audited.clusterOf[m.docIndex], c);
                QCOMPARE(q.clusterOfDocument(runId, m.docIndex), r.cluster);
            }
            QCOMPARE(uint64_t(q.clusterPairs(runId, r.cluster).size()), r.pairs);
        }
        QCOMPARE(numberedAfter, int(pieces.size()) - 1);

        // Undoing every decision gives the stored clustering back.
        {
            ProjectStore store(copy);
            while (undoDecision(store, run_.datasetId)) {
            }
        }
        QCOMPARE(q.clusterCount(runId, {}), total);
        QCOMPARE(q.clusterCount(runId, decided), uint64_t{0});
        QCOMPARE(q.clusterOfDocument(runId, twoPairs[0].a), int64_t(two.cluster));
    }
};

QTEST_GUILESS_MAIN(TestProjectQueries)
#include "test_project_queries.moc"
