// The `runs` table's row mapper (run_rows.h): the column list, its writer and its decoder.
#include "run_rows.h"

#include <iterator>

namespace neardup::store_rows {

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
    "reference_documents",
    "removed_by_reference",
};
constexpr int kColumnCount = static_cast<int>(std::size(kColumns));

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
    st.bindU64(i++, c.referenceDocuments);
    st.bindU64(i++, c.removedByReference);
    st.run();
}

RunRow readRun(const Statement& st) {
    const sql::Row row(st);
    RunRow out;
    RunResult& r = out.run;
    RunParams& p = r.params;
    r.runId = row.int64("id");
    r.datasetId = row.int64("dataset_id");
    r.startedAt = row.string("started_at");
    r.finishedAt = row.string("finished_at");  // NULL reads as ""
    r.status = row.string("status");
    r.error = row.string("error");
    r.backend = row.string("backend");
    r.threads = row.i32("threads");
    // params_json and signature_key are derived from the columns below when written; they
    // are kept as stored (an older version may have derived them differently).
    out.paramsJson = row.string("params_json");
    out.signatureKey = row.string("signature_key");
    p.reader.textField = row.string("text_field");
    p.reader.idField = row.string("id_field");
    p.reader.keepField = row.string("keep_field");
    p.reader.chunkBytes = static_cast<std::size_t>(row.u64("chunk_bytes"));
    p.signature.normalize.nfc = row.flag("nfc");
    p.signature.normalize.lowercase = row.flag("lowercase");
    p.signature.normalize.collapseWhitespace = row.flag("collapse_whitespace");
    p.signature.normalize.trim = row.flag("trim");
    const std::string shingle = row.string("shingle");
    p.signature.shingle = parsed(parseShingleKind(shingle), shingle, "shingle kind");
    p.signature.ngram = row.i32("ngram");
    p.signature.hashes = row.i32("hashes");
    const std::string family = row.string("hash_family");
    p.signature.family = parsed(parseHashFamily(family), family, "hash family");
    const std::string sketch = row.string("sketch");
    p.signature.sketch = parsed(parseSketchKind(sketch), sketch, "sketch kind");
    p.signature.seed = row.u64("seed");
    p.lsh.bands = row.i32("bands");
    p.lsh.rows = row.i32("rows");
    const std::string scheme = row.string("bucket_key");
    p.lsh.scheme = parsed(parseBandKeyScheme(scheme), scheme, "bucket key scheme");
    const std::string buckets = row.string("buckets");
    uint64_t parsedBuckets = 0;
    if (!parseBuckets(buckets, p.lsh.bucketMode, parsedBuckets))
        throw StoreError("project store: invalid buckets '" + buckets + "'");
    p.lsh.buckets = row.u64("lsh_buckets");  // also holds a resolved K for the non-fixed modes
    r.resolvedBuckets = row.u64("resolved_buckets");
    p.compare.threshold = row.real("threshold");
    p.compare.storeFloor = row.real("store_floor");
    p.compare.verify = static_cast<VerifyMode>(row.int64("verify"));
    // "max:FIELD" names the field for readers of the table; the field itself is keep_field.
    const std::string_view keep = row.text("keep_policy");
    p.keep = enumFromName({KeepPolicy::First, KeepPolicy::Longest, KeepPolicy::MaxField},
                          keep.substr(0, keep.find(':')), "keep policy");
    p.threads = row.i32("requested_threads");
    p.backend = row.string("requested_backend");
    r.signaturesReused = row.flag("signatures_reused");
    r.pairsReused = row.flag("pairs_reused");
    RunCounts& c = r.counts;
    c.linesRead = row.u64("lines_read");
    c.blankLines = row.u64("blank_lines");
    c.rejected = row.u64("rejected");
    c.documents = row.u64("documents");
    c.shortDocuments = row.u64("short_documents");
    c.inputBytes = row.u64("input_bytes");
    c.candidatePairs = row.u64("candidate_pairs");
    c.storedPairs = row.u64("stored_pairs");
    c.duplicatePairs = row.u64("duplicate_pairs");
    c.clusters = row.u64("clusters");
    c.kept = row.u64("kept");
    c.removed = row.u64("removed");
    r.memoryBudget = row.u64("memory_budget");
    r.spilled = row.flag("spilled");
    r.spillBytes = row.u64("spill_bytes");
    r.peakRssBytes = row.u64("peak_rss_bytes");
    const std::string decide = row.string("decide");
    p.decide = parsed(parseDecideRule(decide), decide, "decide rule");
    c.chainedRemovals = row.u64("chained_removals");
    c.referenceDocuments = row.u64("reference_documents");
    c.removedByReference = row.u64("removed_by_reference");
    return out;
}

}  // namespace neardup::store_rows
