#include "text_synth.h"

#include <utf8proc.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <set>
#include <utility>

namespace neardup::synth {

namespace {

// The most common English words, roughly by frequency: they carry about half of real text and
// give independent documents the small shingle overlap real English has.
constexpr const char* kFunctionWords[] = {
    "the",    "of",     "and",    "to",      "a",        "in",      "is",      "that",    "for",
    "it",     "as",     "was",    "with",    "be",       "by",      "on",      "not",     "he",
    "this",   "are",    "or",     "his",     "from",     "at",      "which",   "but",     "have",
    "an",     "had",    "they",   "you",     "were",     "their",   "one",     "all",     "we",
    "can",    "her",    "has",    "there",   "been",     "if",      "more",    "when",    "will",
    "would",  "who",    "so",     "no",      "she",      "other",   "its",     "may",     "these",
    "what",   "them",   "than",   "some",    "him",      "time",    "into",    "only",    "do",
    "could",  "new",    "about",  "two",     "then",     "first",   "also",    "any",     "my",
    "now",    "such",   "like",   "our",     "over",     "people",  "me",      "even",    "most",
    "made",   "after",  "many",   "must",    "did",      "through", "before",  "where",   "years",
    "should", "much",   "well",   "those",   "each",     "because", "way",     "between", "own",
    "very",   "up",     "out",    "just",    "how",      "same",    "under",   "might",   "while",
    "both",   "here",   "still",  "being",   "three",    "get",     "against", "without", "never",
    "since",  "again",  "few",    "however", "during",   "another", "last",    "every",   "world",
    "yet",    "though", "less",   "upon",    "per",      "among",   "whether", "within",  "nor",
    "thus",   "toward", "across", "often",   "around",   "until",   "down",    "off",     "above",
    "below",  "why",    "almost", "always",  "together", "once",    "already", "whose",   "year",
    "day",    "part",   "place",  "work",    "life",
};

// Precomposed (NFC) accented words, so NFD variants differ in bytes but not after normalization.
constexpr const char* kAccentedWords[] = {
    "café",     "naïve",  "résumé", "Zürich",   "façade",    "fiancée", "crème",       "brûlée",
    "jalapeño", "über",   "déjà",   "señor",    "Kraków",    "rôle",    "élite",       "piñata",
    "Müller",   "Genève", "Québec", "Ångström", "coöperate", "São",     "smörgåsbord", "entrée",
};

constexpr const char* kOnsets[] = {
    "b",  "c",  "d",  "f",  "g",  "h",  "j",  "k",  "l",   "m",  "n",  "p",  "r",  "s",  "t",
    "v",  "w",  "y",  "z",  "bl", "br", "ch", "cl", "cr",  "dr", "fl", "fr", "gl", "gr", "pl",
    "pr", "sc", "sh", "sl", "sm", "sn", "sp", "st", "str", "sw", "th", "tr", "wh", "qu",
};
constexpr const char* kVowels[] = {"a",  "e",  "i",  "o",  "u",  "a",  "e",  "i", "o",
                                   "ai", "ea", "ee", "oo", "ou", "ie", "oa", "y"};
constexpr const char* kCodas[] = {"n",  "r",  "s",  "t",  "l", "m",  "nd", "st", "ng",
                                  "ck", "rt", "ld", "nt", "x", "sh", "th", "p",  "d"};
constexpr const char* kSuffixes[] = {"ing", "ed", "er", "ly", "tion", "ness", "s", "al", "ment"};

constexpr std::size_t kPseudoWords = 4000;
constexpr std::size_t kRareFrom = 150;  // ranks below are the function words
constexpr double kZipfExponent = 1.0;
constexpr double kZipfShift = 2.7;  // Zipf-Mandelbrot offset: flattens the very top ranks

template <std::size_t N>
const char* pick(Rng& rng, const char* const (&list)[N]) {
    return list[rng.below(N)];
}

std::string pseudoWord(Rng& rng) {
    const double u = rng.uniform();
    const int syllables = u < 0.30 ? 1 : u < 0.70 ? 2 : u < 0.92 ? 3 : 4;
    std::string w;
    for (int s = 0; s < syllables; ++s) {
        if (s == 0 ? rng.chance(0.85) : rng.chance(0.95)) w += pick(rng, kOnsets);
        w += pick(rng, kVowels);
        if (rng.chance(0.45)) w += pick(rng, kCodas);
    }
    if (rng.chance(0.15)) w += pick(rng, kSuffixes);
    return w;
}

struct Vocabulary {
    std::vector<std::string> words;  // by Zipf rank
    std::vector<double> cumulative;  // unnormalized cumulative Zipf weights

