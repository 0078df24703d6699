#include "store_rows.h"

#include <filesystem>
#include <iterator>

namespace neardup::store_rows {

InputFile readFile(const sql::Statement& st, const std::string& projectPath) {
    InputFile f;
    f.path = st.string(0);
    if (!f.path.empty() && f.path.front() != '/' && !projectPath.empty() &&
        projectPath != ":memory:") {
        std::error_code ec;
        const std::filesystem::path dir = std::filesystem::absolute(projectPath, ec).parent_path();
        if (!ec) f.path = (dir / f.path).lexically_normal().string();
    }
    f.size = st.u64(1);
    f.mtimeNs = st.int64(2);
    f.compression = enumFromName(
        {InputFile::Compression::None, InputFile::Compression::Gzip, InputFile::Compression::Zstd},
        st.text(3), "compression");
    f.ctimeNs = st.isNull(4) ? 0 : st.int64(4);
    f.device = st.isNull(5) ? 0 : st.u64(5);
    f.inode = st.isNull(6) ? 0 : st.u64(6);
    f.fingerprinted = !st.isNull(7) && !st.isNull(8);
    f.contentBytes = f.fingerprinted ? st.u64(7) : 0;
    f.fingerprint = f.fingerprinted ? st.u64(8) : 0;
    return f;
}

namespace {

using sql::Statement;

// Columns of `runs` after `id`, in the order writeRun() binds and readRun() reads them.
constexpr const char* kColumns[] = {
    "dataset_id",
    "started_at",
    "finished_at",
    "status",
    "error",
    "backend",
    "threads",
    "params_json",
    "signature_key",
    "text_field",
    "id_field",
    "keep_field",
    "chunk_bytes",
    "nfc",
    "lowercase",
    "collapse_whitespace",
    "trim",
    "shingle",
    "ngram",
    "hashes",
    "hash_family",
    "sketch",
    "seed",
    "bands",
    "rows",
    "bucket_key",
    "buckets",
    "lsh_buckets",
    "resolved_buckets",
    "threshold",
    "store_floor",
    "verify",
    "keep_policy",
    "requested_threads",
    "requested_backend",
    "signatures_reused",
    "pairs_reused",
    "lines_read",
    "blank_lines",
    "rejected",
    "documents",
    "short_documents",
    "input_bytes",
    "candidate_pairs",
    "stored_pairs",
    "duplicate_pairs",
    "clusters",
    "kept",
    "removed",
    "memory_budget",
    "spilled",
    "spill_bytes",
    "peak_rss_bytes",
    "decide",
    "chained_removals",
};
constexpr int kColumnCount = static_cast<int>(std::size(kColumns));
// selectRunSql() puts `id` first, hence the shift by one.
static_assert(std::string_view(kColumns[kParamsJsonColumn - 1]) == "params_json");

std::string keepPolicyText(const RunParams& p) {
    std::string s = toString(p.keep);
    if (p.keep == KeepPolicy::MaxField) s += ":" + p.reader.keepField;
    return s;
}

template <typename E>
E parsed(std::optional<E> v, std::string_view text, const char* what) {
    if (!v)
        throw StoreError("project store: unknown " + std::string(what) + " '" + std::string(text) +
                         "'");
    return *v;
}

}  // namespace

std::string insertRunSql() {
    std::string cols, params;
    for (int i = 0; i < kColumnCount; ++i) {
        if (i > 0) {
            cols += ", ";
            params += ", ";
        }
        cols += kColumns[i];
        params += '?';
        params += std::to_string(i + 1);
    }
    return "INSERT INTO runs(" + cols + ") VALUES(" + params + ")";
}

std::string updateRunSql() {
    std::string sets;
    for (int i = 0; i < kColumnCount; ++i) {
        if (i > 0) sets += ", ";
        sets += std::string(kColumns[i]) + " = ?" + std::to_string(i + 1);
    }
    return "UPDATE runs SET " + sets + " WHERE id = ?" + std::to_string(kColumnCount + 1);
}

int updateRunIdParameter() {
    return kColumnCount + 1;
}

std::string selectRunSql(const std::string& where) {
    std::string cols = "id";
    for (const char* c : kColumns)
        cols += std::string(", ") + c;
    return "SELECT " + cols + " FROM runs " + where;
}

void writeRun(Statement& st, const RunResult& r) {
    const RunParams& p = r.params;
    const std::string signatureKey = signatureCacheKey(p.signature, p.reader);
    const std::string paramsJson = toJson(p);
    const std::string buckets = bucketsToString(p.lsh.bucketMode, p.lsh.buckets);
    const std::string keep = keepPolicyText(p);
    int i = 1;
    st.bind(i++, int64_t{r.datasetId});
    st.bind(i++, std::string_view(r.startedAt));
    if (r.finishedAt.empty()) {
        st.bindNull(i++);
    } else {
        st.bind(i++, std::string_view(r.finishedAt));
    }
    st.bind(i++, std::string_view(r.status));
    st.bind(i++, std::string_view(r.error));
    st.bind(i++, std::string_view(r.backend));
    st.bind(i++, int64_t{r.threads});
    st.bind(i++, std::string_view(paramsJson));
    st.bind(i++, std::string_view(signatureKey));
    st.bind(i++, std::string_view(p.reader.textField));
    st.bind(i++, std::string_view(p.reader.idField));
    st.bind(i++, std::string_view(p.reader.keepField));
    st.bindU64(i++, p.reader.chunkBytes);
    st.bindBool(i++, p.signature.normalize.nfc);
    st.bindBool(i++, p.signature.normalize.lowercase);
    st.bindBool(i++, p.signature.normalize.collapseWhitespace);
    st.bindBool(i++, p.signature.normalize.trim);
    st.bind(i++, std::string_view(toString(p.signature.shingle)));
    st.bind(i++, int64_t{p.signature.ngram});
    st.bind(i++, int64_t{p.signature.hashes});
    st.bind(i++, std::string_view(toString(p.signature.family)));
    st.bind(i++, std::string_view(toString(p.signature.sketch)));
    st.bindU64(i++, p.signature.seed);
    st.bind(i++, int64_t{p.lsh.bands});
    st.bind(i++, int64_t{p.lsh.rows});
    st.bind(i++, std::string_view(toString(p.lsh.scheme)));
    st.bind(i++, std::string_view(buckets));
    st.bindU64(i++, p.lsh.buckets);
    st.bindU64(i++, r.resolvedBuckets);
    st.bind(i++, p.compare.threshold);
    st.bind(i++, p.compare.storeFloor);
    st.bindInt(i++, static_cast<int>(p.compare.verify));
    st.bind(i++, std::string_view(keep));
    st.bind(i++, int64_t{p.threads});
    st.bind(i++, std::string_view(p.backend));
    st.bindBool(i++, r.signaturesReused);
    st.bindBool(i++, r.pairsReused);
    const RunCounts& c = r.counts;
    for (uint64_t v :
         {c.linesRead, c.blankLines, c.rejected, c.documents, c.shortDocuments, c.inputBytes,
          c.candidatePairs, c.storedPairs, c.duplicatePairs, c.clusters, c.kept, c.removed})
        st.bindU64(i++, v);
    st.bindU64(i++, r.memoryBudget);
    st.bindBool(i++, r.spilled);
    st.bindU64(i++, r.spillBytes);
    st.bindU64(i++, r.peakRssBytes);
    st.bind(i++, std::string_view(toString(p.decide)));
    st.bindU64(i++, c.chainedRemovals);
    st.run();
}

void readRun(const Statement& st, RunResult& r) {
    RunParams& p = r.params;
    int i = 0;
    r.runId = st.int64(i++);
    r.datasetId = st.int64(i++);
    r.startedAt = st.string(i++);
    r.finishedAt = st.string(i++);  // NULL reads as ""
    r.status = st.string(i++);
    r.error = st.string(i++);
    r.backend = st.string(i++);
    r.threads = static_cast<int>(st.int64(i++));
    i += 2;  // params_json, signature_key: derived from the columns below
    p.reader.textField = st.string(i++);
    p.reader.idField = st.string(i++);
    p.reader.keepField = st.string(i++);
    p.reader.chunkBytes = static_cast<std::size_t>(st.u64(i++));
    p.signature.normalize.nfc = st.int64(i++) != 0;
    p.signature.normalize.lowercase = st.int64(i++) != 0;
    p.signature.normalize.collapseWhitespace = st.int64(i++) != 0;
    p.signature.normalize.trim = st.int64(i++) != 0;
    const std::string shingle = st.string(i++);
    p.signature.shingle = parsed(parseShingleKind(shingle), shingle, "shingle kind");
    p.signature.ngram = static_cast<int>(st.int64(i++));
    p.signature.hashes = static_cast<int>(st.int64(i++));
    const std::string family = st.string(i++);
    p.signature.family = parsed(parseHashFamily(family), family, "hash family");
    const std::string sketch = st.string(i++);
    p.signature.sketch = parsed(parseSketchKind(sketch), sketch, "sketch kind");
    p.signature.seed = st.u64(i++);
    p.lsh.bands = static_cast<int>(st.int64(i++));
    p.lsh.rows = static_cast<int>(st.int64(i++));
    const std::string scheme = st.string(i++);
    p.lsh.scheme = parsed(parseBandKeyScheme(scheme), scheme, "bucket key scheme");
    const std::string buckets = st.string(i++);
    uint64_t parsedBuckets = 0;
    if (!parseBuckets(buckets, p.lsh.bucketMode, parsedBuckets))
        throw StoreError("project store: invalid buckets '" + buckets + "'");
    p.lsh.buckets = st.u64(i++);  // also holds a resolved K for the non-fixed modes
    r.resolvedBuckets = st.u64(i++);
    p.compare.threshold = st.real(i++);
    p.compare.storeFloor = st.real(i++);
    p.compare.verify = static_cast<VerifyMode>(st.int64(i++));
    // "max:FIELD" names the field for readers of the table; the field itself is keep_field.
    const std::string_view keep = st.text(i++);
    p.keep = enumFromName({KeepPolicy::First, KeepPolicy::Longest, KeepPolicy::MaxField},
                          keep.substr(0, keep.find(':')), "keep policy");
    p.threads = static_cast<int>(st.int64(i++));
    p.backend = st.string(i++);
    r.signaturesReused = st.int64(i++) != 0;
    r.pairsReused = st.int64(i++) != 0;
    RunCounts& c = r.counts;
    for (uint64_t* v :
         {&c.linesRead, &c.blankLines, &c.rejected, &c.documents, &c.shortDocuments, &c.inputBytes,
          &c.candidatePairs, &c.storedPairs, &c.duplicatePairs, &c.clusters, &c.kept, &c.removed})
        *v = st.u64(i++);
    r.memoryBudget = st.u64(i++);
    r.spilled = st.int64(i++) != 0;
    r.spillBytes = st.u64(i++);
    r.peakRssBytes = st.u64(i++);
    const std::string decide = st.string(i++);
    p.decide = parsed(parseDecideRule(decide), decide, "decide rule");
    c.chainedRemovals = st.u64(i++);
}

}  // namespace neardup::store_rows
