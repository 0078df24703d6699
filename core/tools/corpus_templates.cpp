// Template families of the corpus generator: biography-like boilerplate whose members share the
// family's filler sentences and sentence patterns but differ in names, places and numbers.
#include <algorithm>
#include <array>
#include <string_view>

#include "corpus_families.h"
#include "text_synth.h"

namespace neardup::corpus {

namespace {

using synth::Rng;

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

}  // namespace

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

}  // namespace neardup::corpus
