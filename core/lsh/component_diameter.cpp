// The diameters of components from their members' signature rows (component_diameter.h).
#include "component_diameter.h"

#include <tbb/enumerable_thread_specific.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <numeric>
#include <utility>

#include "pair_verifier.h"

namespace neardup {

namespace {

MemberLists membersOf(const RunResult& run, const std::vector<uint32_t>& chosen) {
    std::vector<uint32_t> slot(run.representative.size(), RunResult::kNoCluster);
    for (std::size_t k = 0; k < chosen.size(); ++k)
        slot[chosen[k]] = static_cast<uint32_t>(k);
    MemberLists m;
    m.begin.assign(chosen.size() + 1, 0);
    for (const uint32_t c : run.clusterOf)
        if (c != RunResult::kNoCluster && slot[c] != RunResult::kNoCluster) ++m.begin[slot[c] + 1];
    std::partial_sum(m.begin.begin(), m.begin.end(), m.begin.begin());
    m.docs.resize(m.begin.back());
    std::vector<std::size_t> next(m.begin.begin(), m.begin.end() - 1);
    for (std::size_t i = 0; i < run.clusterOf.size(); ++i) {
        const uint32_t c = run.clusterOf[i];
        if (c != RunResult::kNoCluster && slot[c] != RunResult::kNoCluster)
            m.docs[next[slot[c]]++] = static_cast<uint32_t>(i);
    }
    return m;
}

}  // namespace

double chainBelow(double threshold, int hashes) {
    if (hashes <= 0) return threshold;
    return threshold - borderlineMargin(threshold, hashes);  // the borderline band's bottom
}

std::size_t diameterBlockRows(uint64_t memoryBudget, int hashes) {
    if (memoryBudget == 0 || hashes <= 0) return kDiameterBlockRows;
    const uint64_t rows = memoryBudget / 8 / (static_cast<uint64_t>(hashes) * sizeof(uint32_t));
    return static_cast<std::size_t>(std::clamp<uint64_t>(rows, 1, kDiameterBlockRows));
}

void DiameterRows::holdAll(SignatureMatrix signatures) {
    signatures_ = std::move(signatures);
    rows_.clear();
}

void DiameterRows::holdSome(int hashes, std::vector<uint32_t> values, std::vector<uint32_t> docs) {
    signatures_ = SignatureMatrix{};
    signatures_.hashes = hashes;
    signatures_.values = std::move(values);
    rows_ = std::move(docs);
}

void DiameterRows::clear() {
    signatures_ = SignatureMatrix{};
    rows_.clear();
}

const uint32_t* DiameterRows::rowOf(uint32_t d) const {
    if (!loaded()) return nullptr;
    if (rows_.empty()) return d < signatures_.size() ? signatures_.row(d) : nullptr;
    const auto it = std::lower_bound(rows_.begin(), rows_.end(), d);
    if (it == rows_.end() || *it != d) return nullptr;
    return signatures_.values.data() + static_cast<std::size_t>(it - rows_.begin()) *
                                           static_cast<std::size_t>(signatures_.hashes);
}

double DiameterRows::similarity(uint32_t a, uint32_t b) const {
    const uint32_t* ra = rowOf(a);
    const uint32_t* rb = rowOf(b);
    if (!ra || !rb) return std::numeric_limits<double>::quiet_NaN();
    return matchingPositions(ra, rb, signatures_.hashes) / static_cast<double>(signatures_.hashes);
}

std::vector<ComponentDiameter> DiameterRows::measure(const std::vector<ListingMember>& members,
                                                     double below) const {
    std::vector<ComponentDiameter> out;
    for (const ListingMember& m : members) {
        if (out.empty() || out.back().cluster != m.cluster) {
            out.push_back({});
            out.back().cluster = m.cluster;
            out.back().representative = m.representative;
            out.back().farthest = m.representative;
        }
        ComponentDiameter& c = out.back();
        ++c.size;
        if (m.doc == m.representative) continue;
        const double s = similarity(m.doc, m.representative);
        if (std::isnan(s)) continue;
        if (std::isnan(c.diameter) || s < c.diameter) {
            c.diameter = s;
            c.farthest = m.doc;
        }
    }
    flagComponents(out, below);
    return out;
}

bool measureComponent(const SignatureRowSource& read, int hashes, const uint32_t* docs,
                      std::size_t count, std::size_t blockRows, ComponentDiameter& c,
                      uint64_t& held) {
    if (hashes <= 0) return false;
    const auto h = static_cast<std::size_t>(hashes);
    std::vector<uint32_t> representative, block, values;
    if (!read({c.representative}, representative)) return false;
    for (std::size_t at = 0; at < count;) {
        block.clear();
        for (; at < count && block.size() < blockRows; ++at)
            if (docs[at] != c.representative) block.push_back(docs[at]);
        if (block.empty()) continue;
        if (!read(block, values)) return false;
        held = std::max<uint64_t>(held, block.size() + 1);
        for (std::size_t i = 0; i < block.size(); ++i) {
            const double s =
                matchingPositions(values.data() + i * h, representative.data(), hashes) /
                static_cast<double>(hashes);
            if (std::isnan(c.diameter) || s < c.diameter) {
                c.diameter = s;
                c.farthest = block[i];
            }
        }
    }
    return true;
}

void flagComponents(std::vector<ComponentDiameter>& list, double below) {
    for (ComponentDiameter& c : list) {
        c.large = c.size >= kLargeComponent;
        c.chain = !std::isnan(c.diameter) && c.diameter < below;
    }
}

void forgetDiameters(std::vector<ComponentDiameter>& list) {
    for (ComponentDiameter& c : list) {
        c.diameter = std::numeric_limits<double>::quiet_NaN();
        c.farthest = c.representative;
    }
}

MemberLists componentsBySize(const RunResult& run, std::vector<ComponentDiameter>& components) {
    const std::size_t clusters = run.representative.size();
    std::vector<uint64_t> size(clusters, 0);
    for (const uint32_t c : run.clusterOf)
        if (c != RunResult::kNoCluster) ++size[c];
    std::vector<uint32_t> chosen(clusters);
    std::iota(chosen.begin(), chosen.end(), 0u);
    std::stable_sort(chosen.begin(), chosen.end(),
                     [&size](uint32_t x, uint32_t y) { return size[x] > size[y]; });
    MemberLists members = membersOf(run, chosen);
    components.clear();
    for (std::size_t k = 0; k < chosen.size(); ++k) {
        ComponentDiameter c;
        c.cluster = chosen[k];
        c.size = members.begin[k + 1] - members.begin[k];
        c.representative = run.representative[chosen[k]];
        c.farthest = c.representative;
        components.push_back(c);
    }
    return members;
}

bool measureInBlocks(const SignatureRowSource& read, int hashes, const MemberLists& members,
                     std::size_t blockRows, std::vector<ComponentDiameter>& components,
                     uint64_t& held, int threads) {
    auto measure = [&](std::size_t k, std::size_t rows, uint64_t& most) {
        return measureComponent(read, hashes, members.docs.data() + members.begin[k],
                                members.begin[k + 1] - members.begin[k], rows, components[k], most);
    };
    if (threads <= 1 || components.size() < 2) {
        for (std::size_t k = 0; k < components.size(); ++k)
            if (!measure(k, blockRows, held)) return false;
        return true;
    }
    // Components are independent, each measured whole by one thread; the threads share the
    // block, so that the rows held at once stay what one thread's block would be.
    const std::size_t rows =
        std::max<std::size_t>(1, blockRows / static_cast<std::size_t>(threads));
    std::atomic<bool> readable{true};
    tbb::enumerable_thread_specific<uint64_t> mostOfThread(0);
    tbb::task_arena arena(threads);
    arena.execute([&] {
        tbb::parallel_for(tbb::blocked_range<std::size_t>(0, components.size(), 64),
                          [&](const tbb::blocked_range<std::size_t>& r) {
                              uint64_t& most = mostOfThread.local();
                              for (std::size_t k = r.begin(); k != r.end(); ++k) {
                                  if (!readable.load(std::memory_order_relaxed)) return;
                                  if (!measure(k, rows, most))
                                      readable.store(false, std::memory_order_relaxed);
                              }
                          });
    });
    for (const uint64_t most : mostOfThread)
        held += most;
    return readable.load();
}

std::vector<ComponentDiameter> namedComponents(const std::vector<ComponentDiameter>& components,
                                               std::size_t few) {
    std::vector<ComponentDiameter> named;
    for (std::size_t k = 0; k < components.size(); ++k)
        if (k < few || components[k].flagged()) named.push_back(components[k]);
    return named;
}

NotableComponents measureNotableComponents(const RunResult& run, const SignatureRowSource& read,
                                           std::size_t blockRows, std::size_t few, int threads,
                                           uint64_t& held, bool& unreadable) {
    NotableComponents out;
    out.measured = true;
    const int hashes = run.params.signature.hashes;
    out.chainBelow = chainBelow(run.params.compare.threshold, hashes);
    held = 0;
    unreadable = false;
    const MemberLists members = componentsBySize(run, out.components);
    if (out.components.empty()) return out;
    if (blockRows == 0)  // the block charged to the run's budget: an eighth of it
        blockRows = diameterBlockRows(
            run.memoryBudget != 0 ? run.memoryBudget : run.params.memoryBudget, hashes);
    if (!measureInBlocks(read, hashes, members, blockRows, out.components, held, threads)) {
        unreadable = true;
        held = 0;
        forgetDiameters(out.components);
    }
    flagComponents(out.components, out.chainBelow);
    out.components = namedComponents(out.components, few);
    return out;
}

}  // namespace neardup
