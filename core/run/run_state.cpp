// The state one run's phases share (run_state.h).
#include "run_state.h"

#include <algorithm>
#include <filesystem>

#include "lsh_buckets.h"
#include "memory_budget.h"
#include "run_time.h"
#include "signature_file.h"
#include "thread_count.h"

namespace neardup {

namespace {

// Spill files go next to the project unless the run names a directory; in-memory projects
// use the system's temporary directory.
std::string workParent(const ProjectStore& store, const RunParams& params) {
    if (!params.workDir.empty()) return params.workDir;
    const std::string& path = store.path();
    if (path.empty() || path == ":memory:") return std::filesystem::temp_directory_path().string();
    return path + ".d";
}

RunResult withMemoryBudget(const RunParams& params) {
    RunResult run;
    run.memoryBudget = resolveMemoryBudget(params.memoryBudget);
    return run;
}

}  // namespace

RunState::RunState(ProjectStore& store_, Backend& backend_, PipelineObserver* observer,
                   const std::atomic<bool>* cancel, const RunParams& params_,
                   const ExportOptions& exports_)
    : store(store_),
      backend(backend_),
      params(params_),
      exports(exports_),
      report(observer, cancel),
      run(withMemoryBudget(params_)),
      cacheKey(signatureCacheKey(params_.signature, params_.reader)),
      work(workParent(store_, params_)),
      // A spilled run's rows' file has the signature cache's layout, so that it becomes the
      // cache without a copy.
      memory(backend_, params_, run.memoryBudget, work, report, sigfile::valuesOffset(cacheKey)) {
    run.params = params;
    run.backend = backend.description();
    backend.takeWorkerTimings();  // counts from before this run are not its own
    run.threads = resolveThreads(params.threads);
    run.startedAt = utcNow();
}

uint64_t RunState::resolveBuckets(std::size_t n) const {
    return params.lsh.bucketMode == BucketMode::Exact  ? uint64_t{0}
           : params.lsh.bucketMode == BucketMode::Auto ? autoBucketCount(n)
                                                       : params.lsh.buckets;
}

}  // namespace neardup
