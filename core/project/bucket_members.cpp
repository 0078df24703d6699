#include "bucket_members.h"

#include <sqlite3.h>

#include "params.h"
#include "project_store.h"

namespace neardup {

namespace {

struct RunLsh {
    int64_t datasetId = 0;
    std::string status, signatureKey;
    LshParams lsh;
    uint64_t resolvedBuckets = 0;
    int hashes = 0;
    bool spilled = false;
};

// The run's LSH settings, from its row (a read-only connection of its own).
RunLsh readRun(const std::string& path, int64_t runId) {
    sqlite3* db = nullptr;
    if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_FULLMUTEX, nullptr) !=
        SQLITE_OK) {
        const std::string msg = db ? sqlite3_errmsg(db) : "out of memory";
        sqlite3_close(db);
        throw StoreError("cannot open " + path + ": " + msg);
    }
    sqlite3_busy_timeout(db, 5000);
    sqlite3_stmt* st = nullptr;
    RunLsh r;
    bool found = false;
    std::string error;
    if (sqlite3_prepare_v2(db,
                           "SELECT dataset_id, status, signature_key, bands, rows, bucket_key,"
                           " resolved_buckets, hashes, spilled FROM runs WHERE id = ?1",
                           -1, &st, nullptr) == SQLITE_OK) {
        sqlite3_bind_int64(st, 1, runId);
        const int rc = sqlite3_step(st);
        if (rc == SQLITE_ROW) {
            found = true;
            auto text = [&](int c) {
                const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(st, c));
                return p ? std::string(p) : std::string();
            };
            r.datasetId = sqlite3_column_int64(st, 0);
            r.status = text(1);
            r.signatureKey = text(2);
            r.lsh.bands = sqlite3_column_int(st, 3);
            r.lsh.rows = sqlite3_column_int(st, 4);
            r.lsh.scheme = parseBandKeyScheme(text(5)).value_or(BandKeyScheme::Hash);
            r.resolvedBuckets = static_cast<uint64_t>(sqlite3_column_int64(st, 6));
            r.hashes = sqlite3_column_int(st, 7);
            r.spilled = sqlite3_column_int(st, 8) != 0;
        } else if (rc != SQLITE_DONE) {
            error = sqlite3_errmsg(db);
        }
    } else {
        error = sqlite3_errmsg(db);
    }
    sqlite3_finalize(st);
    sqlite3_close(db);
    if (!error.empty()) throw StoreError("cannot read run " + std::to_string(runId) + ": " + error);
    if (!found) throw StoreError("no run " + std::to_string(runId) + " in the project");
    return r;
}

}  // namespace

bool BandKeyTable::load(ProjectStore& store, int64_t runId, Backend& backend) {
    *this = BandKeyTable{};
    runId_ = runId;
    const RunLsh run = readRun(store.path(), runId);
    datasetId_ = run.datasetId;
    if (run.status != "ok") {
        why_ = "run " + std::to_string(runId) + " is " + run.status + ", not finished";
        return false;
    }
    if (run.lsh.bands <= 0 || run.lsh.rows <= 0 ||
        static_cast<int64_t>(run.lsh.bands) * run.lsh.rows > run.hashes) {
        why_ = "run " + std::to_string(runId) + " has no valid band layout";
        return false;
    }
    SignatureMatrix sigs;
    if (!store.loadSignatures(run.datasetId, run.signatureKey, sigs) || sigs.hashes != run.hashes) {
        why_ = run.spilled
                   ? "the run's signatures were not cached: they exceeded its memory "
                     "budget and went to spill files. A run with a larger memory budget "
                     "caches them."
                   : "the run's signatures are not in the project's cache (the " + store.path() +
                         ".d directory is missing or was cleared). Running again with "
                         "the same signature parameters caches them.";
        return false;
    }
    bands_ = run.lsh.bands;
    keys_.resize(sigs.size() * static_cast<std::size_t>(bands_));
    backend.computeBandKeys(sigs, run.lsh, run.resolvedBuckets, keys_.data());
    eligible_ = std::move(sigs.eligible);
    return true;
}

std::vector<uint32_t> BandKeyTable::members(int band, uint64_t key) const {
    std::vector<uint32_t> out;
    if (band < 0 || band >= bands_) return out;
    const std::size_t stride = static_cast<std::size_t>(bands_);
    const uint64_t* k = keys_.data() + band;
    const std::size_t n = eligible_.size();
    for (std::size_t i = 0; i < n; ++i, k += stride)
        if (*k == key && eligible_[i]) out.push_back(static_cast<uint32_t>(i));
    return out;
}

}  // namespace neardup
