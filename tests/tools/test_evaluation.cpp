// Evaluation against ground truth (hand-computed answers), the clusters reader, and the exact
// similarity join against brute force.
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

#include <fstream>
#include <sstream>
#include <string>

#include "corpus_generator.h"
#include "evaluation.h"
#include "exact_join.h"
#include "shingles.h"

using namespace neardup;

namespace {

GroundTruth handTruth() {
    GroundTruth t;
    t.documents = 12;
    t.pairs = {{"a", "b", 0.9, "k"},
               {"b", "c", 0.85, "k"},
               {"d", "e", 0.82, "k"},
               {"f", "g", 0.6, "k"},
               {"h", "i", 0.95, "k"}};
    return t;
}

std::vector<ClusterMember> handClusters() {
    return {{"a", 1, true}, {"b", 1, false}, {"c", 1, false}, {"d", 2, true}, {"x", 2, false},
            {"f", 3, true}, {"g", 3, false}, {"h", 4, true},  {"i", 5, true}, {"y", 6, true}};
}

// All pairs by brute force with the engine's own shingling.
std::vector<TruthPair> bruteForce(const std::vector<std::string>& ids,
                                  const std::vector<std::string>& texts, const GroundTruth& cfg) {
    Normalizer n(cfg.normalize);
    std::vector<uint32_t> symbols;
    std::vector<std::vector<uint64_t>> sets(texts.size());
    for (std::size_t i = 0; i < texts.size(); ++i) {
        toSymbols(cfg.shingle, n.run(texts[i]), symbols);
        shingleSet(symbols.data(), symbols.size(), cfg.ngram, sets[i]);
    }
    std::vector<TruthPair> out;
    for (std::size_t i = 0; i < texts.size(); ++i) {
        for (std::size_t j = i + 1; j < texts.size(); ++j) {
            const double jac = exactJaccard(sets[i], sets[j]);
            if (jac >= cfg.floor) out.push_back({ids[i], ids[j], jac, "exact_join"});
        }
    }
    return out;
}

// A small generated corpus rich in near-duplicates, made once for all data rows.
const std::pair<std::vector<std::string>, std::vector<std::string>>& samples() {
    static const auto corpus = [] {
        GeneratorOptions o;
        o.documents = 160;
        o.seed = 77;
        o.duplicateFraction = 0.6;
        GroundTruth truth;
        std::ostringstream out;
        generateCorpus(o, out, truth);
        std::pair<std::vector<std::string>, std::vector<std::string>> c;
        std::istringstream in(out.str());
        std::string line;
        while (std::getline(in, line)) {
            const QJsonObject obj =
                QJsonDocument::fromJson(QByteArray::fromStdString(line)).object();
            c.first.push_back(obj.value(QStringLiteral("id")).toString().toStdString());
            c.second.push_back(obj.value(QStringLiteral("text")).toString().toStdString());
        }
        return c;
    }();
    return corpus;
}

}  // namespace

class TestEvaluation : public QObject {
    Q_OBJECT

  private slots:
    void evaluateByHand() {
        // theta 0.8: truth documents {a,b,c,d,e,h,i}, predicted {a,b,c,d,x,f,g}, common {a,b,c,d}.
        const EvalResult r = evaluate(handTruth(), handClusters(), 0.8);
        QCOMPARE(r.threshold, 0.8);
        QCOMPARE(r.truthDocuments, uint64_t{7});
        QCOMPARE(r.predictedDocuments, uint64_t{7});
        QCOMPARE(r.commonDocuments, uint64_t{4});
        QCOMPARE(r.documentJaccard, 4.0 / 10.0);
        QCOMPARE(r.documentPrecision, 4.0 / 7.0);
        QCOMPARE(r.documentRecall, 4.0 / 7.0);
        // Truth pairs ab, bc, de, hi; predicted pairs ab, ac, bc, dx, fg; common ab, bc.
        QCOMPARE(r.truthPairs, uint64_t{4});
        QCOMPARE(r.predictedPairs, uint64_t{5});
        QCOMPARE(r.commonPairs, uint64_t{2});
        QCOMPARE(r.pairPrecision, 2.0 / 5.0);
        QCOMPARE(r.pairRecall, 2.0 / 4.0);
    }

