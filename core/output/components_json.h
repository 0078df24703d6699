// The "components" object of the run summary (--summary-json): the components the run names
// (notable_components.h: the largest, those of kLargeComponent members or more, chains) with
// their diameters, on one line as the summary's other nested objects.
#pragma once

#include <string>

#include "document_table.h"
#include "notable_components.h"

namespace neardup {

// {"chain_below": 0.694, "chains": 1, "large": 0, "diameter_unknown": null, "listed": [{"cluster":
// 0, "size": 25, "representative": "v00", "diameter": 0.25, "farthest": "v24", "chain": true,
// "large": false}, ...]}: diameter and farthest are null, and diameter_unknown says why, when
// the run's signatures were not cached. Ids are the documents' ids in `docs`.
std::string componentsJson(const NotableComponents& components, const DocumentTable& docs);

}  // namespace neardup
