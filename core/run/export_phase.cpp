// The outputs and the finished run's record (ExportPhase, run_phases.h).
#include <future>
#include <optional>
#include <vector>

#include "component_chain.h"
#include "component_diameter.h"
#include "decisions.h"
#include "memory_budget.h"
#include "project_protected_files.h"
#include "run_phases.h"
#include "run_time.h"
#include "signature_rows.h"

namespace neardup {

namespace {

// Where the members' rows of a run's components come from when they are measured: the
// project's signature cache, read through one open file; for a run that spilled, the rows'
// spill file, which stays open until the end of this phase. Opened before the run's details
// are written: the cache is looked up through a connection of its own, which the details' write
// transaction would lock out once its pages spill to the file; the rows themselves are then
// read without the project.
class ComponentRows {
  public:
    explicit ComponentRows(RunState& s) {
        if (!s.memory.spilled()) {
            cache_.emplace(s.store, *s.datasetId, s.cacheKey);
            read_ = [this](const std::vector<uint32_t>& docs, std::vector<uint32_t>& values) {
                return cache_->read(docs, values);
            };
            return;
        }
        const SignatureSpill& spill = s.memory.spill();
        read_ = [&spill](const std::vector<uint32_t>& docs, std::vector<uint32_t>& values) {
            values.clear();
            if (!docs.empty() && docs.back() >= spill.size()) return false;
            values.resize(docs.size() * static_cast<std::size_t>(spill.hashes()));
            try {
                spill.readRows(docs.data(), docs.size(), values.data());
            } catch (const std::exception&) {
                values.clear();
                return false;
            }
            return true;
        };
    }

    // The largest components and their diameters (component_chain.h), which the summary
    // (--summary-json, and a front end's on stderr) names.
    NotableComponents measure(const RunResult& run) const {
        uint64_t held = 0;
        bool unreadable = false;
        NotableComponents out =
            measureNotableComponents(run, read_, 0, 3, run.threads, held, unreadable);
        if (unreadable) out.diameterUnknown = signaturesNotCachedWhy(run.spilled);
        return out;
    }

  private:
    std::optional<SignatureRowReader> cache_;
    SignatureRowSource read_;
};

// Writes the outputs `options` asks for, from `audited` (the run with the dataset's audit
// decisions applied, core/project/decisions.h) when there are decisions; the run itself is stored
// as the engine clustered it.
void exportAudited(RunState& s, RunResult* audited, const ExportOptions& options,
                   PendingOutputs& pending) {
    RunResult& run = s.run;
    if (audited == nullptr) {
        exportRun(run, s.files, s.docs, options, &pending);
        return;
    }
    audited->pairs.swap(run.pairs);  // lent: the clusters output reads witness pairs
    try {
        exportRun(*audited, s.files, s.docs, options, &pending);
    } catch (...) {
        run.pairs.swap(audited->pairs);
        throw;
    }
    run.pairs.swap(audited->pairs);
}

}  // namespace

void ExportPhase::run() {
    RunResult& run = s_.run;
    const std::vector<Decision> decisions = listDecisions(s_.store, *s_.datasetId);
    // Every output is complete under its temporary name before the run's final commit and
    // renamed into place only after it: an output under its final name means a finished run.
    PendingOutputs pending;
    ExportOptions outputs = s_.exports;
    outputs.summaryJson.clear();              // written last, once the export phase is timed too
    outputs.cancel = s_.report.cancelFlag();  // Ctrl-C stops the export too; nothing is renamed
    outputs.readAhead = run.threads >= 2;
    outputs.threads = run.threads;
    outputs.project = protectedFiles(s_.store);
    outputs.reader = s_.params.reader;
    const ComponentRows rows(s_);
    // The run's clustered details (most of finishRun's rows: pairs, clusters, members) go into
    // the project as the "store" phase: with a second thread, while the components are measured
    // and the outputs written (neither reads the project nor anything the details change; what
    // they need of it was read above), and the phase is the time the run then still waits for
    // them; otherwise after the outputs. An audited export borrows the run's pairs
    // (exportAudited), so it stays in sequence.
    std::future<void> details;
    if (run.threads >= 2 && decisions.empty())
        details = std::async(std::launch::async,
                             [this] { s_.store.writeRunDetails(s_.run, s_.pairsAside.get()); });
    std::optional<RunResult> audited;
    try {
        // The summary of an audited run names the components the decisions leave (the same
        // selection as the run's).
        run.components = rows.measure(run);
        if (!decisions.empty()) {
            audited = withDecisions(run, decisions, s_.docs);
            if (!s_.exports.summaryJson.empty()) audited->components = rows.measure(*audited);
        }
        if (outputs.any()) {
            s_.report.started("export");
            const auto t0 = SteadyClock::now();
            exportAudited(s_, audited ? &*audited : nullptr, outputs, pending);
            s_.report.finished(run, {"export", secondsSince(t0), run.counts.kept, 0, false});
        }
    } catch (...) {
        if (details.valid()) {
            details.wait();  // its own failure, if any, is the lesser one
            s_.store.abandonRunDetails();
        }
        try {
            throw;
        } catch (const ExportCancelled&) {
            throw Cancelled();
        }
    }
    RunResult* const auditedRun = audited ? &*audited : nullptr;
    s_.report.started("store");
    const auto t0 = SteadyClock::now();
    if (details.valid())
        details.get();  // the project is the caller's again
    else
        s_.store.writeRunDetails(run, s_.pairsAside.get());
    s_.report.finished(run, {"store", secondsSince(t0), run.counts.storedPairs, 0, false});
    s_.pairsAside.reset();  // its file's space goes back now
    // The details' transaction stays open until finishRun commits it; a failure in between rolls
    // it back, so that the run can be marked failed.
    try {
        finishRecordedRun(auditedRun, pending);
    } catch (...) {
        s_.store.abandonRunDetails();
        throw;
    }
    s_.store.finishRun(run);
    pending.commit();
    s_.lock->finished();
}

void ExportPhase::finishRecordedRun(RunResult* audited, PendingOutputs& pending) {
    RunResult& run = s_.run;
    run.status = "ok";
    run.finishedAt = utcNow();
    run.spillBytes = s_.work.bytesWritten();
    run.peakRssBytes = peakRssBytes();
    run.workerPhases = s_.backend.takeWorkerTimings();
    if (!s_.exports.summaryJson.empty()) {
        ExportOptions summaryOnly;
        summaryOnly.summaryJson = s_.exports.summaryJson;
        summaryOnly.project = protectedFiles(s_.store);
        exportAudited(s_, audited, summaryOnly, pending);
    }
    s_.memory.releaseSpill();
}

}  // namespace neardup