    void evaluateLowerThreshold() {
        // theta 0.6 adds f-g: truth documents 9, common {a,b,c,d,f,g}.
        const EvalResult r = evaluate(handTruth(), handClusters(), 0.6);
        QCOMPARE(r.truthDocuments, uint64_t{9});
        QCOMPARE(r.commonDocuments, uint64_t{6});
        QCOMPARE(r.documentJaccard, 6.0 / 10.0);
        QCOMPARE(r.documentPrecision, 6.0 / 7.0);
        QCOMPARE(r.documentRecall, 6.0 / 9.0);
        QCOMPARE(r.truthPairs, uint64_t{5});
        QCOMPARE(r.commonPairs, uint64_t{3});
        QCOMPARE(r.pairPrecision, 3.0 / 5.0);
        QCOMPARE(r.pairRecall, 3.0 / 5.0);
    }

    void evaluatePerfectAndEmpty() {
        GroundTruth t;
        t.pairs = {{"1", "2", 1.0, "copy"}, {"2", "3", 0.8, "k"}, {"1", "3", 0.79, "k"}};
        const std::vector<ClusterMember> c = {
            {"1", 9, true}, {"2", 9, false}, {"3", 9, false}, {"4", 10, true}};
        const EvalResult r = evaluate(t, c, 0.8);
        QCOMPARE(r.documentJaccard, 1.0);
        QCOMPARE(r.documentPrecision, 1.0);
        QCOMPARE(r.documentRecall, 1.0);
        // Transitivity puts 1-3 (J 0.79) into the cluster: a predicted pair that is no truth pair.
        QCOMPARE(r.predictedPairs, uint64_t{3});
        QCOMPARE(r.commonPairs, uint64_t{2});
        QCOMPARE(r.pairPrecision, 2.0 / 3.0);
        QCOMPARE(r.pairRecall, 1.0);

        const EvalResult e = evaluate(GroundTruth{}, {}, 0.8);
        QCOMPARE(e.truthDocuments, uint64_t{0});
        QCOMPARE(e.predictedDocuments, uint64_t{0});
        QCOMPARE(e.documentJaccard, 1.0);
        QCOMPARE(e.documentPrecision, 1.0);
        QCOMPARE(e.documentRecall, 1.0);
        QCOMPARE(e.pairPrecision, 1.0);
        QCOMPARE(e.pairRecall, 1.0);

        // Nothing predicted against a non-empty truth: recall 0, precision 1 by convention.
        const EvalResult none = evaluate(t, {}, 0.8);
        QCOMPARE(none.documentJaccard, 0.0);
        QCOMPARE(none.documentPrecision, 1.0);
        QCOMPARE(none.documentRecall, 0.0);
        QCOMPARE(none.pairRecall, 0.0);
    }

    void evaluateLargeClusterCountsPairs() {
        // One cluster of 2000: predicted pairs counted, not materialized.
        std::vector<ClusterMember> c;
        for (int i = 0; i < 2000; ++i)
            c.push_back({std::to_string(i), 5, i == 0});
        GroundTruth t;
        t.pairs = {{"0", "1", 0.9, "k"}, {"5", "1999", 0.99, "k"}, {"7", "nowhere", 0.9, "k"}};
        const EvalResult r = evaluate(t, c, 0.8);
        QCOMPARE(r.predictedPairs, uint64_t{2000} * 1999 / 2);
        QCOMPARE(r.commonPairs, uint64_t{2});
        QCOMPARE(r.truthDocuments, uint64_t{6});
        QCOMPARE(r.commonDocuments, uint64_t{5});
        QCOMPARE(r.predictedDocuments, uint64_t{2000});
    }

