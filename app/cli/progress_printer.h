// Prints pipeline progress to stderr: live (rate, ETA) on a terminal, one line per phase
// otherwise.
#pragma once

#include <chrono>
#include <string>

#include "pipeline.h"

namespace neardup::cli {

class ProgressPrinter final : public PipelineObserver {
  public:
    explicit ProgressPrinter(bool quiet);
    void phaseStarted(const std::string& phase) override;
    void progress(const std::string& phase, uint64_t done, uint64_t total) override;
    void phaseFinished(const PhaseTiming& timing) override;
    void info(const std::string& message) override;

  private:
    bool live_;
    bool quiet_;
    std::chrono::steady_clock::time_point phaseStart_;
    std::chrono::steady_clock::time_point lastPrint_;
    bool lineOpen_ = false;
};

}  // namespace neardup::cli
