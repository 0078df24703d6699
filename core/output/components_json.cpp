// The summary's "components" object (components_json.h).
#include "components_json.h"

#include <fmt/format.h>

#include <cmath>

#include "json_text.h"

namespace neardup {

namespace {

// A member's id; a document beyond the table (a run summarized without its documents) by its
// index, so that the summary never names a wrong document.
std::string idOf(const DocumentTable& docs, uint32_t doc) {
    if (doc < docs.size()) return json::quote(docs.id(doc));
    return std::to_string(doc);
}

}  // namespace

std::string componentsJson(const NotableComponents& components, const DocumentTable& docs) {
    std::string s = fmt::format("{{\"chain_below\": {:.6g}, \"chains\": {}, \"large\": {}, ",
                                components.chainBelow, components.chains(), components.large());
    s += "\"diameter_unknown\": ";
    s += components.diameterUnknown.empty() ? std::string("null")
                                            : json::quote(components.diameterUnknown);
    s += ", \"listed\": [";
    for (std::size_t i = 0; i < components.components.size(); ++i) {
        const ComponentDiameter& c = components.components[i];
        const bool known = !std::isnan(c.diameter);
        if (i) s += ", ";
        s += fmt::format("{{\"cluster\": {}, \"size\": {}, \"representative\": {}, ", c.cluster,
                         c.size, idOf(docs, c.representative));
        s += "\"diameter\": ";
        s += known ? fmt::format("{:.6g}", c.diameter) : std::string("null");
        s += ", \"farthest\": ";
        s += known ? idOf(docs, c.farthest) : std::string("null");
        s += fmt::format(", \"chain\": {}, \"large\": {}}}", c.chain, c.large);
    }
    return s + "]}";
}

}  // namespace neardup