    Vocabulary() {
        // A fixed seed: every corpus speaks the same language; the corpus seed picks the text.
        Rng rng(0x7E57C0DE5EED0001ull);
        std::set<std::string> seen;
        for (const char* w : kFunctionWords)
            seen.insert(w);
        for (const char* w : kAccentedWords)
            seen.insert(w);
        std::vector<std::pair<double, std::string>> pseudo;
        while (pseudo.size() < kPseudoWords) {
            std::string w = pseudoWord(rng);
            if (w.size() < 2 || w.size() > 14 || !seen.insert(w).second) continue;
            // Shorter words tend to be more frequent, as in real languages.
            const double key = static_cast<double>(w.size()) + 6.0 * rng.uniform();
            pseudo.emplace_back(key, std::move(w));
        }
        std::stable_sort(pseudo.begin(), pseudo.end(),
                         [](const auto& a, const auto& b) { return a.first < b.first; });

        for (const char* w : kFunctionWords)
            words.emplace_back(w);
        std::size_t accented = 0;
        for (std::size_t i = 0; i < pseudo.size(); ++i) {
            // Accented words at moderately common ranks: a few per 2.6 KB document.
            if (i % 12 == 5 && accented < std::size(kAccentedWords))
                words.emplace_back(kAccentedWords[accented++]);
            words.push_back(std::move(pseudo[i].second));
        }
        while (accented < std::size(kAccentedWords))
            words.emplace_back(kAccentedWords[accented++]);

        cumulative.resize(words.size());
        double total = 0;
        for (std::size_t r = 0; r < words.size(); ++r) {
            total += 1.0 / std::pow(static_cast<double>(r) + 1.0 + kZipfShift, kZipfExponent);
            cumulative[r] = total;
        }
    }
};

const Vocabulary& vocab() {
    static const Vocabulary v;
    return v;
}

// Calls f(codepoint, isFirstOfWord) for each code point and re-encodes what f returns.
template <typename F>
std::string mapCodepoints(std::string_view utf8, F f) {
    std::string out;
    out.reserve(utf8.size() + 8);
    const auto* s = reinterpret_cast<const utf8proc_uint8_t*>(utf8.data());
    auto n = static_cast<utf8proc_ssize_t>(utf8.size());
    bool wordStart = true;
    while (n > 0) {
        utf8proc_int32_t cp = 0;
        utf8proc_ssize_t len = utf8proc_iterate(s, n, &cp);
        if (len <= 0) {  // invalid byte: keep it as is
            out += static_cast<char>(*s);
            ++s, --n;
            wordStart = false;
            continue;
        }
        const bool space = cp == ' ' || cp == '\n' || cp == '\t' || cp == '\r';
        const utf8proc_int32_t mapped = space ? cp : f(cp, wordStart);
        utf8proc_uint8_t buf[4];
        const auto w = utf8proc_encode_char(mapped, buf);
        out.append(reinterpret_cast<const char*>(buf), static_cast<std::size_t>(w));
        wordStart = space;
        s += len;
        n -= len;
    }
    return out;
}

}  // namespace

uint64_t Rng::below(uint64_t n) {
    // Multiply-shift range reduction: bias below 2^-40 for our ranges, and exactly reproducible.
    __extension__ typedef unsigned __int128 u128;
    return static_cast<uint64_t>((static_cast<u128>(next()) * n) >> 64);
}

double Rng::normal() {
    const double u1 = (static_cast<double>(next() >> 11) + 1.0) * 0x1.0p-53;  // (0, 1]
    const double u2 = uniform();
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
}

uint64_t deriveSeed(uint64_t seed, uint64_t stream) {
    return hashmath::mix64(hashmath::mix64(seed ^ 0x6A09E667F3BCC909ull) +
                           stream * 0xD1B54A32D192ED03ull + 0x8CB92BA72F3D8DD7ull);
}

std::string_view zipfWord(Rng& rng) {
    const auto& v = vocab();
    const double u = rng.uniform() * v.cumulative.back();
    auto it = std::upper_bound(v.cumulative.begin(), v.cumulative.end(), u);
    if (it == v.cumulative.end()) --it;
    return v.words[static_cast<std::size_t>(it - v.cumulative.begin())];
}

std::string_view rareWord(Rng& rng) {
    const auto& v = vocab();
    return v.words[kRareFrom + rng.below(v.words.size() - kRareFrom)];
}

std::size_t vocabularySize() {
    return vocab().words.size();
}

void capitalizeFirst(std::string& word) {
    if (word.empty()) return;
    const auto c = static_cast<unsigned char>(word[0]);
    if (c < 0x80) {
        if (c >= 'a' && c <= 'z') word[0] = static_cast<char>(c - 'a' + 'A');
        return;
    }
    utf8proc_int32_t cp = 0;
    const auto len = utf8proc_iterate(reinterpret_cast<const utf8proc_uint8_t*>(word.data()),
                                      static_cast<utf8proc_ssize_t>(word.size()), &cp);
    if (len <= 0) return;
    utf8proc_uint8_t buf[4];
    const auto w = utf8proc_encode_char(utf8proc_toupper(cp), buf);
    word.replace(0, static_cast<std::size_t>(len), reinterpret_cast<const char*>(buf),
                 static_cast<std::size_t>(w));
}

Sentence makeSentence(Rng& rng, int minWords, int maxWords) {
    const int n = rng.between(minWords, maxWords);
    Sentence s;
    s.reserve(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) {
        std::string w;
        const double u = rng.uniform();
        if (u < 0.015) {
            w = std::to_string(rng.between(2, 2024));
        } else if (u < 0.025) {
            w += '"';  // exercises JSON escaping
            w += zipfWord(rng);
            w += '"';
        } else if (u < 0.0252) {
            w += "C:\\";  // a backslash, rare as in real text
            w += rareWord(rng);
        } else {
            w = zipfWord(rng);
        }
        if (i == 0) capitalizeFirst(w);
        if (i + 1 < n && rng.chance(0.07)) w += ',';
        s.push_back(std::move(w));
    }
    const double u = rng.uniform();
    s.back() += u < 0.90 ? '.' : u < 0.96 ? '?' : '!';
    return s;
}

double documentLength(Rng& rng, double meanChars) {
    constexpr double sigma = 0.35;
    const double len = meanChars * std::exp(sigma * rng.normal() - 0.5 * sigma * sigma);
    return std::clamp(len, std::max(40.0, 0.25 * meanChars), 5.0 * meanChars);
}

Document makeDocument(Rng& rng, double targetChars) {
    Document d;
    double chars = 0;
    std::size_t sentences = 0;
    while (chars < targetChars || sentences < 2) {
        Paragraph p;
        const int count = rng.between(2, 6);
        for (int i = 0; i < count && (chars < targetChars || sentences < 2); ++i) {
            Sentence s = makeSentence(rng, 8, 25);
            for (const auto& w : s)
                chars += static_cast<double>(w.size() + 1);
            ++sentences;
            p.push_back(std::move(s));
        }
        d.paragraphs.push_back(std::move(p));
    }
    return d;
}

std::string render(const Sentence& s) {
    std::string out;
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (i) out += ' ';
        out += s[i];
    }
    return out;
}

