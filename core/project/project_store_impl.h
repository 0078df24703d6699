// The project store's private state, shared by the files that implement ProjectStore
// (project_store.cpp: opening, datasets and signatures; project_store_runs.cpp: pairs and runs).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "project_schema.h"
#include "project_store.h"
#include "sqlite_handle.h"
#include "store_rows.h"

namespace neardup {

// SQLite's current time as the project stores it (UTC, milliseconds).
inline constexpr const char* kNow = "strftime('%Y-%m-%dT%H:%M:%fZ', 'now')";

struct ProjectStore::Impl {
    std::string path;
    sql::Database db;

    std::function<void()> interruptCheck;

    explicit Impl(const std::string& p) : path(p), db(p, true) { schema::open(db, p); }

    std::string sidecarDir() const { return path + ".d"; }

    // The dataset's document count, checked against its last document row (one index lookup),
    // so that a damaged count cannot size an allocation.
    uint64_t datasetDocuments(int64_t datasetId) {
        auto st = db.prepare("SELECT documents FROM datasets WHERE id = ?1");
        st.bind(1, datasetId);
        if (!st.step()) throw StoreError("project store: no dataset " + std::to_string(datasetId));
        const uint64_t documents = st.u64(0);
        auto last = db.prepare(
            "SELECT doc_index FROM documents WHERE dataset_id = ?1 ORDER BY doc_index DESC "
            "LIMIT 1");
        last.bind(1, datasetId);
        const uint64_t rows = last.step() ? last.u64(0) + 1 : 0;
        if (rows != documents)
            throw StoreError("project store: dataset " + std::to_string(datasetId) +
                             " is damaged: it lists " + std::to_string(documents) +
                             " documents, its last is #" + std::to_string(rows));
        return documents;
    }

    std::vector<InputFile> loadFiles(int64_t datasetId) {
        auto st = db.prepare(std::string("SELECT ") + store_rows::kFileColumns +
                             " FROM dataset_files WHERE dataset_id = ?1 ORDER BY file_index");
        st.bind(1, datasetId);
        std::vector<InputFile> files;
        while (st.step())
            files.push_back(store_rows::readFile(st, path));
        return files;
    }

    std::vector<RejectionCount> loadRejections(int64_t datasetId) {
        auto st = db.prepare(
            "SELECT reason, count, first_file, first_line FROM dataset_rejections "
            "WHERE dataset_id = ?1 ORDER BY ordinal");
        st.bind(1, datasetId);
        std::vector<RejectionCount> out;
        while (st.step()) {
            RejectionCount r;
            r.reason = st.string(0);
            r.count = st.u64(1);
            r.firstFile = st.string(2);
            r.firstLine = st.u64(3);
            out.push_back(std::move(r));
        }
        return out;
    }

    void insertRunDetails(const RunResult& run);
};

}  // namespace neardup
