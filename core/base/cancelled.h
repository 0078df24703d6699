// The exception that ends a run whose cancellation flag was raised; shared by the pipeline that
// throws it and the project code that records the run as interrupted.
#pragma once

#include <stdexcept>
#include <string>

namespace neardup {

// Thrown when the cancellation flag is raised; the run is recorded as interrupted.
class Cancelled : public std::runtime_error {
  public:
    Cancelled() : std::runtime_error("run cancelled") {}
};

// The signal that raised the cancellation flag, noted by a front end's signal handler before it
// raises the flag (a lock-free atomic: safe in a handler); none noted means the user cancelled.
void noteStopSignal(int signo) noexcept;
// The signal noted; 0 when none was.
int stopSignal() noexcept;
// How an interrupted run is recorded: "cancelled by the user" (Cancel in the workbench, Ctrl-C)
// or, for a SIGTERM or SIGHUP, the signal and who sends it.
std::string stopReason();

}  // namespace neardup
