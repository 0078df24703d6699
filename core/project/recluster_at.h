// A loaded run re-clustered at another threshold with the dataset's audit decisions: what the
// workbench exports at its threshold slider's value (decisions.h has the rules).
#pragma once

#include <vector>

#include "decisions.h"

namespace neardup {

// Re-clusters a loaded run from its pairs at `threshold` (its keep policy and removal rule)
// with the dataset's decisions; run.params then say `threshold`. The pairs are judged as
// stored: verified or not as the run left them.
void reclusterAt(double threshold, const std::vector<Decision>& decisions,
                 const DocumentTable& docs, RunResult& run);

}  // namespace neardup
