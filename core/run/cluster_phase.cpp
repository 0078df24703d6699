// Union of the duplicate pairs and the removal decisions (ClusterPhase, run_phases.h).
#include "clustering.h"
#include "run_accounting.h"
#include "run_phases.h"

namespace neardup {

void ClusterPhase::run() {
    s_.report.started("union");
    const auto t0 = SteadyClock::now();
    const RunParams& p = s_.params;
    clusterDocuments(s_.pairs, p.signature.hashes, p.compare.threshold, p.keep, p.decide, s_.docs,
                     s_.run);
    s_.report.finished(s_.run, {"union", secondsSince(t0), s_.pairs.size(), 0, false});
    s_.run.pairs = std::move(s_.pairs);
    checkAccounting(s_.run);
}

}  // namespace neardup
