// Witness decisions end to end, through `neardup run` as a process: on a chain of small edits
// every removed document is a near-duplicate (exact Jaccard >= threshold) of the kept document
// named as its witness; --decide components reproduces the connected-components result; the
// summary counts chained removals; re-clustering at another threshold recomputes witnesses from
// the stored pairs; outputs are byte-identical across threads and workers.
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "chain_corpus.h"
#include "component_chain.h"
#include "project_store.h"
#include "shingles.h"
#include "test_support.h"

using namespace neardup;
using testsupport::readFile;

namespace {

using Result = testsupport::CliResult;

// Exact Jaccard of two texts' character 5-gram sets under the default normalization.
double exact(const std::string& a, const std::string& b) {
    Normalizer n{NormalizeOptions{}};
    std::vector<uint32_t> symbols;
    std::vector<uint64_t> sa, sb;
    toSymbols(ShingleKind::Char, n.run(a), symbols);
    shingleSet(symbols.data(), symbols.size(), 5, sa);
    toSymbols(ShingleKind::Char, n.run(b), symbols);
    shingleSet(symbols.data(), symbols.size(), 5, sb);
    return exactJaccard(sa, sb);
}

std::vector<QJsonObject> jsonLines(const std::string& path) {
    std::vector<QJsonObject> rows;
    std::ifstream in(path);
    std::string line;
    while (std::getline(in, line))
        rows.push_back(QJsonDocument::fromJson(QByteArray::fromStdString(line)).object());
    return rows;
}

QJsonObject summary(const std::string& path) {
    return QJsonDocument::fromJson(QByteArray::fromStdString(readFile(path))).object();
}

}  // namespace

