// The clusters CSV beside the report (cluster_csv.h): each member described as the clusters
// list of `neardup export` describes it (list_outputs.h), with the decisions naming it.
#include "cluster_csv.h"

#include <charconv>
#include <map>

#include "atomic_file.h"
#include "list_outputs.h"

namespace neardup::report {

namespace {

// The shortest digits that read back as `v` (0.8f as 0.8, 0.75 as 0.75).
template <typename T>
std::string shortest(T v) {
    char buf[32];
    const auto end = std::to_chars(buf, buf + sizeof buf, v).ptr;
    return std::string(buf, end);
}

// The "decision" field of every document some decision names.
std::map<uint32_t, std::string> decisionFields(const std::vector<Decision>& decisions,
                                               const DocumentTable& docs) {
    std::map<uint32_t, std::string> fields;
    auto add = [&](uint32_t doc, const std::string& text) {
        if (doc >= docs.size()) return;
        std::string& field = fields[doc];
        if (!field.empty()) field += "; ";
        field += text;
    };
    for (const Decision& d : decisions) {
        if (isPairDecision(d.kind)) {
            add(d.a, std::string(toString(d.kind)) + " with " +
                         (d.b < docs.size() ? std::string(docs.id(d.b)) : std::string()));
            add(d.b, std::string(toString(d.kind)) + " with " +
                         (d.a < docs.size() ? std::string(docs.id(d.a)) : std::string()));
        } else {
            add(d.a, toString(d.kind));
        }
    }
    return fields;
}

}  // namespace

std::string csvField(std::string_view field, CsvCells cells) {
    std::string guarded;
    if (cells == CsvCells::Guarded && !field.empty() &&
        std::string_view("=+-@\t\r").find(field.front()) != std::string_view::npos) {
        guarded = '\'';
        guarded += field;
        field = guarded;
    }
    if (field.find_first_of(",\"\r\n") == std::string_view::npos) return std::string(field);
    std::string quoted = "\"";
    for (const char c : field) {
        if (c == '"') quoted += '"';
        quoted += c;
    }
    quoted += '"';
    return quoted;
}

CsvWritten writeClustersCsv(const RunResult& run, const DocumentTable& docs,
                            const std::vector<Decision>& decisions, AtomicFile& out,
                            CsvCells cells) {
    const std::map<uint32_t, std::string> decided = decisionFields(decisions, docs);
    const std::vector<std::vector<uint32_t>> members = clusterMembers(run);
    CsvWritten written;
    std::string buffer(kClustersCsvHeader);
    buffer += "\r\n";
    for (std::size_t c = 0; c < members.size(); ++c) {
        const std::string cluster = std::to_string(c) + ',' + std::to_string(members[c].size());
        for (const uint32_t d : members[c]) {
            const ClusterMemberRecord m = describeClusterMember(run, c, d);
            buffer += cluster;
            buffer += ',';
            buffer += csvField(docs.id(d), cells);
            buffer += m.representative ? ",1," : ",0,";
            buffer += run.reference(d) ? "reference," : m.kept ? "kept," : "removed,";
            if (m.witnessKnown) {
                buffer += csvField(docs.id(m.witness), cells);
                buffer += ',';
                buffer += shortest(m.jaccard);
                buffer += ',';
                if (m.exact) buffer += shortest(m.exactAsStored);
            } else {
                buffer += ",,";
            }
            buffer += ',';
            if (const auto found = decided.find(d); found != decided.end())
                buffer += csvField(found->second, cells);
            buffer += "\r\n";
            ++written.rows;
            if (buffer.size() >= (1u << 20)) {  // written as it grows, not held whole
                out.write(buffer);
                written.bytes += buffer.size();
                buffer.clear();
            }
        }
    }
    out.write(buffer);
    written.bytes += buffer.size();
    return written;
}

}  // namespace neardup::report
