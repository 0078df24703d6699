// The files of a project that no output may replace: the project, its companions and every input
// of every dataset it holds (core/output/protected_files.h), for every command and the workbench
// to check their outputs against (outputProblem of core/output/output_check.h).
#pragma once

#include <string>

#include "protected_files.h"

namespace neardup {

class ProjectStore;

// The project of `store` and the inputs of all of its datasets, relative paths resolved against
// the project's folder as the datasets resolve them.
ProtectedFiles protectedFiles(const ProjectStore& store);

}  // namespace neardup
