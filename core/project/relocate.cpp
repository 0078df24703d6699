// Relocating a project's inputs (relocate.h): checks each moved file, then re-points its row.
#include "relocate.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <set>

#include "input_pin.h"
#include "jsonl_reader.h"
#include "output_check.h"
#include "project_store.h"

namespace neardup {

namespace {

// The same file under `to`, or "" when `path` is not `from` and does not lie under it.
std::string moved(const std::string& path, const std::string& from, const std::string& to) {
    if (path == from) return to;
    if (path.size() > from.size() && path.compare(0, from.size(), from) == 0 &&
        (path[from.size()] == '/' || from == "/"))
        return to + path.substr(from == "/" ? 0 : from.size());
    return {};
}

// Why `now` (the candidate, identity filled in) is not the file `pinned`, or "".
std::string mismatch(const InputFile& pinned, InputFile now) {
    const std::string name = "'" + now.path + "' (for '" + pinned.path + "')";
    if (!statIdentity(now)) return name + ": not found";
    if (now.size != pinned.size)
        return name + ": " + std::to_string(now.size) + " bytes, the input read had " +
               std::to_string(pinned.size);
    if (!pinned.fingerprinted) {
        if (now.mtimeNs != pinned.mtimeNs)
            return name +
                   ": modified at another time, and the project (written before "
                   "inputs were fingerprinted) cannot tell whether its content is the same";
        return {};
    }
    try {
        if (std::string mismatch = contentMismatch(pinned, now); !mismatch.empty())
            return name + ": " + mismatch;
    } catch (const std::exception& e) {
        return name + ": " + e.what();
    }
    return {};
}

// "dataset N (runs 1, 3)", or "dataset N (no run)", for naming what a problem is about.
std::string datasetName(int64_t dataset, const std::vector<RunSummary>& runs) {
    std::string ids;
    for (const RunSummary& r : runs) {
        if (r.datasetId != dataset) continue;
        ids += (ids.empty() ? "" : ", ") + std::to_string(r.runId);
    }
    return "dataset " + std::to_string(dataset) +
           (ids.empty() ? std::string(" (no run)")
                        : (ids.find(',') == std::string::npos ? " (run " : " (runs ") + ids + ")");
}

}  // namespace

RelocateResult relocateInputs(ProjectStore& store, const std::string& fromPath,
                              const std::string& toPath, int64_t onlyDataset) {
    const std::string from = canonicalPath(fromPath);
    const std::string to = canonicalPath(toPath);
    std::vector<DatasetFile> rows;
    std::set<int64_t> datasets;
    RelocateResult result;
    const std::vector<DatasetFile> stored = store.datasetFiles();
    const std::vector<RunSummary> runs = store.listRuns();
    if (onlyDataset != 0 && std::none_of(stored.begin(), stored.end(), [&](const DatasetFile& f) {
            return f.datasetId == onlyDataset;
        })) {
        result.problems.push_back("the project holds no dataset " + std::to_string(onlyDataset));
        return result;
    }
    for (const DatasetFile& row : stored) {
        if (onlyDataset != 0 && row.datasetId != onlyDataset) continue;
        const InputFile& pinned = row.file;
        const std::string target = moved(pinned.path, from, to);
        if (target.empty() || pinned.mtimeNs < 0) continue;
        InputFile now = pinned;
        now.path = target;
        if (std::string problem = mismatch(pinned, now); !problem.empty()) {
            result.problems.push_back(datasetName(row.datasetId, runs) + ": " + problem);
            continue;
        }
        statIdentity(now);
        rows.push_back({row.datasetId, row.index, std::move(now)});
        datasets.insert(row.datasetId);
    }
    if (!result.problems.empty()) return result;
    store.updateDatasetFiles(rows);
    result.files = rows.size();
    result.datasets = datasets.size();
    return result;
}

}  // namespace neardup