    void toJsonHasAllFields() {
        const EvalResult r = evaluate(handTruth(), handClusters(), 0.8);
        const QJsonObject o =
            QJsonDocument::fromJson(QByteArray::fromStdString(toJson(r))).object();
        QCOMPARE(o.size(), 12);
        QCOMPARE(o.value(QStringLiteral("threshold")).toDouble(), 0.8);
        QCOMPARE(o.value(QStringLiteral("truth_documents")).toInt(), 7);
        QCOMPARE(o.value(QStringLiteral("predicted_documents")).toInt(), 7);
        QCOMPARE(o.value(QStringLiteral("common_documents")).toInt(), 4);
        QCOMPARE(o.value(QStringLiteral("document_jaccard")).toDouble(), 0.4);
        QCOMPARE(o.value(QStringLiteral("document_precision")).toDouble(), 4.0 / 7.0);
        QCOMPARE(o.value(QStringLiteral("document_recall")).toDouble(), 4.0 / 7.0);
        QCOMPARE(o.value(QStringLiteral("truth_pairs")).toInt(), 4);
        QCOMPARE(o.value(QStringLiteral("predicted_pairs")).toInt(), 5);
        QCOMPARE(o.value(QStringLiteral("common_pairs")).toInt(), 2);
        QCOMPARE(o.value(QStringLiteral("pair_precision")).toDouble(), 0.4);
        QCOMPARE(o.value(QStringLiteral("pair_recall")).toDouble(), 0.5);
    }

    void readClustersValid() {
        QTemporaryDir dir;
        const std::string path = dir.filePath(QStringLiteral("clusters.jsonl")).toStdString();
        std::ofstream(path, std::ios::binary)
            << "{\"id\":\"doc-1\",\"cluster\":0,\"representative\":true}\n"
               "{\"cluster\": 0, \"id\": 42, \"representative\": false}\n"
               "\n"
               "{\"id\":\"doc-3\",\"cluster\":18446744073709551615}\r\n"
               "{\"id\":-5,\"cluster\":7,\"representative\":true,\"extra\":[1,2]}";
        const auto c = readClusters(path);
        QCOMPARE(c.size(), std::size_t{4});
        QCOMPARE(c[0].id, std::string("doc-1"));
        QCOMPARE(c[0].cluster, uint64_t{0});
        QCOMPARE(c[0].representative, true);
        QCOMPARE(c[1].id, std::string("42"));
        QCOMPARE(c[1].representative, false);
        QCOMPARE(c[2].cluster, UINT64_MAX);
        QCOMPARE(c[2].representative, false);
        QCOMPARE(c[3].id, std::string("-5"));
        QCOMPARE(c[3].cluster, uint64_t{7});
    }

    void readClustersErrors_data() {
        QTest::addColumn<QByteArray>("content");
        QTest::addColumn<QString>("where");
        QTest::addColumn<QString>("what");
        const QByteArray good = "{\"id\":\"a\",\"cluster\":1,\"representative\":true}\n";
        QTest::newRow("bad json") << good + good + "{\"id\": \"x\", \"cluster\": 1\n"
                                  << QStringLiteral(":3:") << QStringLiteral("invalid JSON");
        QTest::newRow("missing cluster") << good + "{\"id\":\"b\"}\n"
                                         << QStringLiteral(":2:") << QStringLiteral("cluster");
        QTest::newRow("negative cluster") << QByteArray("{\"id\":\"b\",\"cluster\":-1}\n")
                                          << QStringLiteral(":1:") << QStringLiteral("cluster");
        QTest::newRow("bool id") << good + "\n" + "{\"id\":true,\"cluster\":1}\n"
                                 << QStringLiteral(":3:") << QStringLiteral("id");
        QTest::newRow("missing id")
            << QByteArray("{\"cluster\":1}\n") << QStringLiteral(":1:") << QStringLiteral("id");
        QTest::newRow("not object") << good + "[1,2]\n"
                                    << QStringLiteral(":2:") << QStringLiteral("object");
        QTest::newRow("bad representative")
            << QByteArray("{\"id\":\"b\",\"cluster\":1,\"representative\":\"yes\"}\n")
            << QStringLiteral(":1:") << QStringLiteral("representative");
    }

