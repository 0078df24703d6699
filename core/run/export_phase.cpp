// The outputs and the finished run's record (ExportPhase, run_phases.h).
#include <future>
#include <optional>
#include <vector>

#include "component_chain.h"
#include "decisions.h"
#include "memory_budget.h"
#include "project_protected_files.h"
#include "run_phases.h"
#include "run_time.h"
#include "signature_rows.h"

namespace neardup {

namespace {

// The largest components and their diameters (component_chain.h), from the project's signature
// cache, read through one open file for all the components; a run that spilled cached none, so
// its members' rows are read from the rows' spill file instead, which stays open until the end
// of this phase.
NotableComponents measureComponents(RunState& s, const RunResult& run) {
    DiameterReading reading;
    if (!s.memory.spilled()) {
        const SignatureRowReader cache(s.store, *s.datasetId, s.cacheKey);
        reading.rows = [&cache](const std::vector<uint32_t>& docs, std::vector<uint32_t>& values) {
            return cache.read(docs, values);
        };
        return notableComponents(s.store, run, 3, &reading);
    }
    const SignatureSpill& spill = s.memory.spill();
    const auto h = static_cast<std::size_t>(spill.hashes());
    reading.rows = [&spill, h](const std::vector<uint32_t>& docs, std::vector<uint32_t>& values) {
        values.clear();
        if (!docs.empty() && docs.back() >= spill.size()) return false;
        values.resize(docs.size() * h);
        try {
            spill.readRows(docs.data(), docs.size(), values.data());
        } catch (const std::exception&) {
            values.clear();
            return false;
        }
        return true;
    };
    return notableComponents(s.store, run, 3, &reading);
}

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
    // The largest components and their diameters, which the summary (--summary-json, and a front
    // end's on stderr) names, are measured before the run's details are written: they read the
    // project's signature cache through a connection of their own, which the details' write
    // transaction locks out once its pages spill to the file.
    // The summary of an audited run names the components the decisions leave (the same
    // selection as the run's).
    run.components = measureComponents(s_, run);
    std::optional<RunResult> audited;
    if (!decisions.empty()) {
        audited = withDecisions(run, decisions, s_.docs);
        if (!s_.exports.summaryJson.empty()) audited->components = measureComponents(s_, *audited);
    }
    RunResult* const auditedRun = audited ? &*audited : nullptr;
    ExportOptions outputs = s_.exports;
    outputs.summaryJson.clear();              // written last, once the export phase is timed too
    outputs.cancel = s_.report.cancelFlag();  // Ctrl-C stops the export too; nothing is renamed
    outputs.readAhead = run.threads >= 2;
    outputs.project = protectedFiles(s_.store);
    outputs.reader = s_.params.reader;
    // The run's clustered details (most of finishRun's rows: pairs, clusters, members) go into
    // the project as the "store" phase: with a second thread, while the outputs are written
    // (the export reads neither the project nor anything the details change), and the phase is
    // the time the run then still waits for them; otherwise after the outputs. An audited
    // export borrows the run's pairs (exportAudited), so it stays in sequence.
    std::future<void> details;
    if (outputs.any()) {
        if (run.threads >= 2 && decisions.empty())
            details = std::async(std::launch::async,
                                 [this] { s_.store.writeRunDetails(s_.run, s_.pairsAside.get()); });
        s_.report.started("export");
        const auto t0 = SteadyClock::now();
        try {
            exportAudited(s_, auditedRun, outputs, pending);
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
        s_.report.finished(run, {"export", secondsSince(t0), run.counts.kept, 0, false});
    }
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
