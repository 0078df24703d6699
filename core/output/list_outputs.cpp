// The id and cluster lists (list_outputs.h): what each record says is found once, then written
// as a JSON line or a Parquet row.
#include "list_outputs.h"

#include <charconv>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "clustering.h"
#include "export_ticker.h"
#include "json_text.h"
#include "output_file.h"
#include "parquet_file.h"

namespace neardup {

namespace {

using columnar::ParquetListWriter;

// A Parquet list writing through `out`, or none when `out` is not named .parquet.
std::unique_ptr<ParquetListWriter> parquetFor(OutputFile& out,
                                              std::vector<ParquetListWriter::Column> columns) {
    if (!columnar::isParquetName(out.path())) return nullptr;
    return std::make_unique<ParquetListWriter>(
        out.path(), std::move(columns), [&out](std::string_view bytes) { out.write(bytes); });
}

// The double whose shortest digits are the float's (0.8f as 0.8, not 0.800000011920929), so
// that the Parquet list reads as the JSON one.
double asDecimalDouble(float v) {
    char buf[32];
    const auto end = std::to_chars(buf, buf + sizeof buf, v).ptr;
    double d = v;
    std::from_chars(buf, end, d);
    return d;
}

}  // namespace

ClusterMemberRecord describeClusterMember(const RunResult& run, std::size_t c, uint32_t d) {
    ClusterMemberRecord m;
    m.representative = run.representative[c] == d;
    m.kept = !run.removed(d);
    const bool wholeKept = !run.keepAll.empty() && run.keepAll[c];
    if (m.representative && !wholeKept) return m;
    if (m.kept) {
        // Kept too: no kept duplicate vouches for its removal (witness rule), or the cluster is
        // kept whole by a "keep all" decision.
        m.listKept = true;
    } else if (const std::optional<ScoredPair> p = witnessPair(run, run.pairs, d)) {
        m.witnessKnown = true;
        m.witness = p->a == d ? p->b : p->a;
        m.witnessReference = run.reference(m.witness);
        m.jaccard = static_cast<double>(p->matches) / run.params.signature.hashes;
        if (p->exact >= 0.0f) m.exact = asDecimalDouble(p->exact);
        m.exactAsStored = p->exact;
    } else {
        // Removed by the components rule without a duplicate pair with the kept document: a
        // chained removal.
        m.chained = true;
    }
    return m;
}

std::vector<std::vector<uint32_t>> clusterMembers(const RunResult& run) {
    std::vector<std::vector<uint32_t>> members(run.representative.size());
    for (std::size_t i = 0; i < run.clusterOf.size(); ++i)
        if (run.clusterOf[i] != RunResult::kNoCluster)
            members[run.clusterOf[i]].push_back(static_cast<uint32_t>(i));
    return members;
}

void writeIdList(const RunResult& run, const DocumentTable& docs, bool kept, OutputFile& out,
                 ExportTicker& ticker) {
    std::unique_ptr<ParquetListWriter> parquet =
        parquetFor(out, {{"id", ParquetListWriter::Type::String, false}});
    for (std::size_t i = 0; i < docs.size(); ++i) {
        if (run.removed(i) != kept && !run.reference(i)) {
            if (parquet) {
                parquet->addString(docs.id(i));
                parquet->endRow();
            } else {
                out.write(docs.id(i));
                out.write("\n");
            }
        }
        ticker.advance(1);
    }
    if (parquet) parquet->close();
}

void writeClusterList(const RunResult& run, const DocumentTable& docs, OutputFile& out,
                      ExportTicker& ticker) {
    using T = ParquetListWriter::Type;
    // A run against a reference lists its new documents only; a removal the reference
    // witnessed says so ("witness_reference": true; a column of its own in Parquet, present only
    // in such runs, so that other runs' lists keep their schema).
    const bool againstReference = run.counts.referenceDocuments > 0;
    std::vector<ParquetListWriter::Column> columns = {
        {"id", T::String, false},  {"cluster", T::Int64, false}, {"representative", T::Bool, false},
        {"kept", T::Bool, false},  {"witness", T::String, true}, {"jaccard", T::Double, true},
        {"exact", T::Double, true}};
    if (againstReference) columns.push_back({"witness_reference", T::Bool, true});
    std::unique_ptr<ParquetListWriter> parquet = parquetFor(out, std::move(columns));
    const std::size_t n = docs.size();
    const std::vector<std::vector<uint32_t>> members = clusterMembers(run);
    std::string line;
    uint64_t outside = n;  // documents in no cluster count as done at the end
    for (std::size_t c = 0; c < members.size(); ++c) {
        for (const uint32_t d : members[c]) {
            if (run.reference(d)) continue;
            const ClusterMemberRecord m = describeClusterMember(run, c, d);
            if (parquet) {
                parquet->addString(docs.id(d));
                parquet->addInt64(static_cast<int64_t>(c));
                parquet->addBool(m.representative);
                parquet->addBool(m.kept);
                if (m.witnessKnown) {
                    parquet->addString(docs.id(m.witness));
                    parquet->addDouble(m.jaccard);
                } else {
                    parquet->addNull();
                    parquet->addNull();
                }
                if (m.exact) {
                    parquet->addDouble(*m.exact);
                } else {
                    parquet->addNull();
                }
                if (againstReference) {
                    if (m.witnessKnown)
                        parquet->addBool(m.witnessReference);
                    else
                        parquet->addNull();
                }
                parquet->endRow();
                continue;
            }
            line = "{\"id\":" + json::quote(docs.id(d)) + ",\"cluster\":" + std::to_string(c) +
                   ",\"representative\":" + (m.representative ? "true" : "false");
            if (m.listKept) {
                line += ",\"kept\":true";
            } else if (m.witnessKnown) {
                line += ",\"witness\":" + json::quote(docs.id(m.witness)) + ",\"jaccard\":";
                json::appendNumber(line, m.jaccard);
                if (m.exact) {
                    line += ",\"exact\":";
                    json::appendNumber(line, m.exactAsStored);
                }
                if (m.witnessReference) line += ",\"witness_reference\":true";
            } else if (m.chained) {
                line += ",\"witness\":null";
            }
            line += "}\n";
            out.write(line);
        }
        ticker.advance(members[c].size());
        outside -= members[c].size();
    }
    ticker.advance(outside);
    if (parquet) parquet->close();
}

}  // namespace neardup
