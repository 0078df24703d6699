// How the pipeline's phases tell the front end what they do (through its PipelineObserver, when
// there is one) and learn that the user cancelled the run.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <utility>

#include "cancelled.h"
#include "pipeline_observer.h"
#include "run_result.h"

namespace neardup {

class PhaseReporter {
  public:
    PhaseReporter(PipelineObserver* observer, const std::atomic<bool>* cancel)
        : observer_(observer), cancel_(cancel) {}

    // Throws Cancelled once the user asked to stop.
    void checkCancel() const {
        if (cancel_ && cancel_->load(std::memory_order_relaxed)) throw Cancelled();
    }
    // Whether the user asked to stop, for the reading stages, which drain instead of throwing.
    bool cancelled() const { return cancel_ && cancel_->load(); }
    // The flag itself, for work outside the pipeline that stops on it (the export).
    const std::atomic<bool>* cancelFlag() const { return cancel_; }

    void started(const std::string& phase) {
        if (observer_) observer_->phaseStarted(phase);
    }
    void progress(const std::string& phase, uint64_t done, uint64_t total) {
        if (observer_) observer_->progress(phase, done, total);
    }
    // Tells the observer, then records the phase's timing in the run.
    void finished(RunResult& run, PhaseTiming timing) {
        if (observer_) observer_->phaseFinished(timing);
        run.phases.push_back(std::move(timing));
    }
    void info(const std::string& message) {
        if (observer_) observer_->info(message);
    }

  private:
    PipelineObserver* observer_;
    const std::atomic<bool>* cancel_;
};

}  // namespace neardup
