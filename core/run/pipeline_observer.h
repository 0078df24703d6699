// What a run tells its front end while it works: phases starting and finishing, progress inside
// a phase, and messages. The core never prints; the CLI's progress printer and the workbench's
// run controller implement this.
#pragma once

#include <cstdint>
#include <string>

#include "run_result.h"

namespace neardup {

class PipelineObserver {
  public:
    virtual ~PipelineObserver() = default;
    virtual void phaseStarted(const std::string& /*phase*/) {}
    // Progress inside a phase: `done` of `total` units (bytes for read and signatures, bands
    // for buckets and compare, pairs for verify); total 0 when unknown.
    virtual void progress(const std::string& /*phase*/, uint64_t /*done*/, uint64_t /*total*/) {}
    virtual void phaseFinished(const PhaseTiming& /*timing*/) {}
    virtual void info(const std::string& /*message*/) {}
};

}  // namespace neardup
