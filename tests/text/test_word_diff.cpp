// Word-level diff for the side-by-side comparison: tokens, minimal edit scripts, the edit budget.
#include <QTest>
#include <random>
#include <string>

#include "word_diff.h"

using namespace neardup;

namespace {

std::string word(std::string_view text, const WordToken& t) {
    return std::string(text.substr(t.begin, t.length));
}

// Rebuilds both word sequences from the runs, checking that they tile both sides in order and
// that Equal runs really pair equal words.
bool consistent(std::string_view a, std::string_view b, const WordDiff& d) {
    std::size_t ia = 0, ib = 0;
    for (const DiffRun& r : d.runs) {
        if (r.aBegin != ia || r.bBegin != ib) return false;
        if (r.kind == DiffKind::Equal) {
            if (r.aEnd - r.aBegin != r.bEnd - r.bBegin) return false;
            for (std::size_t k = 0; k < r.aEnd - r.aBegin; ++k)
                if (word(a, d.a[r.aBegin + k]) != word(b, d.b[r.bBegin + k])) return false;
        }
        if (r.kind == DiffKind::Delete && r.bEnd != r.bBegin) return false;
        if (r.kind == DiffKind::Insert && r.aEnd != r.aBegin) return false;
        ia = r.aEnd;
        ib = r.bEnd;
    }
    for (std::size_t i = 1; i < d.runs.size(); ++i)
        if (d.runs[i].kind == d.runs[i - 1].kind) return false;
    return ia == d.a.size() && ib == d.b.size();
}

// Length of the longest common subsequence by dynamic programming, the reference for Myers.
std::size_t lcsLength(const std::vector<std::string>& x, const std::vector<std::string>& y) {
    std::vector<std::size_t> prev(y.size() + 1, 0), cur(y.size() + 1, 0);
    for (std::size_t i = 1; i <= x.size(); ++i) {
        for (std::size_t j = 1; j <= y.size(); ++j)
            cur[j] = x[i - 1] == y[j - 1] ? prev[j - 1] + 1 : std::max(prev[j], cur[j - 1]);
        std::swap(prev, cur);
    }
    return prev[y.size()];
}

std::string join(const std::vector<std::string>& words) {
    std::string s;
    for (const auto& w : words)
        s += w + " ";
    return s;
}

}  // namespace

class TestWordDiff : public QObject {
    Q_OBJECT

  private slots:
    void tokenizesOnWhitespace() {
        const std::string text = "  héllo,\tworld\n\nfoo  ";
        const auto tokens = tokenizeWords(text);
        QCOMPARE(tokens.size(), std::size_t{3});
        QCOMPARE(word(text, tokens[0]), std::string("héllo,"));
        QCOMPARE(tokens[0].begin, 2u);
        QCOMPARE(word(text, tokens[1]), std::string("world"));
        QCOMPARE(word(text, tokens[2]), std::string("foo"));
        QVERIFY(tokenizeWords("").empty());
        QVERIFY(tokenizeWords(" \n\t ").empty());
    }

    void identicalTextsAreOneEqualRun() {
        const std::string a = "the quick brown fox";
        const WordDiff d = diffWords(a, "the  quick\nbrown fox");
        QCOMPARE(d.runs.size(), std::size_t{1});
        QCOMPARE(d.runs[0].kind, DiffKind::Equal);
        QCOMPARE(d.equalTokens, std::size_t{4});
        QVERIFY(!d.truncated);
    }

    void findsSubstitutionInsertionDeletion() {
        const std::string a = "the quick brown fox jumps over the lazy dog";
        const std::string b = "the quick red fox jumps over the very lazy dog today";
        const WordDiff d = diffWords(a, b);
        QVERIFY(consistent(a, b, d));
        QCOMPARE(d.equalTokens, std::size_t{8});
        std::vector<std::string> deleted, inserted;
        for (const DiffRun& r : d.runs) {
            for (std::size_t i = r.aBegin; r.kind == DiffKind::Delete && i < r.aEnd; ++i)
                deleted.push_back(word(a, d.a[i]));
            for (std::size_t i = r.bBegin; r.kind == DiffKind::Insert && i < r.bEnd; ++i)
                inserted.push_back(word(b, d.b[i]));
        }
        QCOMPARE(deleted, (std::vector<std::string>{"brown"}));
        QCOMPARE(inserted, (std::vector<std::string>{"red", "very", "today"}));
    }