class TestWitness : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    std::string corpus_;
    std::map<std::string, std::string> texts_;

    std::string d(const std::string& name) const {
        return dir_.filePath(QString::fromStdString(name)).toStdString();
    }

    // neardup run on the chain into project NAME.ndw with outputs NAME.clusters, .removed,
    // .jsonl and .summary.
    Result run(const std::string& name, QStringList extra) {
        QStringList args{QStringLiteral("run"),
                         QString::fromStdString(corpus_),
                         QStringLiteral("-p"),
                         QString::fromStdString(d(name + ".ndw")),
                         QStringLiteral("--backend"),
                         QStringLiteral("cpu"),
                         QStringLiteral("--out-clusters"),
                         QString::fromStdString(d(name + ".clusters")),
                         QStringLiteral("--out-removed"),
                         QString::fromStdString(d(name + ".removed")),
                         QStringLiteral("--out-jsonl"),
                         QString::fromStdString(d(name + ".jsonl")),
                         QStringLiteral("--summary-json"),
                         QString::fromStdString(d(name + ".summary"))};
        args << extra;
        return testsupport::neardup(args);
    }

    // Every removed member names a kept witness whose exact Jaccard with it is >= threshold,
    // and its reported exact Jaccard is that one. Returns the number of removed members.
    int checkWitnesses(const std::string& name, double threshold) {
        std::map<std::string, bool> kept;
        const auto rows = jsonLines(d(name + ".clusters"));
        for (const QJsonObject& r : rows)
            kept[r.value(QStringLiteral("id")).toString().toStdString()] =
                !r.contains(QStringLiteral("witness"));
        int removed = 0;
        for (const QJsonObject& r : rows) {
            if (!r.contains(QStringLiteral("witness"))) continue;
            ++removed;
            const std::string id = r.value(QStringLiteral("id")).toString().toStdString();
            const QJsonValue w = r.value(QStringLiteral("witness"));
            if (!w.isString()) {
                QTest::qFail(("no witness for " + id).c_str(), __FILE__, __LINE__);
                return -1;
            }
            const std::string witness = w.toString().toStdString();
            if (!kept[witness]) {
                QTest::qFail((id + "'s witness " + witness + " is not kept").c_str(), __FILE__,
                             __LINE__);
                return -1;
            }
            const double j = exact(texts_.at(id), texts_.at(witness));
            if (j < threshold - 1e-6 ||
                std::abs(j - r.value(QStringLiteral("exact")).toDouble()) > 1e-6) {
                QTest::qFail((id + " has exact Jaccard " + std::to_string(j) +
                              " with its witness " + witness)
                                 .c_str(),
                             __FILE__, __LINE__);
                return -1;
            }
        }
        return removed;
    }

  private slots:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        corpus_ = d("chain.jsonl");
        texts_ = testsupport::writeChainCorpus(corpus_);
        // The chain is what the issue describes: neighbours near-duplicates, ends far apart.
        QVERIFY(exact(texts_.at("v00"), texts_.at("v01")) > 0.8);
        QVERIFY(exact(texts_.at("v00"), texts_.at("v24")) < 0.5);
    }

    void chainUnderTheWitnessRule() {
        const Result r = run("witness", {QStringLiteral("--verify"), QStringLiteral("exact"),
                                         QStringLiteral("-j"), QStringLiteral("1")});
        QCOMPARE(r.code, 0);
        QVERIFY2(r.err.contains(QStringLiteral("decided by witness")), qPrintable(r.err));
        const int removed = checkWitnesses("witness", 0.8);
        QVERIFY(removed > 0);
        const QJsonObject s = summary(d("witness.summary"));
        QCOMPARE(s.value(QStringLiteral("removed")).toInt(), removed);
        QCOMPARE(s.value(QStringLiteral("decide")).toString(), QStringLiteral("witness"));
        // The components rule would remove versions that resemble nothing kept.
        QVERIFY(s.value(QStringLiteral("chained_removals")).toInt() >= 15);
        // --out-removed stays one id per line.
        const std::string ids = readFile(d("witness.removed"));
        QCOMPARE(int(std::count(ids.begin(), ids.end(), '\n')), removed);
        QVERIFY(ids.find('{') == std::string::npos);
        // The project records the rule and each removal's witness.
        const std::string project = d("witness.ndw");
        QCOMPARE(testsupport::sqlRows(project, "SELECT decide FROM runs"),
                 QStringList{QStringLiteral("witness")});
        QCOMPARE(testsupport::sqlRows(project,
                                      "SELECT count(*) FROM document_status"
                                      " WHERE status = 'removed' AND removed_for >= 0"),
                 QStringList{QString::number(removed)});
    }

    // --decide components is today's rule: the whole chain is one cluster, the first version
    // kept and 24 removed, most of them without a witness.
    void chainUnderTheComponentsRule() {
        const Result r =
            run("components", {QStringLiteral("--verify"), QStringLiteral("exact"),
                               QStringLiteral("--decide"), QStringLiteral("components")});
        QCOMPARE(r.code, 0);
        const auto rows = jsonLines(d("components.clusters"));
        QCOMPARE(int(rows.size()), testsupport::kChainVersions);
        int removed = 0, chained = 0;
        for (const QJsonObject& row : rows) {
            const bool rep = row.value(QStringLiteral("representative")).toBool();
            QCOMPARE(rep, row.value(QStringLiteral("id")).toString() == QStringLiteral("v00"));
            if (rep) continue;
            ++removed;
            if (row.value(QStringLiteral("witness")).isNull()) {
                ++chained;
                const std::string id = row.value(QStringLiteral("id")).toString().toStdString();
                QVERIFY(exact(texts_.at(id), texts_.at("v00")) < 0.8);
            }
        }
        QCOMPARE(removed, testsupport::kChainVersions - 1);
        const QJsonObject s = summary(d("components.summary"));
        QCOMPARE(s.value(QStringLiteral("removed")).toInt(), testsupport::kChainVersions - 1);
        QCOMPARE(s.value(QStringLiteral("chained_removals")).toInt(), chained);
        QCOMPARE(summary(d("witness.summary")).value(QStringLiteral("chained_removals")).toInt(),
                 chained);
        QVERIFY(chained >= 15);
        // The summary goes to stderr (stdout stays free for an output named "-").
        QVERIFY2(r.err.contains(QStringLiteral("decided by components: %1 chained").arg(chained)),
                 qPrintable(r.err));
    }

    // A second run at a higher threshold reuses the stored pairs and finds witnesses anew.
    void reclusteringAtAnotherThreshold() {
        const Result r = run("witness", {QStringLiteral("--verify"), QStringLiteral("exact"),
                                         QStringLiteral("-t"), QStringLiteral("0.85")});
        QCOMPARE(r.code, 0);
        const QJsonObject s = summary(d("witness.summary"));
        QVERIFY(s.value(QStringLiteral("pairs_reused")).toBool());
        const int removed = checkWitnesses("witness", 0.85);
        QVERIFY(removed > 0);
        QCOMPARE(s.value(QStringLiteral("removed")).toInt(), removed);
    }

    // The run's summary names its largest components with their diameters: the chain is
    // flagged, the star beside it (every version a near-duplicate of its original) is not, and
    // the user is told where to look; --quiet prints none of it.
    void summaryFlagsTheChain() {
        const std::string corpus = d("chain-and-star.jsonl");
        testsupport::writeChainCorpus(corpus, 12);
        auto runOn = [&](const std::string& project, QStringList extra) {
            return testsupport::neardup(
                QStringList{QStringLiteral("run"), QString::fromStdString(corpus),
                            QStringLiteral("-p"), QString::fromStdString(d(project)),
                            QStringLiteral("--backend"), QStringLiteral("cpu")} +
                extra);
        };
        const Result r = runOn("flags.ndw", {});
        QCOMPARE(r.code, 0);
        const QRegularExpression listed(QStringLiteral(
            "largest components: 25 members \\(diameter (0\\.\\d\\d): a chain\\), 12 members "
            "\\(diameter (0\\.\\d\\d)\\)\n"));
        const QRegularExpressionMatch m = listed.match(r.err);
        QVERIFY2(m.hasMatch(), qPrintable(r.err));
        QVERIFY(m.captured(1).toDouble() < 0.694);  // the chain's ends are far apart
        QVERIFY(m.captured(2).toDouble() >= 0.694);
        QVERIFY2(r.err.contains(QStringLiteral("flagged: 1 chain(s) (diameter below 0.694")),
                 qPrintable(r.err));
        QVERIFY2(r.err.contains(QStringLiteral("Chain tab: neardup-workbench ") +
                                QString::fromStdString(d("flags.ndw"))),
                 qPrintable(r.err));
        // The diameter is the one the workbench shows: the lowest estimated Jaccard of a member
        // with the representative, from the run's cached signatures.
        const ProjectStore store(d("flags.ndw"), ProjectStore::Mode::ReadOnly);
        ComponentDiameters all;
        QVERIFY(all.load(store, 1));
        double lowest = 1.0;
        for (int v = 1; v < testsupport::kChainVersions; ++v)
            lowest = std::min(lowest, all.similarity(0, static_cast<uint32_t>(v)));
        QCOMPARE(m.captured(1), QString::number(lowest, 'f', 2));

        const Result quiet = runOn("quiet.ndw", {QStringLiteral("-q")});
        QCOMPARE(quiet.code, 0);
        QVERIFY2(!quiet.err.contains(QStringLiteral("largest components")), qPrintable(quiet.err));
    }

    void unknownRuleIsAUsageError() {
        const Result r = run("bad", {QStringLiteral("--decide"), QStringLiteral("closure")});
        QCOMPARE(r.code, 2);
    }

    // Byte-identical outputs for 1 and 2 threads and 2 CPU workers, under both rules.
    void identicalAcrossThreadsAndWorkers() {
        for (const char* rule : {"witness", "components"}) {
            const QStringList base{QStringLiteral("--decide"), QLatin1String(rule)};
            QCOMPARE(run(std::string("t1-") + rule,
                         base + QStringList{QStringLiteral("-j"), QStringLiteral("1")})
                         .code,
                     0);
            QCOMPARE(run(std::string("t2-") + rule,
                         base + QStringList{QStringLiteral("-j"), QStringLiteral("2")})
                         .code,
                     0);
            QCOMPARE(run(std::string("w2-") + rule,
                         base + QStringList{QStringLiteral("--workers"), QStringLiteral("2")})
                         .code,
                     0);
            for (const char* ext : {".clusters", ".removed", ".jsonl"}) {
                const std::string ref = readFile(d(std::string("t1-") + rule + ext));
                QVERIFY(!ref.empty());
                QVERIFY2(readFile(d(std::string("t2-") + rule + ext)) == ref, ext);
                QVERIFY2(readFile(d(std::string("w2-") + rule + ext)) == ref, ext);
            }
        }
    }
};

QTEST_GUILESS_MAIN(TestWitness)
#include "test_witness.moc"
