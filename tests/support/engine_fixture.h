// What the tests that need a real project share: a generated corpus on disk (the generator's
// JSON Lines written whole, closed, so complete, when the call returns, with its ground truth for
// the tests that check against it) and a run of the engine in process into a project, as the
// CLI would run it with two threads.
#pragma once

#include <fstream>
#include <string>
#include <vector>

#include "backend.h"
#include "corpus_generator.h"
#include "pipeline.h"
#include "project_store.h"

namespace testsupport {

inline neardup::GroundTruth writeGeneratedCorpus(const std::string& path,
                                                 const neardup::GeneratorOptions& options) {
    neardup::GroundTruth truth;
    std::ofstream out(path, std::ios::binary);
    neardup::generateCorpus(options, out, truth);
    return truth;
}

inline neardup::RunResult runEngine(const std::string& project,
                                    const std::vector<std::string>& inputs,
                                    const neardup::RunParams& params) {
    neardup::ProjectStore store(project);
    auto backend = neardup::makeCpuBackend(2);
    neardup::Pipeline pipeline(store, *backend);
    return pipeline.run(inputs, params);
}

}  // namespace testsupport
