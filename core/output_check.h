// Checking output paths before a run starts, so that a long run does not end in "cannot write"
// after hours of work.
#pragma once

#include <string>

#include "exporter.h"

namespace neardup {

// An empty string when every requested output can be created, else a message naming the first
// that cannot: its directory is missing, not a directory or not writable; the path is a
// directory; or two outputs share one path. The final write can still fail (a full disk); that
// is reported then, and leaves nothing partial behind.
std::string outputProblem(const ExportOptions& outputs);

}  // namespace neardup
