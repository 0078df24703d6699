// Corpus generator: families of documents (a random base and its planted variants, a template
// family, or the short edge-case documents; corpus_families.h) placed at random positions.
// Every family member is a pure function of (seed, family, member), so the corpus is written in
// position order and the truth computed family by family without holding the corpus in memory.
#include <fmt/format.h>

#include <tbb/enumerable_thread_specific.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <set>
#include <stdexcept>

#include "corpus_families.h"
#include "corpus_generator.h"
#include "json_text.h"
#include "shingles.h"
#include "text_synth.h"

namespace neardup {

namespace {

using synth::Rng;

using corpus::Family;
using corpus::FamilyType;
using corpus::Member;
using corpus::pickFrom;

struct Plan {
    std::vector<Family> families;
    std::vector<uint64_t> slots;        // position of each family member
    std::vector<uint32_t> ownerFamily;  // by position
    std::vector<uint8_t> ownerMember;   // by position
    std::vector<std::string> shortTexts;
};

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
            return corpus::randomMember(f, member, meanChars);
        case FamilyType::Template:
            return corpus::templateMember(f, member);
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
