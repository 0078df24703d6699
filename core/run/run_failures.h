// The input error policy (--on-error) and runs that stop before they are entered in the
// project: small hooks the pipeline calls so that a bad line stops a `fail` run at once, and
// an interrupted or failed run never vanishes from the project.
#pragma once

#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "jsonl_reader.h"
#include "project_store.h"
#include "run_result.h"

namespace neardup {

// "path:line: reason: detail"; line 0 stands for the file as a whole.
std::string describeRejection(const Rejection& r, const std::vector<InputFile>& files);

// With OnError::Fail, throws InputError describing the first of `rejections` (given in input
// order), if any. Does nothing with OnError::Skip.
void failOnRejection(OnError policy, const std::vector<Rejection>& rejections,
                     const std::vector<InputFile>& files);

// With OnError::Fail, a dataset taken from the project instead of being read again fails the
// run when it has rejected lines, as reading it would have: the run is recorded as failed
// and InputError names the first rejected line.
void failOnStoredRejections(ProjectStore& store, const RunResult& run, int64_t datasetId,
                            const DatasetRecord& dataset, std::size_t documents);

// Records a run that stopped before Pipeline entered it in the project (while expanding or
// reading the inputs): "interrupted" when `error` is Cancelled, else "failed" with the error's
// message, and the counts reached so far. A run row needs a dataset: without `datasetId` it
// gets an empty one (no files, so never matched for reuse) holding the partial counts. Never
// throws: the caller rethrows the original error, which matters more than its record.
// While alive, `store` calls `check` during long writes (ProjectStore::setInterruptCheck).
class StoreInterruptScope {
  public:
    StoreInterruptScope(ProjectStore& store, std::function<void()> check) : store_(store) {
        store_.setInterruptCheck(std::move(check));
    }
    ~StoreInterruptScope() { store_.setInterruptCheck({}); }
    StoreInterruptScope(const StoreInterruptScope&) = delete;
    StoreInterruptScope& operator=(const StoreInterruptScope&) = delete;

  private:
    ProjectStore& store_;
};

// Returns the new run's id, nothing when it could not be written. The RunLock of the run
// (run_lock.h) is told the id, so that the run can be resumed.
std::optional<int64_t> recordUnfinishedRun(ProjectStore& store, RunResult run,
                                           std::optional<int64_t> datasetId,
                                           const DatasetRecord& partial, std::size_t documents,
                                           std::exception_ptr error) noexcept;

}  // namespace neardup
