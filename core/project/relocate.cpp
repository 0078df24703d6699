#include "relocate.h"

#include <cstdint>
#include <limits>
#include <set>

#include "input_pin.h"
#include "jsonl_reader.h"
#include "output_check.h"
#include "project_store.h"
#include "sqlite_handle.h"
#include "store_rows.h"

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
    uint64_t bytes = 0;
    try {
        const uint64_t sum = fingerprintFile(now, std::numeric_limits<uint64_t>::max(), bytes);
        if (bytes != pinned.contentBytes || sum != pinned.fingerprint)
            return name + ": same size, but its content differs";
    } catch (const std::exception& e) {
        return name + ": " + e.what();
    }
    return {};
}

}  // namespace

RelocateResult relocateInputs(ProjectStore& store, const std::string& fromPath,
                              const std::string& toPath) {
    const std::string from = canonicalPath(fromPath);
    const std::string to = canonicalPath(toPath);
    sql::Database& db = store.database();
    struct Row {
        int64_t dataset = 0, index = 0;
        InputFile now;
    };
    std::vector<Row> rows;
    std::set<int64_t> datasets;
    RelocateResult result;
    {
        auto st = db.prepare(std::string("SELECT dataset_id, file_index, ") +
                             "path, size, mtime_ns, compression, ctime_ns, device, inode, "
                             "content_bytes, fingerprint FROM dataset_files "
                             "ORDER BY dataset_id, file_index");
        while (st.step()) {
            // store_rows::readFile reads the columns from 0: read them here, shifted by two.
            InputFile pinned;
            pinned.path = st.string(2);
            pinned.size = st.u64(3);
            pinned.mtimeNs = st.int64(4);
            pinned.compression = store_rows::enumFromName(
                {InputFile::Compression::None, InputFile::Compression::Gzip,
                 InputFile::Compression::Zstd},
                st.text(5), "compression");
            pinned.fingerprinted = !st.isNull(9) && !st.isNull(10);
            pinned.contentBytes = pinned.fingerprinted ? st.u64(9) : 0;
            pinned.fingerprint = pinned.fingerprinted ? st.u64(10) : 0;
            const std::string target = moved(pinned.path, from, to);
            if (target.empty() || pinned.mtimeNs < 0) continue;
            InputFile now = pinned;
            now.path = target;
            if (std::string problem = mismatch(pinned, now); !problem.empty()) {
                result.problems.push_back(std::move(problem));
                continue;
            }
            statIdentity(now);
            rows.push_back({st.int64(0), st.int64(1), std::move(now)});
            datasets.insert(st.int64(0));
        }
    }
    if (!result.problems.empty()) return result;
    sql::Transaction tx(db);
    auto update = db.prepare(
        "UPDATE dataset_files SET path = ?3, mtime_ns = ?4, ctime_ns = ?5, device = ?6, "
        "inode = ?7 WHERE dataset_id = ?1 AND file_index = ?2");
    for (const Row& r : rows) {
        update.bind(1, r.dataset)
            .bind(2, r.index)
            .bind(3, std::string_view(r.now.path))
            .bind(4, int64_t{r.now.mtimeNs})
            .bind(5, int64_t{r.now.ctimeNs})
            .bindU64(6, r.now.device)
            .bindU64(7, r.now.inode)
            .run();
    }
    tx.commit();
    result.files = rows.size();
    result.datasets = datasets.size();
    return result;
}

}  // namespace neardup
