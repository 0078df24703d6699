// Corpus generator and ground truth: determinism, valid JSON Lines, every planted kind, truth
// Jaccards recomputed independently (Qt's Unicode functions, not the engine's), truth equal to
// an exact all-pairs join, and the truth file round trip.
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>
#include <QUtf8StringView>

#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <unordered_set>

#include "corpus_generator.h"
#include "evaluation.h"
#include "exact_join.h"

using namespace neardup;

namespace {

struct Corpus {
    std::string jsonl;
    GroundTruth truth;
    std::vector<std::string> ids, texts;
};

Corpus generate(uint64_t documents, uint64_t seed, double floor = 0.5) {
    Corpus c;
    GeneratorOptions o;
    o.documents = documents;
    o.seed = seed;
    c.truth.floor = floor;
    std::ostringstream out;
    generateCorpus(o, out, c.truth);
    c.jsonl = out.str();
    std::istringstream in(c.jsonl);
    std::string line;
    while (std::getline(in, line)) {
        const QJsonDocument doc = QJsonDocument::fromJson(QByteArray::fromStdString(line));
        c.ids.push_back(doc.object().value(QStringLiteral("id")).toString().toStdString());
        c.texts.push_back(doc.object().value(QStringLiteral("text")).toString().toStdString());
    }
    return c;
}

std::string truthJson(const GroundTruth& t) {
    std::ostringstream out;
    writeTruth(t, out);
    return out.str();
}

// Character 5-shingle Jaccard under the default normalization, written with Qt: NFC, lowercase,
// whitespace collapsed and trimmed (QString::simplified), windows of 5 code points; a text
// shorter than 5 is one shingle, an empty one has none.
double qtJaccard(const std::string& a, const std::string& b) {
    const auto shingles = [](const std::string& s) {
        const QList<uint> cps = QString::fromStdString(s)
                                    .normalized(QString::NormalizationForm_C)
                                    .toLower()
                                    .simplified()
                                    .toUcs4();
        std::unordered_set<std::u32string> set;
        if (cps.isEmpty()) return set;
        std::u32string all(cps.begin(), cps.end());
        if (all.size() < 5) {
            set.insert(all);
            return set;
        }
        for (std::size_t i = 0; i + 5 <= all.size(); ++i)
            set.insert(all.substr(i, 5));
        return set;
    };
    const auto x = shingles(a), y = shingles(b);
    if (x.empty() || y.empty()) return 0.0;
    std::size_t common = 0;
    for (const auto& s : x)
        common += y.count(s);
    return static_cast<double>(common) / static_cast<double>(x.size() + y.size() - common);
}

std::set<std::pair<std::string, std::string>> pairSet(const GroundTruth& t) {
    std::set<std::pair<std::string, std::string>> s;
    for (const auto& p : t.pairs)
        s.insert({p.a, p.b});
    return s;
}

}  // namespace

class TestGenerator : public QObject {
    Q_OBJECT

  private slots:
    void deterministic() {
        const Corpus a = generate(400, 11), b = generate(400, 11), c = generate(400, 12);
        QVERIFY(a.jsonl == b.jsonl);
        QVERIFY(truthJson(a.truth) == truthJson(b.truth));
        QVERIFY(a.jsonl != c.jsonl);
        QVERIFY(truthJson(a.truth) != truthJson(c.truth));
        QCOMPARE(a.truth.documents, uint64_t{400});
    }

    void validJsonLines() {
        const Corpus c = generate(1000, 3);
        std::istringstream in(c.jsonl);
        std::string line;
        std::size_t n = 0;
        std::set<std::string> ids;
        std::size_t empty = 0, tiny = 0, small = 0, tabs = 0, quotes = 0, backslashes = 0,
                    decomposed = 0, accented = 0;
        while (std::getline(in, line)) {
            ++n;
            QVERIFY2(QUtf8StringView(line).isValidUtf8(), line.c_str());
            QJsonParseError error{};
            const QJsonDocument doc =
                QJsonDocument::fromJson(QByteArray::fromStdString(line), &error);
            QVERIFY2(error.error == QJsonParseError::NoError, line.c_str());
            QVERIFY(doc.isObject());
            const QJsonObject o = doc.object();
            QCOMPARE(o.size(), 2);
            QVERIFY(o.value(QStringLiteral("id")).isString());
            QVERIFY(o.value(QStringLiteral("text")).isString());
            char expected[32];
            std::snprintf(expected, sizeof expected, "doc-%06zu", n);
            QCOMPARE(o.value(QStringLiteral("id")).toString(), QString::fromLatin1(expected));
            ids.insert(expected);
            const QString text = o.value(QStringLiteral("text")).toString();
            const qsizetype chars = text.toUcs4().size();
            empty += text.trimmed().isEmpty();
            tiny += chars > 0 && chars < 5;
            small += chars >= 5 && chars <= 40;
            tabs += text.contains(QLatin1Char('\t'));
            quotes += text.contains(QLatin1Char('"'));
            backslashes += text.contains(QLatin1Char('\\'));
            decomposed += text != text.normalized(QString::NormalizationForm_C);
            accented += text.contains(QStringLiteral("é"));
        }
        QCOMPARE(n, std::size_t{1000});
        QCOMPARE(ids.size(), std::size_t{1000});
        // Edge cases and characters that need escaping are all there.
        QVERIFY(empty >= 3);
        QVERIFY(tiny >= 5);
        QVERIFY(small >= 10);
        QVERIFY(tabs > 0);
        QVERIFY(quotes > 0);
        QVERIFY(backslashes > 0);
        QVERIFY(decomposed > 0);
        QVERIFY(accented > 0);
        // Paragraph breaks are escaped, never raw newlines inside a line.
        QVERIFY(c.jsonl.find("\\n\\n") != std::string::npos);
    }

