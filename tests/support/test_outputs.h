// The outputs of a run as the tests that compare whole runs name them.
#pragma once

#include <string>

#include "exporter.h"

namespace testsupport {

// The four per-document outputs of a run, as DIR/PREFIX.jsonl, .kept, .removed and .clusters.
inline neardup::ExportOptions documentOutputs(const std::string& dir, const std::string& prefix) {
    neardup::ExportOptions out;
    const std::string base = dir + "/" + prefix;
    out.jsonl = base + ".jsonl";
    out.kept = base + ".kept";
    out.removed = base + ".removed";
    out.clusters = base + ".clusters";
    return out;
}

}  // namespace testsupport
