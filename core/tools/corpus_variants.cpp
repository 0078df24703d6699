// Random families of the corpus generator: a base document of synthetic English and its planted
// variants (word edits at several rates, sentence insert/drop/shuffle, truncation, whitespace
// and case noise, NFD, mixtures), each kind with its weight.
#include <algorithm>
#include <cmath>

#include "corpus_families.h"
#include "text_synth.h"

namespace neardup::corpus {

namespace {

using synth::Document;
using synth::Rng;
using synth::Sentence;

struct VariantKind {
    const char* name;
    int weight;
    double editRate;  // word edit rate for word_edits_* kinds
};

constexpr VariantKind kKinds[] = {
    {"copy", 8, 0},
    {"word_edits_1pct", 5, 0.01},
    {"word_edits_2pct", 5, 0.02},
    {"word_edits_3pct", 5, 0.03},
    {"word_edits_5pct", 5, 0.05},
    {"word_edits_8pct", 5, 0.08},
    {"word_edits_12pct", 5, 0.12},
    {"word_edits_20pct", 5, 0.20},
    {"word_edits_30pct", 5, 0.30},
    {"sentence_insert", 6, 0},
    {"sentence_drop", 6, 0},
    {"sentence_shuffle", 5, 0},
    {"truncate", 6, 0},
    {"whitespace", 5, 0},
    {"case_title", 3, 0},
    {"case_upper", 3, 0},
    {"nfd", 5, 0},
    {"mixed", 6, 0},
};

const VariantKind& pickKind(Rng& rng) {
    int total = 0;
    for (const auto& k : kKinds)
        total += k.weight;
    int r = rng.between(0, total - 1);
    for (const auto& k : kKinds) {
        if (r < k.weight) return k;
        r -= k.weight;
    }
    return kKinds[0];
}

std::size_t sentenceCount(const Document& d) {
    std::size_t n = 0;
    for (const auto& p : d.paragraphs)
        n += p.size();
    return n;
}

// The i-th sentence in reading order.
Sentence& sentenceAt(Document& d, std::size_t i) {
    for (auto& p : d.paragraphs) {
        if (i < p.size()) return p[i];
        i -= p.size();
    }
    return d.paragraphs.back().back();
}

void dropEmptyParagraphs(Document& d) {
    std::erase_if(d.paragraphs, [](const synth::Paragraph& p) { return p.empty(); });
}

bool isPunct(char c) {
    return c == ',' || c == '.' || c == '?' || c == '!';
}

std::string freshWord(Rng& rng, bool capital, const std::string& replaced) {
    std::string w(synth::zipfWord(rng));
    if (capital) synth::capitalizeFirst(w);
    // Keep the replaced word's trailing punctuation so sentences stay sentences.
    std::size_t end = replaced.size();
    while (end > 0 && isPunct(replaced[end - 1]))
        --end;
    w.append(replaced, end, std::string::npos);
    return w;
}

// Substitutes, inserts and deletes round(rate * words) random words, one third each.
void wordEdits(Document& d, double rate, Rng& rng) {
    std::size_t words = 0;
    for (const auto& p : d.paragraphs)
        for (const auto& s : p)
            words += s.size();
    const auto edits = std::max<std::size_t>(
        1, static_cast<std::size_t>(std::llround(rate * static_cast<double>(words))));
    for (std::size_t e = 0; e < edits; ++e) {
        // A word position uniform over the document picks its sentence.
        std::size_t at = rng.below(words);
        Sentence* s = nullptr;
        for (auto& p : d.paragraphs) {
            for (auto& sent : p) {
                if (at < sent.size()) {
                    s = &sent;
                    break;
                }
                at -= sent.size();
            }
            if (s) break;
        }
        if (!s) continue;
        const int op = rng.between(0, 2);
        if (op == 1) {
            const std::size_t pos = 1 + rng.below(std::max<std::size_t>(s->size() - 1, 1));
            s->insert(s->begin() + static_cast<std::ptrdiff_t>(std::min(pos, s->size())),
                      std::string(synth::zipfWord(rng)));
            ++words;
        } else if (op == 2 && s->size() > 2) {
            // Neither the capitalized first word nor the punctuated last one.
            const std::size_t pos = 1 + rng.below(s->size() - 2);
            s->erase(s->begin() + static_cast<std::ptrdiff_t>(pos));
            --words;
        } else {
            (*s)[at] = freshWord(rng, at == 0, (*s)[at]);
        }
    }
}

void sentenceInsert(Document& d, Rng& rng) {
    const int k = rng.between(1, 3);
    for (int i = 0; i < k; ++i) {
        auto& p = d.paragraphs[rng.below(d.paragraphs.size())];
        const std::size_t pos = rng.below(p.size() + 1);
        p.insert(p.begin() + static_cast<std::ptrdiff_t>(pos), synth::makeSentence(rng, 8, 25));
    }
}

void sentenceDrop(Document& d, Rng& rng) {
    const std::size_t n = sentenceCount(d);
    if (n < 2) return;
    const std::size_t k = std::min<std::size_t>(static_cast<std::size_t>(rng.between(1, 3)), n / 2);
    for (std::size_t i = 0; i < k; ++i) {
        std::size_t at = rng.below(sentenceCount(d));
        for (auto& p : d.paragraphs) {
            if (at < p.size()) {
                p.erase(p.begin() + static_cast<std::ptrdiff_t>(at));
                break;
            }
            at -= p.size();
        }
        dropEmptyParagraphs(d);
    }
}

void sentenceShuffle(Document& d, Rng& rng) {
    const std::size_t n = sentenceCount(d);
    if (n < 2) return;
    const int k = rng.between(1, 3);
    for (int i = 0; i < k; ++i) {
        const std::size_t a = rng.below(n);
        std::size_t b = rng.below(n - 1);
        if (b >= a) ++b;
        std::swap(sentenceAt(d, a), sentenceAt(d, b));
    }
}

std::string truncate(std::string text, Rng& rng) {
    const double keep = 0.70 + 0.25 * rng.uniform();
    std::size_t cut = static_cast<std::size_t>(keep * static_cast<double>(text.size()));
    std::size_t at = cut;
    while (at > 0 && text[at] != ' ' && text[at] != '\n')
        --at;
    if (at == 0) {  // one long word: cut at a code point boundary instead
        at = cut;
        while (at > 0 && (static_cast<unsigned char>(text[at]) & 0xC0) == 0x80)
            --at;
    }
    text.resize(at);
    while (!text.empty() && (text.back() == ' ' || text.back() == '\n'))
        text.pop_back();
    return text;
}

// Whitespace noise that the default normalization (collapse + trim) removes.
std::string whitespace(const std::string& text, Rng& rng) {
    static constexpr const char* kRuns[] = {"  ", "   ", "\n", "\t", " \n", "\t ", "\n\n\n"};
    std::string out;
    out.reserve(text.size() + text.size() / 8 + 8);
    if (rng.chance(0.5)) out += rng.chance(0.5) ? "  " : "\n";
    for (const char c : text) {
        if (c == ' ' && rng.chance(0.12)) {
            out += kRuns[rng.below(std::size(kRuns))];
        } else {
            out += c;
        }
    }
    if (rng.chance(0.5)) out += rng.chance(0.5) ? " \n" : "\t";
    return out;
}

}  // namespace

Member randomMember(const Family& f, uint32_t member, double meanChars) {
    Rng base(f.seed);
    Document d = synth::makeDocument(base, synth::documentLength(base, meanChars));
    if (member == 0) return {synth::render(d), "base"};
    Rng rng(synth::deriveSeed(f.seed, member));
    const VariantKind& kind = pickKind(rng);
    const std::string name = kind.name;
    Member m;
    m.kind = name;
    if (kind.editRate > 0) {
        wordEdits(d, kind.editRate, rng);
        m.text = synth::render(d);
    } else if (name == "sentence_insert") {
        sentenceInsert(d, rng);
        m.text = synth::render(d);
    } else if (name == "sentence_drop") {
        sentenceDrop(d, rng);
        m.text = synth::render(d);
    } else if (name == "sentence_shuffle") {
        sentenceShuffle(d, rng);
        m.text = synth::render(d);
    } else if (name == "truncate") {
        m.text = truncate(synth::render(d), rng);
    } else if (name == "whitespace") {
        m.text = whitespace(synth::render(d), rng);
    } else if (name == "case_title") {
        m.text = synth::titleCase(synth::render(d));
    } else if (name == "case_upper") {
        m.text = synth::upperCase(synth::render(d));
    } else if (name == "nfd") {
        m.text = synth::toNfd(synth::render(d));
    } else if (name == "mixed") {
        wordEdits(d, 0.02, rng);
        sentenceDrop(d, rng);
        m.text = synth::render(d);
        m.text = rng.chance(0.5) ? whitespace(m.text, rng) : synth::titleCase(m.text);
    } else {
        m.text = synth::render(d);  // copy
    }
    return m;
}

}  // namespace neardup::corpus
