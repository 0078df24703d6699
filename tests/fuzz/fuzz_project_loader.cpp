// Fuzz target: opening arbitrary bytes as a project file (.ndw) and reading everything a run,
// an export or the workbench reads from it. A damaged project must raise StoreError (or the
// workbench queries' QueryError), never crash, hang or raise anything else; an uncaught
// exception aborts and is reported by libFuzzer.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "project_queries.h"
#include "project_store.h"

using namespace neardup;

namespace {

// A private directory for the project and its sidecar, removed at exit.
struct ScratchDir {
    std::filesystem::path dir =
        std::filesystem::temp_directory_path() / ("neardup-fuzz-" + std::to_string(::getpid()));
    ScratchDir() { std::filesystem::create_directories(dir); }
    ~ScratchDir() {
        std::error_code ec;
        std::filesystem::remove_all(dir, ec);
    }
};

const std::string& projectPath() {
    static const ScratchDir scratch;
    static const std::string path = (scratch.dir / "fuzz.ndw").string();
    return path;
}

void readEverything(const std::string& path) {
    ProjectStore store(path);
    for (const RunSummary& summary : store.listRuns()) {
        const RunResult run = store.loadRun(summary.runId);
        store.loadPairs(summary.runId);
        DocumentTable docs;
        const DatasetRecord dataset = store.loadDataset(run.datasetId, &docs);
        SignatureMatrix sigs;
        store.loadSignatures(run.datasetId,
                             signatureCacheKey(run.params.signature, run.params.reader), sigs);
        store.findReusablePairs(run.datasetId, run.params, run.resolvedBuckets);
        store.findDataset(dataset.files, dataset.reader);
    }
    store.latestRun();
}

void queryEverything(const std::string& path) {
    ProjectQueries queries(path);
    for (const int64_t run : queries.runIds()) {
        const RunInfo info = queries.runInfo(run);
        queries.datasetSource(info.datasetId);
        queries.clusterCount(run, ClusterFilter{});
        queries.clusterMembers(run, 0, 100);
        queries.clusterPairs(run, 0, 100);
        for (const BandRow& band : queries.bandStats(run)) {
            queries.histogram(run, band.band);
            queries.outliers(run, band.band);
        }
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
    const std::string& path = projectPath();
    std::filesystem::remove(path + "-journal");
    {
        std::ofstream out(path, std::ios::binary | std::ios::trunc);
        out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
    }
    try {
        readEverything(path);
    } catch (const StoreError&) {
    }
    try {
        queryEverything(path);
    } catch (const QueryError&) {
    } catch (const StoreError&) {
    }
    return 0;
}
