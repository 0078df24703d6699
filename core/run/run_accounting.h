// A run's line accounting: every line read is a document, a rejected line or a blank line,
// and every document is kept or removed.
#pragma once

#include <string>

#include "run_result.h"

namespace neardup {

// "N lines read: D documents, R rejected (reason n, ...; first at file:line), B blank".
std::string accountingText(const RunResult& run);
// Throws (an internal error) when the counts do not add up.
void checkAccounting(const RunResult& run);

}  // namespace neardup