std::string render(const Document& d) {
    std::string out;
    for (std::size_t p = 0; p < d.paragraphs.size(); ++p) {
        if (p) out += "\n\n";
        const auto& para = d.paragraphs[p];
        for (std::size_t i = 0; i < para.size(); ++i) {
            if (i) out += ' ';
            out += render(para[i]);
        }
    }
    return out;
}

std::string upperCase(std::string_view utf8) {
    return mapCodepoints(utf8, [](utf8proc_int32_t cp, bool) { return utf8proc_toupper(cp); });
}

std::string titleCase(std::string_view utf8) {
    return mapCodepoints(
        utf8, [](utf8proc_int32_t cp, bool first) { return first ? utf8proc_toupper(cp) : cp; });
}

std::string toNfd(std::string_view utf8) {
    utf8proc_uint8_t* out = nullptr;
    const utf8proc_ssize_t n =
        utf8proc_map(reinterpret_cast<const utf8proc_uint8_t*>(utf8.data()),
                     static_cast<utf8proc_ssize_t>(utf8.size()), &out,
                     static_cast<utf8proc_option_t>(UTF8PROC_STABLE | UTF8PROC_DECOMPOSE));
    if (n < 0) return std::string(utf8);  // only on invalid input, which we never generate
    std::string result(reinterpret_cast<const char*>(out), static_cast<std::size_t>(n));
    std::free(out);
    return result;
}

}  // namespace neardup::synth
