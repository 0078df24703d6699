#include "run_service.h"

#include "jsonl_reader.h"
#include "output_check.h"
#include "project_store.h"
#include "run_lock.h"

namespace neardup {

RunProblem checkRun(const RunRequest& request) {
    if (std::string problem = validate(request.params); !problem.empty())
        return {RunProblem::Kind::Parameters, std::move(problem)};
    // The reference is read by this run as its inputs are: no output may land on it, nor in a
    // folder given as the reference.
    ProtectedFiles guarded(request.project);
    guardFoldersGiven(guarded, request.references, "--reference");
    try {
        const std::vector<InputFile> references = expandInputs(request.references, OnError::Skip);
        for (const InputFile& f : references)
            guarded.inputs.push_back({f.path, 0});
        // A file in both is refused before the project is opened: it records no run.
        if (!references.empty())
            if (std::string problem =
                    sharedInputProblem(expandInputs(request.inputs, OnError::Skip), references);
                !problem.empty())
                return {RunProblem::Kind::Inputs, std::move(problem)};
    } catch (const std::exception&) {
        // A missing input or reference is the run's to report, with its own message.
    }
    if (std::string problem = outputProblem(request.outputs, request.inputs, guarded);
        !problem.empty())
        return {RunProblem::Kind::Outputs, std::move(problem)};
    return {};
}

RunResult executeRun(const RunRequest& request, const RunHooks& hooks) {
    if (RunProblem problem = checkRun(request)) throw RunRefused(std::move(problem));
    BackendOptions choice = backendOptions(request.params);
    if (hooks.adjustBackend) hooks.adjustBackend(choice);
    std::string reason;
    std::unique_ptr<Backend> backend = makeBackend(choice, &reason);
    if (hooks.wrapBackend) backend = hooks.wrapBackend(std::move(backend), reason);
    if (hooks.backendChosen)
        hooks.backendChosen(reason);
    else if (hooks.observer)
        hooks.observer->info(reason);
    ProjectStore store(request.project);
    // Runs of processes that died become "interrupted" (with a resume record) before this one
    // starts beside them.
    store.recoverStaleRuns();
    // A run is resumed by one process at a time: a second one is refused, naming the first.
    const ResumeClaim claim =
        request.resumes != 0 ? ResumeClaim(store, request.resumes) : ResumeClaim();
    Pipeline pipeline(store, *backend, hooks.observer, hooks.cancel);
    RunResult result =
        pipeline.run(request.inputs, request.params, request.outputs, request.references);
    if (request.resumes != 0) forgetResumable(store, request.resumes);
    if (hooks.finished) hooks.finished(*backend);
    return result;
}

}  // namespace neardup