    void readClustersErrors() {
        QFETCH(QByteArray, content);
        QFETCH(QString, where);
        QFETCH(QString, what);
        QTemporaryDir dir;
        const std::string path = dir.filePath(QStringLiteral("c.jsonl")).toStdString();
        std::ofstream(path, std::ios::binary) << content.toStdString();
        try {
            readClusters(path);
            QFAIL("no exception");
        } catch (const std::runtime_error& e) {
            const QString message = QString::fromStdString(e.what());
            QVERIFY2(message.startsWith(QString::fromStdString(path) + where), e.what());
            QVERIFY2(message.contains(what), e.what());
        }
        QVERIFY_THROWS_EXCEPTION(std::runtime_error, readClusters(path + ".missing"));
    }

    void exactJoinMatchesBruteForce_data() {
        QTest::addColumn<double>("floor");
        QTest::addColumn<bool>("words");
        QTest::newRow("char 0.5") << 0.5 << false;
        QTest::newRow("char 0.8") << 0.8 << false;
        QTest::newRow("char 0.95") << 0.95 << false;
        QTest::newRow("char 1.0") << 1.0 << false;
        QTest::newRow("word3 0.5") << 0.5 << true;
        QTest::newRow("word3 0.8") << 0.8 << true;
    }

    void exactJoinMatchesBruteForce() {
        QFETCH(double, floor);
        QFETCH(bool, words);
        auto [ids, texts] = samples();
        // Hand-made extremes: empty texts never pair, short identical ones do.
        for (const char* t :
             {"", "", "  ", "ab", "AB", "abc", "the same short text", "the same short text!"}) {
            ids.push_back("extra-" + std::to_string(ids.size()));
            texts.emplace_back(t);
        }
        GroundTruth cfg;
        cfg.floor = floor;
        if (words) {
            cfg.shingle = ShingleKind::Word;
            cfg.ngram = 3;
        }
        const auto expected = bruteForce(ids, texts, cfg);
        QVERIFY(expected.size() >= 20);
        for (const JoinStrategy s :
             {JoinStrategy::Scan, JoinStrategy::Prefix, JoinStrategy::Auto}) {
            for (const int threads : {1, 2}) {
                GroundTruth got = cfg;
                const JoinStrategy used = exactJoin(ids, texts, got, threads, s);
                QVERIFY(used != JoinStrategy::Auto);
                QCOMPARE(got.documents, uint64_t(ids.size()));
                QCOMPARE(got.pairs.size(), expected.size());
                for (std::size_t i = 0; i < expected.size(); ++i) {
                    QCOMPARE(got.pairs[i].a, expected[i].a);
                    QCOMPARE(got.pairs[i].b, expected[i].b);
                    QCOMPARE(got.pairs[i].jaccard, expected[i].jaccard);
                }
            }
        }
    }

    void exactJoinEdgeCases() {
        GroundTruth t;
        exactJoin({}, {}, t, 1);
        QCOMPARE(t.documents, uint64_t{0});
        QVERIFY(t.pairs.empty());

        exactJoin({"a", "b", "c"}, {"", " \n", "x"}, t, 2);
        QVERIFY(t.pairs.empty());  // empty sets never pair

        exactJoin({"a", "b", "c"}, {"Hi", "hi", "hi!"}, t, 2);  // one shingle each
        QCOMPARE(t.pairs.size(), std::size_t{1});
        QCOMPARE(t.pairs[0].a, std::string("a"));
        QCOMPARE(t.pairs[0].b, std::string("b"));
        QCOMPARE(t.pairs[0].jaccard, 1.0);

        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, exactJoin({"a"}, {}, t, 1));
        t.floor = 0;
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, exactJoin({"a"}, {"x"}, t, 1));
    }
};

QTEST_GUILESS_MAIN(TestEvaluation)
#include "test_evaluation.moc"
