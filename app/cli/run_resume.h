// `neardup run --resume`: the inputs and parameters of the project's most recent unfinished
// run, with the execution options given on the command line.
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "params.h"

namespace neardup::cli {

// Fills `inputs` and `params` for resuming the latest unfinished run of `project` and returns
// kExitOk with `resumedRun` set; or prints why not (to stderr) and returns an exit code.
// `params` holds what the command line parsed: its execution options (threads, backend,
// workers, devices, memory budget, work dir) are kept where `cmd` got them explicitly; options
// that change results may not be given (they are the resumed run's).
int prepareResume(const CLI::App& cmd, const std::string& project, std::vector<std::string>& inputs,
                  std::vector<std::string>& references, RunParams& params, int64_t& resumedRun);

}  // namespace neardup::cli
