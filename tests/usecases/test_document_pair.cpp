// The use case behind the workbench's side-by-side view (core/usecases/document_pair.h), without
// widgets: both documents read back from the input under their stored ids, the stored pair's
// estimate and exact Jaccard or the texts' own, very long texts shortened at a character
// boundary, the word diff as the run normalized words, each document's standing in its cluster,
// and a changed input reported in each document's error instead of thrown.
#include <QTemporaryDir>
#include <QTest>

#include <cmath>
#include <string>

#include "backend.h"
#include "document_pair.h"
#include "pipeline.h"
#include "project_store.h"
#include "test_support.h"

using namespace neardup;

namespace {

// Over kPairDisplayBytes, with an é across its last byte (204799 and 204800): numbered words up
// to just below it, padding, the é, and as many numbered words again. `first` makes two copies.
std::string longText(const std::string& first) {
    std::string s = first;
    for (int i = 0; s.size() < kPairDisplayBytes - 20; ++i)
        s += " w" + std::to_string(i);
    s += std::string(kPairDisplayBytes - 1 - s.size(), ' ');
    s += "\xc3\xa9";
    for (int i = 0; i < 20000; ++i)
        s += " v" + std::to_string(i);
    return s;
}

const std::string kFox =
    "the quick brown fox jumps over the lazy dog while the farmer sleeps under an old oak tree "
    "and the cows wander slowly across the green meadow towards the river bank at dusk";
const std::string kFoxLoud =
    "The QUICK brown fox jumps over the LAZY dog while the farmer sleeps under an old oak tree "
    "and the cows wander slowly across the green meadow towards the river bank at dusk";
const std::string kOther =
    "completely unrelated prose about spreadsheets, quarterly budgets and the migration of "
    "invoices between two accounting systems, written by somebody else entirely";
const std::string kLong = longText("first");
const std::string kLongCopy = longText("FIRST");

std::string line(const char* id, const std::string& text) {
    return std::string("{\"id\":\"") + id + "\",\"text\":\"" + text + "\"}\n";
}

}  // namespace

