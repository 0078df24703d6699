// Read-only queries behind the workbench's views, checked against the RunResult the pipeline
// returned for the same run: cluster pages, sorting, search, members, pairs, bucket statistics,
// document locations and fetching, and that querying never modifies the project. (The listing
// as decisions and measured diameters change it: test_project_queries_audit.cpp.)
#include <QCryptographicHash>
#include <QFile>
#include <QTest>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "clustering.h"
#include "document_fetcher.h"
#include "project_queries.h"
#include "project_queries_fixture.h"

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

class TestProjectQueries : public ProjectQueriesFixture {
    Q_OBJECT

  private slots:
    void initTestCase() { makeCorpusAndRun(); }

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
};

QTEST_GUILESS_MAIN(TestProjectQueries)
#include "test_project_queries.moc"
