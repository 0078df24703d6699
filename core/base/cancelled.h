// The exception that ends a run whose cancellation flag was raised; shared by the pipeline that
// throws it and the project code that records the run as interrupted.
#pragma once

#include <stdexcept>

namespace neardup {

// Thrown when the cancellation flag is raised; the run is recorded as interrupted.
class Cancelled : public std::runtime_error {
  public:
    Cancelled() : std::runtime_error("run cancelled") {}
};

}  // namespace neardup