class TestDocumentPair : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    std::string corpus_, project_;
    RunInfo run_;

    std::string path(const char* name) const {
        return (dir_.path() + QLatin1Char('/') + QLatin1String(name)).toStdString();
    }

    // The stored pair of the cluster that holds `doc`.
    PairRow storedPairOf(ProjectQueries& q, uint32_t doc) {
        const int64_t cluster = q.clusterOfDocument(run_.runId, doc);
        if (cluster < 0) return {};
        const std::vector<PairRow> pairs = q.clusterPairs(run_.runId, cluster);
        return pairs.empty() ? PairRow{} : pairs.front();
    }

    // A request for the stored pair of the cluster that holds `doc`.
    PairToLoad storedRequest(uint32_t doc) {
        ProjectQueries q(project_);
        PairToLoad request;
        request.pair = storedPairOf(q, doc);
        request.stored = true;
        return request;
    }

    // `request` loaded as the comparison view loads it: through the run's queries and a fetcher
    // of its dataset's files.
    DocumentPair load(const PairToLoad& request) {
        ProjectQueries q(project_);
        const DatasetSource src = q.datasetSource(run_.datasetId);
        DocumentFetcher fetcher(src.files, src.reader);
        return loadDocumentPair(q, fetcher, run_, request);
    }

  private slots:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        corpus_ = path("corpus.jsonl");
        project_ = path("pair.ndw");
        testsupport::writeFile(corpus_, line("fox", kFox) + line("fox-loud", kFoxLoud) +
                                            line("other", kOther) + line("long", kLong) +
                                            line("long-copy", kLongCopy));
        ProjectStore store(project_);
        auto backend = makeCpuBackend(1);
        Pipeline pipeline(store, *backend);
        RunParams params;
        params.compare.threshold = 0.7;
        const RunResult result = pipeline.run({corpus_}, params);
        QCOMPARE(result.counts.documents, uint64_t{5});
        QCOMPARE(result.counts.clusters, uint64_t{2});
        ProjectQueries q(project_);
        run_ = q.runInfo(result.runId);
    }

    void storedPairReadsBothDocuments() {
        const PairToLoad request = storedRequest(0);
        QCOMPARE(request.pair.a, 0u);
        QCOMPARE(request.pair.b, 1u);
        const DocumentPair d = load(request);
        QCOMPARE(d.a.doc, 0u);
        QCOMPARE(d.b.doc, 1u);
        QCOMPARE(d.a.id, std::string("fox"));
        QCOMPARE(d.b.id, std::string("fox-loud"));
        QCOMPARE(d.a.text, kFox);
        QCOMPARE(d.b.text, kFoxLoud);
        QVERIFY(d.a.error.empty() && d.b.error.empty());
        QVERIFY(!d.a.shortened && !d.b.shortened);
        QCOMPARE(d.hashes, run_.params.signature.hashes);
        QCOMPARE(d.matches, request.pair.matches);
        QCOMPARE(d.estimated, request.pair.estimated);
        // A case-changed copy: equal once lowercased, as the run matched.
        QVERIFY(d.compared.lowercase);
        QCOMPARE(d.exactStored, !std::isnan(request.pair.exact));
        QCOMPARE(d.exact, 1.0);
        QCOMPARE(d.diff.runs.size(), std::size_t{1});
        QVERIFY(d.diff.runs.front().kind == DiffKind::Equal);
        QCOMPARE(d.diff.equalTokens, d.diff.a.size());
        // Standings only when asked.
        QCOMPARE(d.a.standing.cluster, int64_t{-1});
        QVERIFY(!d.a.standing.member);
    }

    void anyPairGetsItsExactJaccardFromTheTexts() {
        PairToLoad request;
        request.pair.a = 0;
        request.pair.b = 2;
        request.pair.exact = 0.99;  // not the run's: ignored
        const DocumentPair d = load(request);
        QCOMPARE(d.b.id, std::string("other"));
        QVERIFY(std::isnan(d.estimated));
        QVERIFY(!d.exactStored);
        QCOMPARE(d.exact, exactTextJaccard(kFox, kOther, run_.params.signature));
        QVERIFY(d.exact < 0.2);
    }

    void longTextsAreShortenedAtACharacterBoundary() {
        const PairToLoad request = storedRequest(3);
        QCOMPARE(request.pair.a, 3u);
        const DocumentPair d = load(request);
        QVERIFY(d.a.shortened && d.b.shortened);
        // Byte 204800 is the second byte of an é: the cut keeps the character whole.
        QCOMPARE(d.a.text.size(), kPairDisplayBytes - 1);
        QCOMPARE(d.a.text, kLong.substr(0, kPairDisplayBytes - 1));
        QCOMPARE(d.b.text, kLongCopy.substr(0, kPairDisplayBytes - 1));
        // The exact Jaccard is the whole texts', not the shortened ones'.
        if (!d.exactStored)
            QCOMPARE(d.exact, exactTextJaccard(kLong, kLongCopy, run_.params.signature));
    }

    void standingsNameTheWitness() {
        PairToLoad request = storedRequest(0);
        request.standings = true;
        const DocumentPair d = load(request);
        QVERIFY(d.a.standing.cluster >= 0);
        QCOMPARE(d.a.standing.cluster, d.b.standing.cluster);
        QVERIFY(d.a.standing.member && d.b.standing.member);
        // One kept, the other removed for it, its witness named by id.
        const PairDocument& kept = d.a.standing.member->kept ? d.a : d.b;
        const PairDocument& removed = d.a.standing.member->kept ? d.b : d.a;
        QVERIFY(kept.standing.member->kept);
        QVERIFY(!kept.standing.witnessId);
        QVERIFY(!removed.standing.member->kept);
        QCOMPARE(removed.standing.member->removedFor, int64_t{kept.doc});
        QCOMPARE(removed.standing.witnessId, std::optional<std::string>(kept.id));

        ProjectQueries q(project_);
        const ClusterStanding alone = clusterStanding(q, run_.runId, 2);
        QCOMPARE(alone.cluster, int64_t{-1});
        QVERIFY(!alone.member && !alone.witnessId);
    }

    // Last: it changes the input under the project.
    void aChangedInputIsReportedNotThrown() {
        std::string bytes = testsupport::readFile(corpus_);
        const std::size_t at = bytes.find("fox-loud");
        QVERIFY(at != std::string::npos);
        bytes.replace(at, 8, "fox-LOUD");  // same length: the row's offsets still fit
        testsupport::writeFile(corpus_, bytes);
        const DocumentPair d = load(storedRequest(0));
        for (const PairDocument* doc : {&d.a, &d.b}) {
            QVERIFY2(doc->error.find("changed since it was read") != std::string::npos,
                     doc->error.c_str());
            QVERIFY(doc->text.empty());
        }
        QCOMPARE(d.a.id, std::string("fox"));  // the stored ids, not the line's
        QCOMPARE(d.b.id, std::string("fox-loud"));
        QVERIFY(std::isnan(d.exact));
        QVERIFY(!d.exactStored);
    }
};

QTEST_GUILESS_MAIN(TestDocumentPair)
#include "test_document_pair.moc"