    void documentLengths() {
        const Corpus c = generate(2000, 5);
        double bytes = 0;
        std::size_t longDocs = 0;
        for (const auto& t : c.texts) {
            bytes += static_cast<double>(t.size());
            longDocs += t.size() > 1000;
        }
        const double mean = bytes / static_cast<double>(c.texts.size());
        QVERIFY2(mean > 2000 && mean < 3000, std::to_string(mean).c_str());
        QVERIFY(longDocs > 1700);
    }

    void allKindsPresent() {
        // A low floor lists even the 30% word edits; the generator lists family pairs only.
        const Corpus c = generate(2000, 9, 0.3);
        std::map<std::string, std::size_t> kinds;
        for (const auto& p : c.truth.pairs)
            ++kinds[p.kind];
        for (const char* k : {"copy",
                              "word_edits_1pct",
                              "word_edits_2pct",
                              "word_edits_3pct",
                              "word_edits_5pct",
                              "word_edits_8pct",
                              "word_edits_12pct",
                              "word_edits_20pct",
                              "word_edits_30pct",
                              "sentence_insert",
                              "sentence_drop",
                              "sentence_shuffle",
                              "truncate",
                              "whitespace",
                              "case_title",
                              "case_upper",
                              "nfd",
                              "mixed",
                              "template",
                              "siblings"})
            QVERIFY2(kinds.count(k) == 1, k);
        // Similarities spread over the whole range above the floor, not only copies.
        std::size_t bins[10] = {};
        for (const auto& p : c.truth.pairs)
            ++bins[std::min(9, static_cast<int>(p.jaccard * 10))];
        for (int b = 5; b < 10; ++b)
            QVERIFY2(bins[b] >= 20, std::to_string(b).c_str());
    }

    void variantsNotAdjacent() {
        const Corpus c = generate(2000, 4);
        std::size_t adjacent = 0;
        for (const auto& p : c.truth.pairs) {
            QVERIFY(p.a < p.b);  // base (or earlier sibling) first
            adjacent += std::stoul(p.b.substr(4)) == std::stoul(p.a.substr(4)) + 1;
        }
        QVERIFY(c.truth.pairs.size() > 500);
        QVERIFY(adjacent * 100 < c.truth.pairs.size());
    }

    void truthRecomputedIndependently() {
        const Corpus c = generate(600, 21);
        std::map<std::string, std::size_t> index;
        for (std::size_t i = 0; i < c.ids.size(); ++i)
            index[c.ids[i]] = i;
        QVERIFY(c.truth.pairs.size() > 100);
        for (const auto& p : c.truth.pairs) {
            const double j = qtJaccard(c.texts[index.at(p.a)], c.texts[index.at(p.b)]);
            QVERIFY2(std::abs(j - p.jaccard) < 1e-12,
                     (p.a + " " + p.b + " " + p.kind + " " + std::to_string(j)).c_str());
            QVERIFY(p.jaccard >= 0.5);
            // Variants that differ only in what normalization removes are identical sets.
            if (p.kind == "copy" || p.kind == "whitespace" || p.kind == "case_title" ||
                p.kind == "case_upper" || p.kind == "nfd")
                QCOMPARE(p.jaccard, 1.0);
        }
    }

    void truthEqualsExactJoin() {
        const Corpus c = generate(600, 1);
        for (const JoinStrategy s :
             {JoinStrategy::Auto, JoinStrategy::Scan, JoinStrategy::Prefix}) {
            GroundTruth joined;
            joined.floor = c.truth.floor;
            exactJoin(c.ids, c.texts, joined, 2, s);
            QCOMPARE(joined.documents, uint64_t{600});
            QCOMPARE(joined.pairs.size(), c.truth.pairs.size());
            // Same pairs in the same (document) order, same Jaccards.
            for (std::size_t i = 0; i < joined.pairs.size(); ++i) {
                QCOMPARE(joined.pairs[i].a, c.truth.pairs[i].a);
                QCOMPARE(joined.pairs[i].b, c.truth.pairs[i].b);
                QVERIFY(std::abs(joined.pairs[i].jaccard - c.truth.pairs[i].jaccard) < 1e-12);
                QCOMPARE(joined.pairs[i].kind, std::string("exact_join"));
            }
            QVERIFY(pairSet(joined) == pairSet(c.truth));
        }
    }

