// The row mappers of a dataset's tables: `datasets`, `dataset_files` (inputs and their pins),
// `documents`, `dataset_rejections` and `rejection_samples`. The store writes and reads
// datasets through them, relocation re-points files with them, and the workbench's queries
// decode files with the same readFile().
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "document_table.h"
#include "project_store.h"
#include "sqlite_handle.h"
#include "store_rows.h"

namespace neardup::store_rows {

// ---- datasets -----------------------------------------------------------------------------
// Inserts the dataset's row (reader options, counts, `documents`); returns its id.
int64_t insertDataset(sql::Database& db, const DatasetRecord& dataset, uint64_t documents);
// Fills id, reader and counts of `out` from the dataset's row and returns its document count;
// nothing when there is no such dataset.
std::optional<uint64_t> readDataset(const sql::Database& db, int64_t datasetId, DatasetRecord& out);
// Where a dataset's shared documents live (DatasetRecord::baseDataset): the first `documents`
// documents are `dataset`'s rows of the same doc_index.
struct DatasetBase {
    int64_t dataset = 0;
    uint64_t documents = 0;
};
// The longest chain of bases a dataset may stand on: a run shares the documents of its
// reference's dataset only when that one has no base itself, so 1 is all a run writes.
inline constexpr int kMaxBaseDepth = 1;
// Whether two stored files are the same content as pinned (size, compression, pin or legacy
// sum): the base's files and a dataset's first files, whatever path a relocation gave either.
bool sameContent(const InputFile& a, const InputFile& b);
// The base of `datasetId`, if it shares documents with one. StoreError naming the damage when the
// base is not what a run writes: an earlier dataset sharing nothing itself, of exactly the
// documents shared, whose files are the same content as this one's first files.
std::optional<DatasetBase> datasetBase(const sql::Database& db, int64_t datasetId);
// The SQL condition that row `alias` of `documents` is document `index` (an SQL expression) of
// dataset `dataset` (an SQL expression) whose base is `base`: its shared documents are the
// base's rows. The base's numbers are the store's own, checked by datasetBase.
std::string documentRowOf(std::string_view alias, std::string_view dataset, std::string_view index,
                          const std::optional<DatasetBase>& base);
// The dataset whose row holds document `docIndex` of `datasetId`: its base's for a shared one.
int64_t documentsDatasetOf(const sql::Database& db, int64_t datasetId, uint64_t docIndex);
// The dataset's document count, checked against its last document row (one index lookup),
// so that a damaged count cannot size an allocation.
uint64_t datasetDocuments(const sql::Database& db, int64_t datasetId);

// ---- dataset_files ------------------------------------------------------------------------
// Columns of a dataset_files row as readFile() reads them (all but the key).
inline constexpr const char* kFileColumns =
    "path, size, mtime_ns, compression, ctime_ns, device, inode, content_bytes, fingerprint, pin";
// The columns a project of schema versions 3 to 5 has (legacy fingerprints, no content pins).
inline constexpr const char* kSumPinnedFileColumns =
    "path, size, mtime_ns, compression, ctime_ns, device, inode, content_bytes, fingerprint";
// The columns a project of schema version < 3 has (no pins).
inline constexpr const char* kUnpinnedFileColumns = "path, size, mtime_ns, compression";
void insertFiles(sql::Database& db, int64_t datasetId, const std::vector<InputFile>& files);
// An input file (with its pin, input_pin.h) from a row holding kFileColumns (by name; missing
// pin columns read as no pin). A relative path (stored by versions before 0.2) is taken
// relative to the folder of `projectPath`; an empty `projectPath` keeps it as stored.
// Its pinKey is the project's (projectPinKey), which the caller fills in.
InputFile readFile(const sql::Statement& st, const std::string& projectPath);
// The project's content pin key (content_pin.h), kept in its meta table. Throws StoreError when
// the project has none (a damaged project: every project of schema version 6 has one).
PinKey projectPinKey(const sql::Database& db);
std::vector<InputFile> loadFiles(const sql::Database& db, int64_t datasetId,
                                 const std::string& projectPath);
// Every file of every dataset, paths as stored, by dataset and position.
std::vector<DatasetFile> loadAllFiles(const sql::Database& db);
// Writes the location and identity (path, mtime, ctime, device, inode) of each file back.
void updateFileLocations(sql::Database& db, const std::vector<DatasetFile>& files);

// ---- documents ----------------------------------------------------------------------------
// Inserts the documents of `docs` from index `firstOwn` on (those before are its base's,
// shared), calling `interruptCheck` (when set) every 4096 rows.
void insertDocuments(sql::Database& db, int64_t datasetId, const DocumentTable& docs,
                     std::size_t firstOwn, const std::function<void()>& interruptCheck);
// Reads the dataset's documents into `docs` (cleared first; shared ones from its base), each
// location checked against the pinned `files` before it can be used to read anything;
// `documents` is the count its row lists. StoreError naming the damage otherwise.
void loadDocuments(const sql::Database& db, int64_t datasetId, const std::vector<InputFile>& files,
                   uint64_t documents, DocumentTable& docs);

// Documents [first, end) of the dataset into `part` (cleared first), checked as loadDocuments
// checks them: what one of several connections loading a large dataset reads.
void loadDocumentRange(const sql::Database& db, int64_t datasetId,
                       const std::vector<InputFile>& files, uint64_t first, uint64_t end,
                       DocumentTable& part);

// What a keep policy reads of the first `n` documents: their lengths (chars) and keep values
// (NaN when none), into a table of `n` documents otherwise empty (file 0).
DocumentTable loadKeepInputs(const sql::Database& db, int64_t datasetId, std::size_t n);

// ---- dataset_rejections, rejection_samples ------------------------------------------------
void insertRejections(sql::Database& db, int64_t datasetId,
                      const std::vector<RejectionCount>& rejections);
std::vector<RejectionCount> loadRejections(const sql::Database& db, int64_t datasetId);
void insertRejectionSamples(sql::Database& db, int64_t datasetId,
                            const std::vector<Rejection>& samples);
std::vector<Rejection> loadRejectionSamples(const sql::Database& db, int64_t datasetId);

}  // namespace neardup::store_rows
