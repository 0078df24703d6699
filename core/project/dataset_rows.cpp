// A dataset's row mappers (dataset_rows.h): datasets, dataset_files, documents, rejections.
#include "dataset_rows.h"

#include <cmath>
#include <cstring>
#include <filesystem>
#include <limits>
#include <string>
#include <tuple>

#include "field_text.h"
#include "row_fields.h"
#include "row_inserter.h"

namespace neardup::store_rows {

// ---- datasets -----------------------------------------------------------------------------

int64_t insertDataset(sql::Database& db, const DatasetRecord& dataset, uint64_t documents) {
    auto st = db.prepare(std::string("INSERT INTO datasets(created_at, reader_json, lines_read, "
                                     "blank_lines, input_bytes, documents, reference_files, "
                                     "base_dataset, base_documents) VALUES(") +
                         kNow +
                         ", json_object('text_field', ?1, 'id_field', ?2, 'keep_field', ?3), "
                         "?4, ?5, ?6, ?7, ?8, ?9, ?10)");
    st.bind(1, std::string_view(dataset.reader.textField))
        .bind(2, std::string_view(dataset.reader.idField))
        .bind(3, std::string_view(dataset.reader.keepField))
        .bindU64(4, dataset.linesRead)
        .bindU64(5, dataset.blankLines)
        .bindU64(6, dataset.inputBytes)
        .bindU64(7, documents)
        .bindU64(8, dataset.referenceFiles)
        .bindU64(10, dataset.baseDataset ? dataset.baseDocuments : 0);
    if (dataset.baseDataset)
        st.bind(9, *dataset.baseDataset);
    else
        st.bindNull(9);
    st.run();
    return db.lastInsertRowId();
}

std::optional<uint64_t> readDataset(const sql::Database& db, int64_t datasetId,
                                    DatasetRecord& out) {
    auto st = db.prepare(
        "SELECT json_extract(reader_json, '$.text_field') AS text_field, "
        "json_extract(reader_json, '$.id_field') AS id_field, "
        "json_extract(reader_json, '$.keep_field') AS keep_field, "
        "lines_read, blank_lines, input_bytes, documents, reference_files, base_dataset, "
        "base_documents FROM datasets WHERE id = ?1");
    st.bind(1, datasetId);
    if (!st.step()) return std::nullopt;
    const sql::Row row(st);
    out.id = datasetId;
    out.reader.textField = row.string("text_field");
    out.reader.idField = row.string("id_field");
    out.reader.keepField = row.string("keep_field");
    out.linesRead = row.u64("lines_read");
    out.blankLines = row.u64("blank_lines");
    out.inputBytes = row.u64("input_bytes");
    const uint64_t referenceFiles = row.u64("reference_files");
    if (referenceFiles > std::numeric_limits<uint32_t>::max())
        throw StoreError("project store: dataset " + std::to_string(datasetId) +
                         " is damaged: reference_files " + std::to_string(referenceFiles));
    out.referenceFiles = static_cast<uint32_t>(referenceFiles);
    const uint64_t documents = row.u64("documents");
    out.baseDataset.reset();
    out.baseDocuments = 0;
    if (!row.isNull("base_dataset")) {
        out.baseDataset = row.int64("base_dataset");
        out.baseDocuments = row.u64("base_documents");
        if (*out.baseDataset == datasetId || out.baseDocuments > documents)
            throw StoreError("project store: dataset " + std::to_string(datasetId) +
                             " is damaged: it shares " + std::to_string(out.baseDocuments) +
                             " of its " + std::to_string(documents) + " documents with dataset " +
                             std::to_string(*out.baseDataset));
    }
    return documents;
}

bool sameContent(const InputFile& a, const InputFile& b) {
    return a.size == b.size && a.compression == b.compression &&
           a.fingerprinted == b.fingerprinted && a.contentBytes == b.contentBytes &&
           a.legacySum == b.legacySum && a.fingerprint == b.fingerprint && a.pin == b.pin;
}

std::optional<DatasetBase> datasetBase(const sql::Database& db, int64_t datasetId) {
    DatasetRecord rec;
    if (!readDataset(db, datasetId, rec) || !rec.baseDataset) return std::nullopt;
    const int64_t baseId = *rec.baseDataset;
    const auto damaged = [&](const std::string& why) {
        return StoreError("project store: dataset " + std::to_string(datasetId) +
                          " is damaged: its base dataset " + std::to_string(baseId) + " " + why);
    };
    // What a run writes (and saveDataset checks): an earlier dataset that shares nothing
    // itself, of exactly base_documents documents, whose files are this one's first files. A
    // base that is anything else is never followed: its rows would be another dataset's.
    DatasetRecord base;
    const std::optional<uint64_t> baseDocuments = readDataset(db, baseId, base);
    if (!baseDocuments || baseId >= datasetId) throw damaged("is not an earlier dataset");
    if (base.baseDataset) throw damaged("shares documents itself");
    if (*baseDocuments != rec.baseDocuments)
        throw damaged("has " + std::to_string(*baseDocuments) + " documents, not the " +
                      std::to_string(rec.baseDocuments) + " it shares");
    const std::vector<InputFile> baseFiles = loadFiles(db, baseId, {});
    const std::vector<InputFile> files = loadFiles(db, datasetId, {});
    bool same = baseFiles.size() <= files.size();
    for (std::size_t i = 0; same && i < baseFiles.size(); ++i)
        same = sameContent(baseFiles[i], files[i]);
    if (!same) throw damaged("does not list this dataset's first files");
    return DatasetBase{baseId, rec.baseDocuments};
}

std::string documentRowOf(std::string_view alias, std::string_view dataset, std::string_view index,
                          const std::optional<DatasetBase>& base) {
    const std::string a(alias), i(index);
    std::string owner(dataset);
    if (base)
        owner = "IIF(" + i + " < " + std::to_string(base->documents) + ", " +
                std::to_string(base->dataset) + ", " + owner + ")";
    return a + ".dataset_id = " + owner + " AND " + a + ".doc_index = " + i;
}

int64_t documentsDatasetOf(const sql::Database& db, int64_t datasetId, uint64_t docIndex) {
    const std::optional<DatasetBase> base = datasetBase(db, datasetId);
    return base && docIndex < base->documents ? base->dataset : datasetId;
}

uint64_t datasetDocuments(const sql::Database& db, int64_t datasetId) {
    DatasetRecord rec;
    const std::optional<uint64_t> listed = readDataset(db, datasetId, rec);
    if (!listed) throw StoreError("project store: no dataset " + std::to_string(datasetId));
    const uint64_t documents = *listed;
    auto last = db.prepare(
        "SELECT doc_index FROM documents WHERE dataset_id = ?1 ORDER BY doc_index DESC "
        "LIMIT 1");
    last.bind(1, datasetId);
    // A dataset whose every document is its base's has no rows of its own: its count is the
    // base's, checked against the base's last row in turn.
    uint64_t rows = 0;
    if (last.step()) {
        rows = last.u64(0) + 1;
    } else if (const std::optional<DatasetBase> base = datasetBase(db, datasetId)) {
        rows = datasetDocuments(db, base->dataset);
    }
    if (rows != documents)
        throw StoreError("project store: dataset " + std::to_string(datasetId) +
                         " is damaged: it lists " + std::to_string(documents) +
                         " documents, its last is #" + std::to_string(rows));
    return documents;
}

// ---- dataset_files ------------------------------------------------------------------------

void insertFiles(sql::Database& db, int64_t datasetId, const std::vector<InputFile>& files) {
    auto st = db.prepare(
        "INSERT INTO dataset_files(dataset_id, file_index, path, size, mtime_ns, "
        "compression, ctime_ns, device, inode, content_bytes, fingerprint, pin) "
        "VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)");
    st.bind(1, datasetId);
    for (std::size_t i = 0; i < files.size(); ++i) {
        const InputFile& f = files[i];
        st.bindU64(2, i)
            .bind(3, std::string_view(f.path))
            .bindU64(4, f.size)
            .bind(5, int64_t{f.mtimeNs})
            .bind(6, std::string_view(toString(f.compression)))
            .bind(7, int64_t{f.ctimeNs})
            .bindU64(8, f.device)
            .bindU64(9, f.inode);
        if (!f.fingerprinted) {
            st.bindNull(10).bindNull(11).bindNull(12);
        } else if (f.legacySum) {  // a dataset of an older project, saved again
            st.bindU64(10, f.contentBytes).bindU64(11, f.fingerprint).bindNull(12);
        } else {
            st.bindU64(10, f.contentBytes).bindNull(11).bindBlob(12, f.pin.data(), f.pin.size());
        }
        st.run();
    }
}

InputFile readFile(const sql::Statement& st, const std::string& projectPath) {
    const sql::Row row(st);
    InputFile f;
    f.path = row.string("path");
    if (!f.path.empty() && f.path.front() != '/' && !projectPath.empty() &&
        projectPath != ":memory:") {
        std::error_code ec;
        const std::filesystem::path dir = std::filesystem::absolute(projectPath, ec).parent_path();
        if (!ec) f.path = (dir / f.path).lexically_normal().string();
    }
    f.size = row.u64("size");
    f.mtimeNs = row.int64("mtime_ns");
    f.compression = enumFromName(
        {InputFile::Compression::None, InputFile::Compression::Gzip, InputFile::Compression::Zstd},
        row.text("compression"), "compression");
    f.ctimeNs = row.isNull("ctime_ns") ? 0 : row.int64("ctime_ns");
    f.device = row.isNull("device") ? 0 : row.u64("device");
    f.inode = row.isNull("inode") ? 0 : row.u64("inode");
    // A content pin (schema version 6), else a legacy sum (versions 3 to 5), else none.
    const int pin = st.column("pin");
    const bool pinned = pin >= 0 && !st.isNull(pin);
    if (pinned && st.bytes(pin) != f.pin.size())
        throw StoreError("project store: the pin of input '" + f.path + "' is damaged");
    if (pinned) std::memcpy(f.pin.data(), st.blob(pin), f.pin.size());
    f.legacySum = !pinned && !row.isNull("fingerprint");
    f.fingerprinted = !row.isNull("content_bytes") && (pinned || f.legacySum);
    f.contentBytes = f.fingerprinted ? row.u64("content_bytes") : 0;
    f.fingerprint = f.legacySum ? row.u64("fingerprint") : 0;
    return f;
}

PinKey projectPinKey(const sql::Database& db) {
    auto st = db.prepare("SELECT value FROM meta WHERE key = 'pin_key'");
    PinKey key{};
    const std::string_view hex = st.step() ? st.text(0) : std::string_view();
    if (hex.size() != 2 * key.size())
        throw StoreError("project store: the project is damaged: its content pin key is missing");
    auto nibble = [&](char c) -> int {
        if (c >= '0' && c <= '9') return c - '0';
        if (c >= 'a' && c <= 'f') return c - 'a' + 10;
        throw StoreError("project store: the project is damaged: its content pin key is not hex");
    };
    for (std::size_t i = 0; i < key.size(); ++i)
        key[i] = static_cast<uint8_t>(nibble(hex[2 * i]) * 16 + nibble(hex[2 * i + 1]));
    return key;
}

std::vector<InputFile> loadFiles(const sql::Database& db, int64_t datasetId,
                                 const std::string& projectPath) {
    auto st = db.prepare(std::string("SELECT ") + kFileColumns +
                         " FROM dataset_files WHERE dataset_id = ?1 ORDER BY file_index");
    st.bind(1, datasetId);
    std::vector<InputFile> files;
    while (st.step())
        files.push_back(readFile(st, projectPath));
    if (!files.empty()) {
        const PinKey key = projectPinKey(db);
        for (InputFile& f : files)
            f.pinKey = key;
    }
    return files;
}

std::vector<DatasetFile> loadAllFiles(const sql::Database& db) {
    auto st = db.prepare(std::string("SELECT dataset_id, file_index, ") + kFileColumns +
                         " FROM dataset_files ORDER BY dataset_id, file_index");
    std::vector<DatasetFile> out;
    while (st.step())
        out.push_back({st.int64(0), st.int64(1), readFile(st, {})});
    if (!out.empty()) {
        const PinKey key = projectPinKey(db);
        for (DatasetFile& f : out)
            f.file.pinKey = key;
    }
    return out;
}

void updateFileLocations(sql::Database& db, const std::vector<DatasetFile>& files) {
    auto update = db.prepare(
        "UPDATE dataset_files SET path = ?3, mtime_ns = ?4, ctime_ns = ?5, device = ?6, "
        "inode = ?7 WHERE dataset_id = ?1 AND file_index = ?2");
    for (const DatasetFile& r : files) {
        update.bind(1, r.datasetId)
            .bind(2, r.index)
            .bind(3, std::string_view(r.file.path))
            .bind(4, int64_t{r.file.mtimeNs})
            .bind(5, int64_t{r.file.ctimeNs})
            .bindU64(6, r.file.device)
            .bindU64(7, r.file.inode)
            .run();
    }
}

// ---- documents ----------------------------------------------------------------------------

void insertDocuments(sql::Database& db, int64_t datasetId, const DocumentTable& docs,
                     std::size_t firstOwn, const std::function<void()>& interruptCheck) {
    // Ids are bound without copying: they stay in the document table until the rows are in.
    sql::RowInserter<std::size_t> rows(
        db,
        "INSERT INTO documents(dataset_id, doc_index, file_index, line, offset, length, chars, "
        "doc_id, keep_value)",
        9, [&docs, datasetId](sql::Statement& st, int first, const std::size_t& i) {
            st.bind(first, datasetId)
                .bindU64(first + 1, i)
                .bind(first + 2, int64_t{docs.file[i]})
                .bindU64(first + 3, docs.line[i])
                .bindU64(first + 4, docs.offset[i])
                .bind(first + 5, int64_t{docs.length[i]})
                .bind(first + 6, int64_t{docs.chars[i]})
                .bind(first + 7, docs.id(i));
            if (std::isnan(docs.keepValue[i])) {
                st.bindNull(first + 8);
            } else {
                st.bind(first + 8, docs.keepValue[i]);
            }
        });
    const std::size_t n = docs.size();
    for (std::size_t i = firstOwn; i < n; ++i) {
        if ((i & 4095) == 4095 && interruptCheck) interruptCheck();
        rows.add(i);
    }
    rows.finish();
}

namespace {

// Appends the document rows of `datasetId` from doc_index `first` + docs.size() up to `end` to
// `docs`, which holds those from `first` on: first those its base shares (from the base's rows,
// the same way), then its own.
void appendDocuments(const sql::Database& db, int64_t datasetId,
                     const std::vector<InputFile>& files, uint64_t first, uint64_t end,
                     DocumentTable& docs, int depth) {
    const auto next = [&] { return first + docs.size(); };
    const std::optional<DatasetBase> base = datasetBase(db, datasetId);
    if (base && next() < base->documents) {
        if (depth >= kMaxBaseDepth)
            throw StoreError("project store: dataset " + std::to_string(datasetId) +
                             " is damaged: its chain of base datasets is too long");
        const uint64_t shared = std::min(end, base->documents);
        appendDocuments(db, base->dataset, files, first, shared, docs, depth + 1);
        if (next() != shared)
            throw StoreError("project store: dataset " + std::to_string(datasetId) +
                             " is damaged: document #" + std::to_string(next()) +
                             " is missing from its base dataset " + std::to_string(base->dataset));
    }
    if (next() >= end) return;
    auto st = db.prepare(
        "SELECT file_index, line, offset, length, chars, keep_value, doc_id, doc_index "
        "FROM documents WHERE dataset_id = ?1 AND doc_index >= ?2 AND doc_index < ?3 "
        "ORDER BY doc_index");
    st.bind(1, datasetId).bindU64(2, next()).bindU64(3, end);
    while (st.step()) {
        if (st.u64(7) != next())
            throw StoreError("project store: dataset " + std::to_string(datasetId) +
                             " is damaged: document #" + std::to_string(next()) + " is missing");
        const double keep = st.realOrNaN(5);
        // Every location is checked against the pinned files before it can be used to
        // read (or overwrite the reading of) anything.
        const int64_t file = st.int64(0), offset = st.int64(2), length = st.int64(3),
                      chars = st.int64(4);
        const auto damaged = [&](const std::string& what) {
            return StoreError("project store: dataset " + std::to_string(datasetId) +
                              " is damaged: document #" + std::to_string(next()) + " " + what);
        };
        if (file < 0 || static_cast<uint64_t>(file) >= files.size())
            throw damaged("names input file #" + std::to_string(file) + " of " +
                          std::to_string(files.size()));
        if (offset < 0 || length < 0 || length > std::numeric_limits<uint32_t>::max() ||
            chars < 0 || chars > std::numeric_limits<uint32_t>::max())
            throw damaged("has offset " + std::to_string(offset) + ", length " +
                          std::to_string(length) + ", characters " + std::to_string(chars));
        const InputFile& f = files[static_cast<std::size_t>(file)];
        const bool known = f.compression == InputFile::Compression::None || f.fingerprinted;
        const uint64_t limit =
            f.compression == InputFile::Compression::None ? f.size : f.contentBytes;
        if (known && (static_cast<uint64_t>(offset) > limit ||
                      static_cast<uint64_t>(length) > limit - static_cast<uint64_t>(offset)))
            throw damaged("lies at bytes " + std::to_string(offset) + ".." +
                          std::to_string(offset + length) + ", beyond the " +
                          std::to_string(limit) + " bytes of '" + f.path + "'");
        // An id is one line of the id lists the outputs write: one with a line break (which the
        // reader never stores) would split into several there.
        const std::string_view id = st.text(6);
        if (const int lineBreak = firstIdBreak(id); lineBreak >= 0)
            throw damaged("has an id holding " + describeIdBreak(lineBreak));
        docs.append(static_cast<uint32_t>(file), st.u64(1), static_cast<uint64_t>(offset),
                    static_cast<uint32_t>(length), static_cast<uint32_t>(chars), keep, id);
    }
}

}  // namespace

void loadDocuments(const sql::Database& db, int64_t datasetId, const std::vector<InputFile>& files,
                   uint64_t documents, DocumentTable& docs) {
    docs.clear();
    docs.reserve(static_cast<std::size_t>(datasetDocuments(db, datasetId)));
    appendDocuments(db, datasetId, files, 0, documents, docs, 0);
    if (docs.size() != documents)
        throw StoreError("project store: dataset " + std::to_string(datasetId) +
                         " is damaged: document #" + std::to_string(docs.size()) + " is missing");
}

void loadDocumentRange(const sql::Database& db, int64_t datasetId,
                       const std::vector<InputFile>& files, uint64_t first, uint64_t end,
                       DocumentTable& part) {
    part.clear();
    part.reserve(static_cast<std::size_t>(end - first));
    appendDocuments(db, datasetId, files, first, end, part, 0);
    if (part.size() != end - first)
        throw StoreError("project store: dataset " + std::to_string(datasetId) +
                         " is damaged: document #" + std::to_string(first + part.size()) +
                         " is missing");
}

DocumentTable loadKeepInputs(const sql::Database& db, int64_t datasetId, std::size_t n) {
    DocumentTable docs;
    docs.file.assign(n, 0);
    docs.chars.assign(n, 0);
    docs.keepValue.assign(n, std::numeric_limits<double>::quiet_NaN());
    // The dataset's own rows, then its base's for the documents it shares (a dataset stores
    // rows only from its base's count on), and so on down the chain.
    uint64_t limit = n;
    std::optional<int64_t> dataset = datasetId;
    for (int depth = 0; dataset && limit > 0; ++depth) {
        if (depth > kMaxBaseDepth)
            throw StoreError("project store: dataset " + std::to_string(datasetId) +
                             " is damaged: its chain of base datasets is too long");
        auto st = db.prepare(
            "SELECT doc_index, chars, keep_value FROM documents WHERE dataset_id = ?1 AND "
            "doc_index < ?2");
        st.bind(1, *dataset).bindU64(2, limit);
        while (st.step()) {
            const uint64_t i = st.u64(0);
            docs.chars[i] = st.u32(1);
            if (!st.isNull(2)) docs.keepValue[i] = st.real(2);
        }
        const std::optional<DatasetBase> base = datasetBase(db, *dataset);
        if (!base) break;
        dataset = base->dataset;
        limit = std::min(limit, base->documents);
    }
    return docs;
}

// ---- dataset_rejections, rejection_samples ------------------------------------------------

namespace {

// dataset_rejections' columns after its key (dataset_id, ordinal), and a count's fields in their
// order.
constexpr const char* kRejectionColumns = "reason, count, first_file, first_line";

template <typename Count>
auto rejectionFields(Count& r) {
    return std::tie(r.reason, r.count, r.firstFile, r.firstLine);
}

// rejection_samples' columns after its key and reason (stored by name), and a sample's fields.
constexpr const char* kSampleColumns = "file_index, line, detail";

template <typename Sample>
auto sampleFields(Sample& r) {
    return std::tie(r.file, r.line, r.detail);
}

}  // namespace

void insertRejections(sql::Database& db, int64_t datasetId,
                      const std::vector<RejectionCount>& rejections) {
    sql::insertOrdered(db, "dataset_rejections", "dataset_id", datasetId, kRejectionColumns,
                       rejections, [](const RejectionCount& r) { return rejectionFields(r); });
}

std::vector<RejectionCount> loadRejections(const sql::Database& db, int64_t datasetId) {
    auto st =
        sql::selectOrdered(db, "dataset_rejections", "dataset_id", datasetId, kRejectionColumns);
    std::vector<RejectionCount> out;
    while (st.step()) {
        RejectionCount r;
        sql::readFields(st, 0, rejectionFields(r));
        out.push_back(std::move(r));
    }
    return out;
}

void insertRejectionSamples(sql::Database& db, int64_t datasetId,
                            const std::vector<Rejection>& samples) {
    sql::insertOrdered(db, "rejection_samples", "dataset_id", datasetId,
                       std::string("reason, ") + kSampleColumns, samples, [](const Rejection& r) {
                           return std::tuple_cat(
                               std::make_tuple(std::string_view(toString(r.reason))),
                               sampleFields(r));
                       });
}

std::vector<Rejection> loadRejectionSamples(const sql::Database& db, int64_t datasetId) {
    auto st = sql::selectOrdered(db, "rejection_samples", "dataset_id", datasetId,
                                 std::string("reason, ") + kSampleColumns);
    std::vector<Rejection> out;
    while (st.step()) {
        Rejection r;
        const std::string_view reason = st.text(0);
        bool known = false;
        for (int k = 0; k < kRejectReasonCount && !known; ++k) {
            if (reason == toString(static_cast<RejectReason>(k))) {
                r.reason = static_cast<RejectReason>(k);
                known = true;
            }
        }
        if (!known)
            throw StoreError("project store: unknown rejection reason '" + std::string(reason) +
                             "'");
        sql::readFields(st, 1, sampleFields(r));
        out.push_back(std::move(r));
    }
    return out;
}

}  // namespace neardup::store_rows
