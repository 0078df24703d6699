// Relocating a project's inputs (relocate.h): checks each moved file, then re-points its row.
#include "relocate.h"

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <set>

#include "input_pin.h"
#include "jsonl_reader.h"
#include "output_check.h"
#include "project_store.h"

namespace neardup {

namespace {

// `path` made lexically normal (no ".", "..", empty part or trailing slash; "/" stays "/"), the
// form in which stored paths and the folders given are compared and joined, so that "a/",
// "a//" and "a/." name what "a" names. A leading "//" (which POSIX lets a system give a meaning
// of its own, and Linux does not) is one slash, as every command writes its paths.
std::string lexical(const std::string& path) {
    std::string s = std::filesystem::path(path).lexically_normal().string();
    while (s.size() > 1 && s[0] == '/' && s[1] == '/')
        s.erase(0, 1);
    while (s.size() > 1 && s.back() == '/')
        s.pop_back();
    return s;
}

// The same file under `to`, or "" when `path` is not `from` and does not lie under it (all three
// lexical).
std::string moved(const std::string& path, const std::string& from, const std::string& to) {
    if (path == from) return to;
    const bool fromRoot = from == "/";
    if (path.size() <= from.size() || path.compare(0, from.size(), from) != 0 ||
        (!fromRoot && path[from.size()] != '/'))
        return {};
    const std::string rest = path.substr(fromRoot ? 1 : from.size() + 1);
    return (to == "/" ? to : to + "/") + rest;
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
    const std::string from = lexical(canonicalPath(fromPath));
    const std::string to = lexical(canonicalPath(toPath));
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
        const std::string target = moved(lexical(pinned.path), from, to);
        if (target.empty() || pinned.mtimeNs < 0) continue;
        if (target == pinned.path) {
            ++result.alreadyThere;
            continue;
        }
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
    if (!rows.empty()) store.updateDatasetFiles(rows);
    result.files = rows.size();
    result.datasets = datasets.size();
    return result;
}

std::string repinInputs(ProjectStore& store, int64_t datasetId) {
    std::vector<DatasetFile> rows;
    for (const DatasetFile& row : store.datasetFiles()) {
        if (row.datasetId != datasetId) continue;
        const InputFile& pinned = row.file;
        if (std::string problem = pinProblem(pinned); !problem.empty()) return problem;
        InputFile now = pinned;
        if (pinned.mtimeNs < 0 || !statIdentity(now) || sameIdentity(pinned, now)) continue;
        rows.push_back({row.datasetId, row.index, std::move(now)});
    }
    if (!rows.empty()) store.updateDatasetFiles(rows);
    return {};
}

}  // namespace neardup
