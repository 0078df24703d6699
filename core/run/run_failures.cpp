#include "run_failures.h"

#include "cancelled.h"
#include "run_lock.h"
#include "stopped_runs.h"

namespace neardup {

std::string describeRejection(const Rejection& r, const std::vector<InputFile>& files) {
    std::string where =
        r.file < files.size() ? files[r.file].path : "input #" + std::to_string(r.file);
    return where + ":" + std::to_string(r.line) + ": " + toString(r.reason) + ": " + r.detail;
}

void failOnRejection(OnError policy, const std::vector<Rejection>& rejections,
                     const std::vector<InputFile>& files) {
    if (policy != OnError::Fail || rejections.empty()) return;
    throw InputError(describeRejection(rejections.front(), files) + " (--on-error fail)");
}

void failOnStoredRejections(ProjectStore& store, const RunResult& run, int64_t datasetId,
                            const DatasetRecord& dataset, std::size_t documents) {
    try {
        failOnRejection(run.params.reader.onError, dataset.rejectionSamples, dataset.files);
    } catch (const InputError&) {
        recordUnfinishedRun(store, run, datasetId, dataset, documents, std::current_exception());
        throw;
    }
}

std::optional<int64_t> recordUnfinishedRun(ProjectStore& store, RunResult run,
                                           std::optional<int64_t> datasetId,
                                           const DatasetRecord& partial, std::size_t documents,
                                           std::exception_ptr error) noexcept {
    try {
        std::string status = "failed";
        std::string message = "unknown error";
        try {
            if (error) std::rethrow_exception(error);
        } catch (const Cancelled&) {
            status = "interrupted";
            message = stopReason() + " while reading the inputs or saving the dataset";
        } catch (const std::exception& e) {
            message = e.what();
        } catch (...) {
        }
        const int64_t id =
            recordStoppedRun(store, std::move(run), datasetId, partial, documents, status, message);
        RunLock::noteRecorded(store, id);
        return id;
    } catch (...) {
        // The project may be what failed; the caller reports the original error.
        return std::nullopt;
    }
}

}  // namespace neardup
