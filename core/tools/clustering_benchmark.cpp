// Times union-find and the removal rules on synthetic pairs; see clustering_benchmark.h.
#include "clustering_benchmark.h"

#include <algorithm>
#include <cmath>
#include <ctime>
#include <numeric>
#include <random>
#include <span>

#include <fmt/format.h>

#include "clustering.h"
#include "elapsed.h"

namespace neardup {

namespace {

constexpr int kHashes = 128;
constexpr double kThreshold = 0.8;

// Lengths of 100 to 5,099 characters; a field value for --keep max:FIELD on nine documents in
// ten, a number from 0 to 99.99 in steps of 0.01 (ties, as scores and dates have).
DocumentTable syntheticDocuments(uint32_t n, std::mt19937_64& rng) {
    DocumentTable docs;
    docs.reserve(n);
    for (uint32_t i = 0; i < n; ++i) {
        const auto chars = 100 + static_cast<uint32_t>(rng() % 5000);
        const double value =
            rng() % 10 == 0 ? std::nan("") : static_cast<double>(rng() % 10000) / 100.0;
        docs.append(0, i + 1, uint64_t{i} * 10, 9, chars, value, "");
    }
    return docs;
}

const char* policyName(KeepPolicy keep) {
    switch (keep) {
        case KeepPolicy::First:
            return "first";
        case KeepPolicy::Longest:
            return "longest";
        case KeepPolicy::MaxField:
            return "max:FIELD";
    }
    return "";
}

// Stars, chains and cliques over a random permutation of the documents, sorted by (a, b) as
// the pipeline hands them to the union phase.
std::vector<ScoredPair> syntheticPairs(uint32_t n, bool copies, std::mt19937_64& rng) {
    std::vector<uint32_t> perm(n);
    std::iota(perm.begin(), perm.end(), 0u);
    std::shuffle(perm.begin(), perm.end(), rng);
    std::vector<ScoredPair> pairs;
    auto add = [&](uint32_t x, uint32_t y) {
        uint32_t matches = 110 + static_cast<uint32_t>(rng() % 18);
        if (copies && rng() % 10 == 0) matches = kHashes;
        pairs.push_back({std::min(x, y), std::max(x, y), matches, -1.0f});
    };
    const std::size_t clustered = n / 4 * 3;
    for (std::size_t at = 0; at + 30 <= clustered;) {
        const uint32_t* m = perm.data() + at;
        int size = 0;
        switch (rng() % 3) {
            case 0:  // star
                size = 2 + static_cast<int>(rng() % 19);
                for (int j = 1; j < size; ++j)
                    add(m[0], m[j]);
                break;
            case 1:  // chain
                size = 2 + static_cast<int>(rng() % 29);
                for (int j = 1; j < size; ++j) {
                    add(m[j - 1], m[j]);
                    if (j >= 2) add(m[j - 2], m[j]);
                }
                break;
            default:  // clique
                size = 2 + static_cast<int>(rng() % 7);
                for (int x = 0; x < size; ++x)
                    for (int y = x + 1; y < size; ++y)
                        add(m[x], m[y]);
        }
        at += static_cast<std::size_t>(size);
    }
    std::sort(pairs.begin(), pairs.end());
    return pairs;
}

struct Medians {
    double wall = 0, cpu = 0;
};

// Median wall and process CPU seconds of `repeat` runs of `step`, each taken separately.
template <typename Step>
Medians medianSeconds(int repeat, Step step) {
    std::vector<double> wall, cpu;
    for (int r = 0; r < repeat; ++r) {
        const auto t0 = SteadyClock::now();
        const std::clock_t c0 = std::clock();
        step();
        cpu.push_back(static_cast<double>(std::clock() - c0) / CLOCKS_PER_SEC);
        wall.push_back(secondsSince(t0));
    }
    std::sort(wall.begin(), wall.end());
    std::sort(cpu.begin(), cpu.end());
    return {wall[wall.size() / 2], cpu[cpu.size() / 2]};
}

// Union-find alone and both rules on `pairs`, for each keep policy, appended to `rows`.
void timeCases(const std::vector<ScoredPair>& pairs, const DocumentTable& docs, int hashes,
               double threshold, bool copies, std::span<const KeepPolicy> policies, int repeat,
               std::vector<ClusteringBenchmarkRow>& rows) {
    for (const KeepPolicy keep : policies) {
        ClusteringBenchmarkRow row;
        row.keep = policyName(keep);
        row.copies = copies;
        row.documents = docs.size();
        row.pairs = pairs.size();
        RunResult run;
        row.step = "union-find";
        Medians m = medianSeconds(repeat, [&] {
            run = RunResult{};
            clusterComponents(pairs, hashes, threshold, keep, docs, run);
        });
        row.medianSeconds = m.wall;
        row.medianCpuSeconds = m.cpu;
        rows.push_back(row);
        for (const DecideRule rule : {DecideRule::Witness, DecideRule::Components}) {
            row.step = rule == DecideRule::Witness ? "witness" : "components";
            m = medianSeconds(repeat, [&] {
                run = RunResult{};
                clusterDocuments(pairs, hashes, threshold, keep, rule, docs, run);
            });
            row.medianSeconds = m.wall;
            row.medianCpuSeconds = m.cpu;
            row.removed = run.counts.removed;
            rows.push_back(row);
        }
    }
}

constexpr KeepPolicy kAllPolicies[] = {KeepPolicy::First, KeepPolicy::Longest,
                                       KeepPolicy::MaxField};

}  // namespace

std::vector<ClusteringBenchmarkRow> runClusteringBenchmark(uint32_t documents, int repeat,
                                                           uint64_t seed) {
    std::vector<ClusteringBenchmarkRow> rows;
    std::mt19937_64 rng(seed);
    const DocumentTable docs = syntheticDocuments(documents, rng);
    for (const bool copies : {false, true})
        timeCases(syntheticPairs(documents, copies, rng), docs, kHashes, kThreshold, copies,
                  kAllPolicies, repeat, rows);
    return rows;
}

std::vector<ClusteringBenchmarkRow> runClusteringBenchmarkOn(const std::vector<ScoredPair>& pairs,
                                                             const DocumentTable& docs, int hashes,
                                                             double threshold, int repeat) {
    std::vector<ClusteringBenchmarkRow> rows;
    const bool copies = std::any_of(pairs.begin(), pairs.end(), [hashes](const ScoredPair& p) {
        return p.matches >= static_cast<uint32_t>(hashes);
    });
    const bool values = std::any_of(docs.keepValue.begin(), docs.keepValue.end(),
                                    [](double v) { return !std::isnan(v); });
    const std::span<const KeepPolicy> policies(kAllPolicies, values ? 3 : 2);
    timeCases(pairs, docs, hashes, threshold, copies, policies, repeat, rows);
    return rows;
}

std::string clusteringBenchmarkTable(const std::vector<ClusteringBenchmarkRow>& rows) {
    std::string out =
        "| keep | exact copies | step | documents | pairs | removed | median s | vs union-find |"
        " median CPU s |\n"
        "|---|---|---|---:|---:|---:|---:|---:|---:|\n";
    double unionFind = 0;
    for (const ClusteringBenchmarkRow& r : rows) {
        if (r.step == "union-find") unionFind = r.medianSeconds;
        const std::string removed = r.step == "union-find" ? "" : std::to_string(r.removed);
        out += fmt::format("| {} | {} | {} | {} | {} | {} | {:.3f} | {:.2f} | {:.3f} |\n", r.keep,
                           r.copies ? "yes" : "no", r.step, r.documents, r.pairs, removed,
                           r.medianSeconds, unionFind > 0 ? r.medianSeconds / unionFind : 0.0,
                           r.medianCpuSeconds);
    }
    return out;
}

}  // namespace neardup
