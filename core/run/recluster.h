// A stored run re-clustered at another threshold and saved as a new run, without comparing
// again: the workbench's "Save as run" and `neardup recluster`. The request is the run's own
// dataset and parameters with the new threshold, run through the run service like any run;
// the plan (run_plan.h) then takes the run's stored pairs (ProjectStore::findReusablePairs:
// same dataset, signatures and LSH, a store floor at or below the threshold) and its cached
// signatures, verifies the pairs around the new threshold as `neardup run` would, and decides
// removals by the run's rule; exports honour the dataset's audit decisions. The result is
// exactly what `neardup run` on the same inputs at that threshold gives.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

#include "run_service.h"

namespace neardup {

// Why a run cannot be re-clustered as asked (no such run, not finished, a threshold outside
// [store floor, 1], an input changed, gone, new or no longer listed since it ran so its pairs
// no longer apply). An input touched or replaced by an identical copy is accepted, as every use
// of stored offsets accepts it (input_pin.h), and its identity now is stored.
class ReclusterRefused : public std::invalid_argument {
  public:
    using std::invalid_argument::invalid_argument;
};

// The request that re-clusters run `runId` of `project` at `threshold` (execution options:
// threads and the rest at their defaults). Throws ReclusterRefused, or StoreError for an
// unreadable project.
RunRequest reclusterRequest(const std::string& project, int64_t runId, double threshold);

}  // namespace neardup
