// Corpus generator: families of documents (a random base and its planted variants, a template
// family, or the short edge-case documents) placed at random positions. Every family member is a
// pure function of (seed, family, member), so the corpus is written in position order and the
// truth computed family by family without holding the corpus in memory.
#include <fmt/format.h>

#include <tbb/enumerable_thread_specific.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <set>
#include <stdexcept>

#include "corpus_generator.h"
#include "json_text.h"
#include "shingles.h"
#include "text_synth.h"

namespace neardup {

namespace {

using synth::Document;
using synth::Rng;
using synth::Sentence;

enum class FamilyType : uint8_t { Random, Template, Short };

struct Family {
    FamilyType type = FamilyType::Random;
    uint32_t size = 1;
    uint64_t seed = 0;
    uint64_t firstSlot = 0;  // members' positions: slots[firstSlot, firstSlot + size), ascending
};

struct Plan {
    std::vector<Family> families;
    std::vector<uint64_t> slots;        // position of each family member
    std::vector<uint32_t> ownerFamily;  // by position
    std::vector<uint8_t> ownerMember;   // by position
    std::vector<std::string> shortTexts;
};

struct Member {
    std::string text;
    std::string kind;  // how it was derived from member 0 (random families)
};

// ---- planted variants -------------------------------------------------------------------------

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

// ---- template families ------------------------------------------------------------------------
// Biography-like boilerplate ("<Name> was born in <City> ..."): members share the family's
// filler sentences and sentence patterns but differ in names, places and numbers.

constexpr const char* kFirstNames[] = {
    "Anna",   "James",  "Maria",  "John",   "Elena",  "Robert", "Sofia",  "Michael", "Laura",
    "David",  "Chloé",  "Thomas", "Emma",   "Daniel", "Olivia", "Lucas",  "Hannah",  "Peter",
    "Grace",  "Henry",  "Julia",  "Samuel", "Nora",   "Oliver", "Amélie", "Victor",  "Clara",
    "Martin", "Ingrid", "Paul",   "Zoë",    "Arthur", "Helen",  "Felix",  "Irene",   "José"};
constexpr const char* kLastNames[] = {
    "Smith",   "Johnson",   "Müller",   "García", "Rossi",   "Novak",   "Kowalski",  "Brown",
    "Dubois",  "Jensen",    "Nakamura", "Silva",  "Petrov",  "Larsen",  "Moreau",    "Fischer",
    "Taylor",  "Andersson", "Costa",    "Horvat", "Walker",  "Schmidt", "Lefèvre",   "Byrne",
    "O'Brien", "Weber",     "Romano",   "Hughes", "Ramírez", "Kovács",  "Lindqvist", "Evans"};
constexpr const char* kCities[] = {
    "Zürich",   "Kraków",  "São Paulo", "Montréal", "Genève",  "Boston",   "Lyon",    "Porto",
    "Vienna",   "Dublin",  "Oslo",      "Madrid",   "Chicago", "Toronto",  "Munich",  "Seville",
    "Gdańsk",   "Bergen",  "Leeds",     "Bologna",  "Utrecht", "Tartu",    "Brno",    "Malmö",
    "Curitiba", "Córdoba", "Aarhus",    "Graz",     "Nantes",  "Valencia", "Antwerp", "Reykjavík"};
constexpr const char* kOccupations[] = {
    "teacher",   "engineer",  "nurse",     "architect", "journalist", "carpenter",   "chemist",
    "librarian", "physician", "economist", "painter",   "translator", "pilot",       "farmer",
    "lawyer",    "historian", "musician",  "baker",     "geologist",  "photographer"};
constexpr const char* kFields[] = {
    "medieval history", "organic chemistry", "marine biology",      "civil engineering",
    "linguistics",      "political science", "applied mathematics", "astronomy",
    "art history",      "economics",         "philosophy",          "computer science",
    "music theory",     "public health",     "urban planning",      "glaciology"};
constexpr const char* kMonths[] = {"January",   "February", "March",    "April",
                                   "May",       "June",     "July",     "August",
                                   "September", "October",  "November", "December"};

constexpr const char* kPatterns[] = {
    "{name} was born in {city} in {year}.",
    "{first} studied {field} at the University of {city2}.",
    "After graduating, {first} worked as {a job} in {city2} for {n} years.",
    "In {year2}, {first} moved to {city3}, where {he} met {other}.",
    "{first} is best known for {his} work on {field}.",
    "{He} has published {n} books and more than {m} articles.",
    "{first} died in {city3} on {month} {day}, {year3}, at the age of {age}.",
    "{name} lives in {city} with {his} family and {n} cats.",
    "{He} received the {city} Prize for {field} in {year2}.",
    "Before that, {first} spent {n} years as {a job} in {city3}.",
    "{first} {last} later founded a small company in {city2}.",
    "According to {his} colleagues, {first} was {a job} of rare dedication.",
};

struct Fill {
    std::string first, last, city, city2, city3, job, field, other, month;
    int year = 0, year2 = 0, year3 = 0, n = 0, m = 0, day = 0, age = 0;
    int gender = 0;
};

template <std::size_t N>
const char* pickFrom(Rng& rng, const char* const (&list)[N]) {
    return list[rng.below(N)];
}

Fill randomFill(Rng& rng) {
    Fill f;
    f.first = pickFrom(rng, kFirstNames);
    f.last = pickFrom(rng, kLastNames);
    f.city = pickFrom(rng, kCities);
    f.city2 = pickFrom(rng, kCities);
    f.city3 = pickFrom(rng, kCities);
    f.job = pickFrom(rng, kOccupations);
    f.field = pickFrom(rng, kFields);
    f.other = std::string(pickFrom(rng, kFirstNames)) + " " + pickFrom(rng, kLastNames);
    f.month = pickFrom(rng, kMonths);
    f.year = rng.between(1900, 1990);
    f.year2 = f.year + rng.between(20, 40);
    f.year3 = f.year2 + rng.between(5, 30);
    f.n = rng.between(2, 30);
    f.m = rng.between(10, 300);
    f.day = rng.between(1, 28);
    f.age = f.year3 - f.year;
    f.gender = rng.between(0, 2);
    return f;
}

// A member keeps the family's value of each field with some probability, so similarity within
// a family varies from moderate to high; the person's name always changes.
Fill memberFill(const Fill& family, Rng& rng) {
    Fill f = randomFill(rng);
    const auto keep = [&rng] { return rng.chance(0.55); };
    if (keep()) f.city = family.city;
    if (keep()) f.city2 = family.city2;
    if (keep()) f.city3 = family.city3;
    if (keep()) f.job = family.job;
    if (keep()) f.field = family.field;
    if (keep()) f.other = family.other;
    if (keep()) f.month = family.month, f.day = family.day;
    if (keep()) f.n = family.n, f.m = family.m;
    return f;
}

std::string slot(std::string_view key, const Fill& f) {
    static constexpr const char* kHe[] = {"he", "she", "they"};
    static constexpr const char* kHis[] = {"his", "her", "their"};
    const auto g = static_cast<std::size_t>(f.gender);
    const std::pair<std::string_view, std::string> values[] = {
        {"name", f.first + " " + f.last},
        {"first", f.first},
        {"last", f.last},
        {"city", f.city},
        {"city2", f.city2},
        {"city3", f.city3},
        {"job", f.job},
        {"a job",
         (std::string_view("aeiou").find(f.job[0]) != std::string_view::npos ? "an " : "a ") +
             f.job},
        {"field", f.field},
        {"other", f.other},
        {"month", f.month},
        {"year", std::to_string(f.year)},
        {"year2", std::to_string(f.year2)},
        {"year3", std::to_string(f.year3)},
        {"n", std::to_string(f.n)},
        {"m", std::to_string(f.m)},
        {"day", std::to_string(f.day)},
        {"age", std::to_string(f.age)},
        {"he", kHe[g]},
        {"his", kHis[g]},
    };
    for (const auto& [k, v] : values) {
        if (k == key) return v;
    }
    return std::string(key);
}

// Fills a pattern's {slots}; "{He}" is "{he}" capitalized.
std::string expand(std::string_view pattern, const Fill& f) {
    std::string out;
    for (std::size_t i = 0; i < pattern.size(); ++i) {
        if (pattern[i] != '{') {
            out += pattern[i];
            continue;
        }
        const std::size_t close = pattern.find('}', i);
        const std::string_view key = pattern.substr(i + 1, close - i - 1);
        i = close;
        if (key == "He") {
            std::string w = slot("he", f);
            synth::capitalizeFirst(w);
            out += w;
        } else {
            out += slot(key, f);
        }
    }
    if (!out.empty()) synth::capitalizeFirst(out);
    return out;
}

Member templateMember(const Family& f, uint32_t member) {
    // The skeleton: shared filler sentences (which make families differ from each other)
    // interleaved with 4-6 patterns.
    Rng rng(f.seed);
    const Fill familyFill = randomFill(rng);
    std::array<std::size_t, std::size(kPatterns)> order{};
    for (std::size_t i = 0; i < order.size(); ++i)
        order[i] = i;
    for (std::size_t i = order.size() - 1; i > 0; --i)
        std::swap(order[i], order[rng.below(i + 1)]);
    const int patterns = rng.between(4, 6);
    const int fillers = rng.between(2, 7);
    std::vector<std::string> fillerText;
    for (int i = 0; i < fillers; ++i)
        fillerText.push_back(synth::render(synth::makeSentence(rng, 8, 20)));
    std::vector<int> items;  // >= 0: pattern index; < 0: filler -(i + 1)
    for (int i = 0; i < patterns; ++i)
        items.push_back(static_cast<int>(order[static_cast<std::size_t>(i)]));
    for (int i = 0; i < fillers; ++i) {
        const auto at = rng.below(items.size() + 1);
        items.insert(items.begin() + static_cast<std::ptrdiff_t>(at), -(i + 1));
    }
    const std::size_t breakAfter = 1 + rng.below(items.size() - 1);

    Rng memberRng(synth::deriveSeed(f.seed, member));
    const Fill fill = member == 0 ? familyFill : memberFill(familyFill, memberRng);
    Member m;
    m.kind = "template";
    for (std::size_t i = 0; i < items.size(); ++i) {
        if (i) m.text += i == breakAfter ? "\n\n" : " ";
        if (items[i] >= 0) {
            m.text += expand(kPatterns[items[i]], fill);
        } else {
            m.text += fillerText[static_cast<std::size_t>(-items[i] - 1)];
        }
    }
    return m;
}

// ---- short edge-case documents ----------------------------------------------------------------

std::vector<std::string> shortTexts(uint64_t seed, std::size_t count) {
    static constexpr const char* kTinyChars[] = {"a", "b", "c", "d", "e", "k", "m", "o", "s", "x",
                                                 "z", "0", "1", "7", "9", "é", "ü", "ñ", "!"};
    std::vector<std::string> out;
    std::set<std::string> seen;
    Rng rng(seed);
    // Empty after normalization: never a duplicate of anything.
    for (const char* s : {"", " ", "\n\t "}) {
        if (out.size() < count) out.emplace_back(s), seen.insert(s);
    }
    const std::size_t tiny = out.size() + (count - out.size()) * 2 / 5;
    while (out.size() < count) {
        std::string s;
        if (out.size() < tiny) {  // 1 to 4 characters: fewer than one 5-shingle
            const int n = rng.between(1, 4);
            for (int i = 0; i < n; ++i)
                s += pickFrom(rng, kTinyChars);
        } else {  // 5 to 40 characters
            const int target = rng.between(5, 40);
            while (static_cast<int>(s.size()) < target) {
                const std::string_view w = synth::rareWord(rng);
                if (!s.empty() && static_cast<int>(s.size() + 1 + w.size()) > 40) break;
                if (!s.empty()) s += ' ';
                s += w;
            }
            while (s.size() < 5)
                s += static_cast<char>('0' + rng.below(10));
            if (s.size() > 40) s.resize(40);
            if (rng.chance(0.5)) synth::capitalizeFirst(s);
        }
        if (seen.insert(s).second) out.push_back(std::move(s));
    }
    return out;
}

// ---- plan -------------------------------------------------------------------------------------

Plan makePlan(const GeneratorOptions& o) {
    Plan plan;
    const uint64_t n = o.documents;
    Rng rng(synth::deriveSeed(o.seed, 0xC0FFEE));
    const double dup = std::clamp(o.duplicateFraction, 0.0, 0.8);

    const uint64_t shortDocs = std::min<uint64_t>(100, n / 20);
    std::vector<uint32_t> templateSizes;
    uint64_t templateDocs = (dup > 0 && n >= 100)
                                ? static_cast<uint64_t>(std::llround(0.03 * static_cast<double>(n)))
                                : 0;
    for (uint64_t left = templateDocs; left >= 3;) {
        auto size = static_cast<uint64_t>(rng.between(3, 10));
        if (left - std::min(size, left) < 3) size = left;  // the remainder joins the last family
        templateSizes.push_back(static_cast<uint32_t>(size));
        left -= size;
    }
    templateDocs = 0;
    for (const auto s : templateSizes)
        templateDocs += s;

    const uint64_t randomDocs = n - shortDocs - templateDocs;
    const auto wanted = static_cast<int64_t>(std::llround(dup * static_cast<double>(n))) -
                        static_cast<int64_t>(templateDocs - templateSizes.size());
    const auto variants =
        std::min<uint64_t>(static_cast<uint64_t>(std::max<int64_t>(wanted, 0)), randomDocs * 4 / 5);
    const uint64_t bases = randomDocs - variants;

    // Spread the variants over random bases, 1-4 each.
    std::vector<uint8_t> counts(bases, 0);
    std::vector<uint64_t> order(bases);
    for (uint64_t i = 0; i < bases; ++i)
        order[i] = i;
    for (uint64_t i = bases; i > 1; --i)
        std::swap(order[i - 1], order[rng.below(i)]);
    uint64_t left = variants;
    for (int sweep = 0; left > 0 && sweep < 4; ++sweep) {
        for (uint64_t i = 0; i < bases && left > 0; ++i) {
            auto& c = counts[order[i]];
            const uint64_t add = std::min<uint64_t>(
                {static_cast<uint64_t>(sweep == 0 ? rng.between(1, 4) : 1), 4u - c, left});
            c = static_cast<uint8_t>(c + add);
            left -= add;
        }
    }

    for (uint64_t b = 0; b < bases; ++b)
        plan.families.push_back({FamilyType::Random, 1u + counts[b], 0, 0});
    for (const auto s : templateSizes)
        plan.families.push_back({FamilyType::Template, s, 0, 0});
    if (shortDocs > 0)
        plan.families.push_back({FamilyType::Short, static_cast<uint32_t>(shortDocs), 0, 0});

    // Random positions; each family's members in ascending position order (member 0 first).
    plan.slots.resize(n);
    for (uint64_t i = 0; i < n; ++i)
        plan.slots[i] = i;
    for (uint64_t i = n; i > 1; --i)
        std::swap(plan.slots[i - 1], plan.slots[rng.below(i)]);
    plan.ownerFamily.resize(n);
    plan.ownerMember.resize(n);
    uint64_t slot = 0;
    for (std::size_t f = 0; f < plan.families.size(); ++f) {
        Family& fam = plan.families[f];
        fam.seed = synth::deriveSeed(o.seed, f + 1);
        fam.firstSlot = slot;
        const auto begin = plan.slots.begin() + static_cast<std::ptrdiff_t>(slot);
        std::sort(begin, begin + fam.size);
        for (uint32_t j = 0; j < fam.size; ++j) {
            plan.ownerFamily[plan.slots[slot + j]] = static_cast<uint32_t>(f);
            plan.ownerMember[plan.slots[slot + j]] = static_cast<uint8_t>(j);
        }
        slot += fam.size;
        if (fam.type == FamilyType::Short) plan.shortTexts = shortTexts(fam.seed, fam.size);
    }
    return plan;
}

Member makeMember(const Plan& plan, const Family& f, uint32_t member, double meanChars) {
    switch (f.type) {
        case FamilyType::Random:
            return randomMember(f, member, meanChars);
        case FamilyType::Template:
            return templateMember(f, member);
        case FamilyType::Short:
            return {plan.shortTexts[member], "short"};
    }
    return {};
}

std::string documentId(uint64_t position) {
    return fmt::format("doc-{:06}", position + 1);
}

struct PairRecord {
    uint64_t a, b;  // positions, a < b
    double jaccard;
    std::string kind;
};

struct ShingleWorker {
    explicit ShingleWorker(const NormalizeOptions& n) : normalizer(n) {}
    Normalizer normalizer;
    std::vector<uint32_t> symbols;
};

}  // namespace

void generateCorpus(const GeneratorOptions& options, std::ostream& corpus, GroundTruth& truth) {
    if (!(options.meanChars > 0)) throw std::invalid_argument("meanChars must be positive");
    const Plan plan = makePlan(options);
    const uint64_t n = options.documents;

    // Corpus, in position order; blocks of documents are generated in parallel.
    constexpr uint64_t kBlock = 512;
    std::vector<std::string> lines(kBlock);
    for (uint64_t start = 0; start < n; start += kBlock) {
        const uint64_t end = std::min(n, start + kBlock);
        tbb::parallel_for(start, end, [&](uint64_t pos) {
            const Family& f = plan.families[plan.ownerFamily[pos]];
            const Member m = makeMember(plan, f, plan.ownerMember[pos], options.meanChars);
            std::string& line = lines[pos - start];
            line.clear();
            line += "{\"id\":";
            json::appendString(line, documentId(pos));
            line += ",\"text\":";
            json::appendString(line, m.text);
            line += "}\n";
        });
        for (uint64_t pos = start; pos < end; ++pos) {
            const std::string& line = lines[pos - start];
            corpus.write(line.data(), static_cast<std::streamsize>(line.size()));
        }
    }

    // Truth: every pair within each family, by the engine's own normalizer and shingler.
    // Independent texts of different families stay far below the floor (checked by the tests
    // against an exact all-pairs join).
    std::vector<std::vector<PairRecord>> perFamily(plan.families.size());
    tbb::enumerable_thread_specific<ShingleWorker> workers(ShingleWorker(truth.normalize));
    tbb::parallel_for(std::size_t{0}, plan.families.size(), [&](std::size_t fi) {
        const Family& f = plan.families[fi];
        if (f.size < 2) return;
        ShingleWorker& w = workers.local();
        std::vector<std::vector<uint64_t>> sets(f.size);
        std::vector<std::string> kinds(f.size);
        for (uint32_t j = 0; j < f.size; ++j) {
            Member m = makeMember(plan, f, j, options.meanChars);
            toSymbols(truth.shingle, w.normalizer.run(m.text), w.symbols);
            shingleSet(w.symbols.data(), w.symbols.size(), truth.ngram, sets[j]);
            kinds[j] = std::move(m.kind);
        }
        for (uint32_t i = 0; i < f.size; ++i) {
            for (uint32_t j = i + 1; j < f.size; ++j) {
                const double jac = exactJaccard(sets[i], sets[j]);
                if (jac < truth.floor) continue;
                std::string kind = f.type != FamilyType::Random ? kinds[j]
                                   : i == 0                     ? kinds[j]
                                                                : std::string("siblings");
                perFamily[fi].push_back({plan.slots[f.firstSlot + i], plan.slots[f.firstSlot + j],
                                         jac, std::move(kind)});
            }
        }
    });

    std::vector<PairRecord> pairs;
    for (auto& v : perFamily) {
        for (auto& p : v)
            pairs.push_back(std::move(p));
    }
    std::sort(pairs.begin(), pairs.end(), [](const PairRecord& x, const PairRecord& y) {
        return x.a != y.a ? x.a < y.a : x.b < y.b;
    });
    truth.documents = n;
    truth.pairs.clear();
    truth.pairs.reserve(pairs.size());
    for (auto& p : pairs)
        truth.pairs.push_back({documentId(p.a), documentId(p.b), p.jaccard, std::move(p.kind)});
}

}  // namespace neardup
