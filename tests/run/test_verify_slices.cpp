// Verification within a memory allowance (core/run/verify_slices.h): slices of whole components
// read each document once, a component larger than the allowance is cut, and the exact Jaccard
// of every pair is what verifying all pairs at once gives.
#include <QTemporaryDir>
#include <QTest>

#include <fstream>
#include <string>
#include <vector>

#include "document_table.h"
#include "input_pin.h"
#include "params.h"
#include "run_result.h"
#include "verify_slices.h"

using namespace neardup;

namespace {

// A JSONL file of `count` documents and their table. Document i of group g = i % groups is a
// variant of its group's text (a word changed per document), so the members of a group are
// near-duplicates of one another and of nothing else; the groups interleave in the file.
struct Corpus {
    std::vector<InputFile> files;
    DocumentTable docs;
};

Corpus writeCorpus(const std::string& path, int count, int groups) {
    Corpus c;
    std::ofstream out(path, std::ios::binary);
    uint64_t offset = 0;
    for (int i = 0; i < count; ++i) {
        const int group = i % groups;
        std::string text;
        for (int w = 0; w < 40; ++w)
            text += "g" + std::to_string(group) + "w" + std::to_string(w) + ' ';
        text += "variant" + std::to_string(i);
        const std::string line =
            "{\"id\":\"d" + std::to_string(i) + "\",\"text\":\"" + text + "\"}";
        out << line << '\n';
        c.docs.append(0, static_cast<uint64_t>(i) + 1, offset, static_cast<uint32_t>(line.size()),
                      static_cast<uint32_t>(text.size()), 0.0, "d" + std::to_string(i));
        offset += line.size() + 1;
    }
    out.close();
    InputFile file;
    file.path = path;
    statIdentity(file);  // as listing the inputs pins them (input_pin.h)
    c.files.push_back(file);
    return c;
}

// Every pair of documents within a group, in (a, b) order, none verified yet.
std::vector<ScoredPair> groupPairs(int count, int groups) {
    std::vector<ScoredPair> pairs;
    for (int a = 0; a < count; ++a)
        for (int b = a + groups; b < count; b += groups) {
            ScoredPair p;
            p.a = static_cast<uint32_t>(a);
            p.b = static_cast<uint32_t>(b);
            p.matches = 100;
            p.exact = -1.0f;
            pairs.push_back(p);
        }
    return pairs;
}

RunParams exactParams() {
    RunParams params;
    params.compare.verify = VerifyMode::Exact;
    return params;
}

// What one document costs the allowance, about (its line twice, 8 bytes a character).
uint64_t documentBytes(const Corpus& c) {
    return 2 * uint64_t{c.docs.length[0]} + 8 * uint64_t{c.docs.chars[0]} + 96;
}

}  // namespace

class TestVerifySlices : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;

  private slots:
    void initTestCase() { QVERIFY(dir_.isValid()); }

    // 60 documents in 20 interleaved groups of 3 (documents g, g + 20, g + 40): slicing the
    // pairs in their order would read the later members again in a later slice. With room for
    // a few groups at a time, every document is read once and the results are those of one pass.
    void readsEachDocumentOnceInSlicesOfWholeComponents() {
        const Corpus c = writeCorpus(dir_.path().toStdString() + "/groups.jsonl", 60, 20);
        const RunParams params = exactParams();
        std::vector<ScoredPair> whole = groupPairs(60, 20);
        const VerifyCounts one =
            verifyWithinBudget(whole, c.files, c.docs, params, 2, uint64_t{1} << 30, [] {});
        QCOMPARE(one.slices, std::size_t{1});
        QCOMPARE(one.pairs, whole.size());
        QCOMPARE(one.documentsRead, std::size_t{60});
        for (const ScoredPair& p : whole)
            QVERIFY(p.exact > 0.5f && p.exact < 1.0f);

        std::vector<ScoredPair> sliced = groupPairs(60, 20);
        const VerifyCounts few =
            verifyWithinBudget(sliced, c.files, c.docs, params, 2, 8 * documentBytes(c), [] {});
        QVERIFY2(few.slices >= 5, qPrintable(QString::number(few.slices)));
        QCOMPARE(few.pairs, whole.size());
        QCOMPARE(few.documentsRead, std::size_t{60});
        QCOMPARE(sliced.size(), whole.size());
        for (std::size_t i = 0; i < whole.size(); ++i)
            QCOMPARE(sliced[i].exact, whole[i].exact);
    }

    // One group of 12 documents, larger than the allowance: it is cut in the order of its pairs,
    // its documents read more than once, and every pair still gets its exact Jaccard.
    void cutsAComponentLargerThanTheAllowance() {
        const Corpus c = writeCorpus(dir_.path().toStdString() + "/one.jsonl", 12, 1);
        const RunParams params = exactParams();
        std::vector<ScoredPair> whole = groupPairs(12, 1);
        verifyWithinBudget(whole, c.files, c.docs, params, 1, uint64_t{1} << 30, [] {});
        std::vector<ScoredPair> sliced = groupPairs(12, 1);
        const VerifyCounts cut =
            verifyWithinBudget(sliced, c.files, c.docs, params, 1, 6 * documentBytes(c), [] {});
        QVERIFY(cut.slices > 1);
        QVERIFY(cut.documentsRead > 12);
        QCOMPARE(cut.pairs, whole.size());
        for (std::size_t i = 0; i < whole.size(); ++i)
            QCOMPARE(sliced[i].exact, whole[i].exact);
    }

    // Pairs the mode does not verify lose an exact Jaccard they had; those it verifies and that
    // have one keep it and are not read again.
    void leavesWhatTheModeDoesNotVerify() {
        const Corpus c = writeCorpus(dir_.path().toStdString() + "/mode.jsonl", 4, 2);
        RunParams params;
        params.compare.verify = VerifyMode::None;
        std::vector<ScoredPair> pairs = groupPairs(4, 2);
        for (ScoredPair& p : pairs)
            p.exact = 0.7f;
        VerifyCounts counts = verifyWithinBudget(pairs, c.files, c.docs, params, 1, 1, [] {});
        QCOMPARE(counts.pairs, std::size_t{0});
        for (const ScoredPair& p : pairs)
            QCOMPARE(p.exact, -1.0f);
        pairs = groupPairs(4, 2);
        pairs[0].exact = 0.7f;
        counts = verifyWithinBudget(pairs, c.files, c.docs, exactParams(), 1, 1, [] {});
        QCOMPARE(counts.pairs, pairs.size() - 1);
        QCOMPARE(pairs[0].exact, 0.7f);
        QVERIFY(pairs[1].exact > 0.5f);
    }
};

QTEST_GUILESS_MAIN(TestVerifySlices)
#include "test_verify_slices.moc"