    void truthRoundTrip() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        Corpus c = generate(300, 8);
        c.truth.pairs.push_back({"we\"ird\\id\n", "ü-ñ", 0.123456789012345678, "odd\tkind"});
        c.truth.shingle = ShingleKind::Word;
        c.truth.ngram = 3;
        c.truth.normalize.lowercase = false;
        c.truth.normalize.trim = false;
        const std::string path = dir.filePath(QStringLiteral("truth.json")).toStdString();
        {
            std::ofstream out(path, std::ios::binary);
            writeTruth(c.truth, out);
        }
        const GroundTruth back = readTruth(path);
        QCOMPARE(back.documents, c.truth.documents);
        QVERIFY(back.shingle == ShingleKind::Word);
        QCOMPARE(back.ngram, 3);
        QCOMPARE(back.normalize.nfc, true);
        QCOMPARE(back.normalize.lowercase, false);
        QCOMPARE(back.normalize.collapseWhitespace, true);
        QCOMPARE(back.normalize.trim, false);
        QCOMPARE(back.floor, c.truth.floor);
        QCOMPARE(back.pairs.size(), c.truth.pairs.size());
        for (std::size_t i = 0; i < back.pairs.size(); ++i) {
            QCOMPARE(back.pairs[i].a, c.truth.pairs[i].a);
            QCOMPARE(back.pairs[i].b, c.truth.pairs[i].b);
            QCOMPARE(back.pairs[i].jaccard, c.truth.pairs[i].jaccard);  // bit for bit
            QCOMPARE(back.pairs[i].kind, c.truth.pairs[i].kind);
        }
        // The file is plain JSON that other tools read too.
        QFile file(QString::fromStdString(path));
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QByteArray text = file.readAll();
        QJsonParseError error{};
        const QJsonDocument doc = QJsonDocument::fromJson(text, &error);
        QVERIFY(error.error == QJsonParseError::NoError);
        QCOMPARE(doc.object().value(QStringLiteral("shingle")).toString(), QStringLiteral("word"));
    }

    void readTruthErrors() {
        QTemporaryDir dir;
        const auto write = [&](const char* name, const char* text) {
            const std::string path = dir.filePath(QString::fromLatin1(name)).toStdString();
            std::ofstream(path, std::ios::binary) << text;
            return path;
        };
        const auto fails = [](const std::string& path, const char* needle) {
            try {
                readTruth(path);
            } catch (const std::runtime_error& e) {
                const std::string what = e.what();
                return what.find(path) != std::string::npos &&
                       what.find(needle) != std::string::npos;
            }
            return false;
        };
        QVERIFY(fails(dir.filePath(QStringLiteral("missing.json")).toStdString(), "cannot read"));
        QVERIFY(fails(write("bad.json", "{\"documents\": 3,"), "invalid JSON"));
        QVERIFY(fails(write("shingle.json",
                            "{\"documents\":1,\"shingle\":\"byte\",\"ngram\":5,\"floor\":0.5,"
                            "\"pairs\":[]}"),
                      "shingle"));
        QVERIFY(fails(write("pair.json",
                            "{\"documents\":1,\"shingle\":\"char\",\"ngram\":5,\"floor\":0.5,"
                            "\"pairs\":[{\"a\":\"x\",\"b\":\"y\"}]}"),
                      "jaccard"));
        // Integer ids are accepted and become decimal strings.
        const GroundTruth t =
            readTruth(write("ints.json",
                            "{\"documents\":2,\"shingle\":\"char\",\"ngram\":5,\"floor\":0.5,"
                            "\"pairs\":[{\"a\":1,\"b\":2,\"jaccard\":1}]}"));
        QCOMPARE(t.pairs.size(), std::size_t{1});
        QCOMPARE(t.pairs[0].a, std::string("1"));
        QCOMPARE(t.pairs[0].jaccard, 1.0);
    }

    void smallCorpora() {
        for (const uint64_t n : {uint64_t{0}, uint64_t{1}, uint64_t{7}, uint64_t{50}}) {
            const Corpus c = generate(n, 2);
            QCOMPARE(c.ids.size(), std::size_t(n));
            QCOMPARE(c.truth.documents, n);
        }
    }
};

QTEST_GUILESS_MAIN(TestGenerator)
#include "test_generator.moc"
