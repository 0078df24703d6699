// The components a run names after it finishes: the largest ones and every one of
// kLargeComponent members or more, each with its diameter, so that a chain of near-duplicates
// (documents linked only through the documents between them) shows in `neardup run`'s summary
// on stderr, in --summary-json and in the HTML report alike. Plain data: core/project's
// notableComponents() (component_chain.h) measures them from the run's cached signatures; the
// front ends and the summary writer only read them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace neardup {

// A component of a run and how far it spreads.
struct ComponentDiameter {
    int64_t cluster = 0;
    uint64_t size = 0;
    uint32_t representative = 0;  // the cluster's representative (document index)
    // The lowest estimated Jaccard of a member with the representative; NaN: no signatures.
    double diameter = std::numeric_limits<double>::quiet_NaN();
    uint32_t farthest = 0;  // the member with the lowest similarity to the representative
    bool large = false;     // size >= kLargeComponent
    bool chain = false;     // diameter below chainBelow(): linked only through other members
    bool flagged() const { return large || chain; }
};

// A component of this many members or more is flagged whatever its diameter.
constexpr uint64_t kLargeComponent = 100;

// The components a run names, with what their flags were decided against.
struct NotableComponents {
    // False until measured (a result built by hand, or one no project was read for): the
    // summary then says nothing about components.
    bool measured = false;
    std::vector<ComponentDiameter> components;  // largest first (ties: cluster order)
    double chainBelow = 0;  // a diameter below this is a chain (component_diameter.h: chainBelow)
    // Why the diameters are unknown (NaN): the run's signatures are not cached, e.g. because
    // they went to spill files. Empty when they are known.
    std::string diameterUnknown;

    std::size_t chains() const {
        std::size_t n = 0;
        for (const ComponentDiameter& c : components)
            n += c.chain ? 1 : 0;
        return n;
    }
    std::size_t large() const {
        std::size_t n = 0;
        for (const ComponentDiameter& c : components)
            n += c.large ? 1 : 0;
        return n;
    }
};

}  // namespace neardup