    void emptySides() {
        const WordDiff d = diffWords("", "one two");
        QCOMPARE(d.runs.size(), std::size_t{1});
        QCOMPARE(d.runs[0].kind, DiffKind::Insert);
        QCOMPARE(d.runs[0].bEnd, std::size_t{2});
        const WordDiff e = diffWords("one two", "");
        QCOMPARE(e.runs.size(), std::size_t{1});
        QCOMPARE(e.runs[0].kind, DiffKind::Delete);
        QVERIFY(diffWords("", "").runs.empty());
    }

    void scriptIsMinimalOnRandomEdits() {
        // Small vocabulary, so many words repeat and the alignment is not obvious.
        std::mt19937 rng(7);
        const std::vector<std::string> vocab = {"a", "b", "c", "d", "e", "f"};
        for (int trial = 0; trial < 300; ++trial) {
            std::vector<std::string> x, y;
            const int nx = static_cast<int>(rng() % 40), ny = static_cast<int>(rng() % 40);
            for (int i = 0; i < nx; ++i)
                x.push_back(vocab[rng() % vocab.size()]);
            if (trial % 2 == 0) {
                y = x;  // then a few random edits
                for (int e = 0; e < ny % 6; ++e) {
                    const auto pos = y.empty() ? 0 : rng() % y.size();
                    if (rng() % 2 && !y.empty())
                        y.erase(y.begin() + static_cast<std::ptrdiff_t>(pos));
                    else
                        y.insert(y.begin() + static_cast<std::ptrdiff_t>(pos),
                                 vocab[rng() % vocab.size()]);
                }
            } else {
                for (int i = 0; i < ny; ++i)
                    y.push_back(vocab[rng() % vocab.size()]);
            }
            const std::string a = join(x), b = join(y);
            const WordDiff d = diffWords(a, b);
            QVERIFY(consistent(a, b, d));
            QCOMPARE(d.equalTokens, lcsLength(x, y));
        }
    }

    void editBudgetGivesOneReplaceRun() {
        std::string a = "same start ", b = "same start ";
        for (int i = 0; i < 50; ++i) {
            a += "x" + std::to_string(i) + " ";
            b += "y" + std::to_string(i) + " ";
        }
        a += "same end";
        b += "same end";
        const WordDiff d = diffWords(a, b, 10);
        QVERIFY(d.truncated);
        QVERIFY(consistent(a, b, d));
        QCOMPARE(d.runs.size(), std::size_t{3});
        QCOMPARE(d.runs[1].kind, DiffKind::Replace);
        QCOMPARE(d.runs[1].aEnd - d.runs[1].aBegin, std::size_t{50});
        QCOMPARE(d.equalTokens, std::size_t{4});
        // With enough budget the same texts get a real script.
        const WordDiff full = diffWords(a, b, 1000);
        QVERIFY(!full.truncated);
        QCOMPARE(full.equalTokens, std::size_t{4});
    }

    // With the run's normalization a copy that changed case, spacing and composition is equal
    // word for word, as the matcher sees it; without it, or with lowercasing off, it is not.
    void normalizedWordsCompareAsTheMatcherSees() {
        const std::string a = "The caf\xc3\xa9 opened  in PARIS\ttoday";
        const std::string b = "the cafe\xcc\x81 Opened in paris   TODAY";  // e + combining acute
        const WordDiff raw = diffWords(a, b);
        QCOMPARE(raw.equalTokens, std::size_t{1});  // "in"
        const NormalizeOptions matcher;             // NFC, lowercase, collapsed whitespace
        const WordDiff seen = diffWords(a, b, matcher);
        QCOMPARE(seen.equalTokens, std::size_t{6});
        QCOMPARE(seen.runs.size(), std::size_t{1});
        QCOMPARE(seen.runs[0].kind, DiffKind::Equal);
        // The tokens keep the original texts' offsets.
        QCOMPARE(word(b, seen.b[1]), std::string("cafe\xcc\x81"));
        NormalizeOptions caseKept;
        caseKept.lowercase = false;
        QCOMPARE(diffWords(a, b, caseKept).equalTokens, std::size_t{2});  // "caf\xc3\xa9", "in"
    }
};

QTEST_GUILESS_MAIN(TestWordDiff)
#include "test_word_diff.moc"
