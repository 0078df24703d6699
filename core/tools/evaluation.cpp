// Accuracy of predicted clusters against exact ground truth.
#include "evaluation.h"

#include <simdjson.h>

#include <fstream>
#include <stdexcept>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include "json_text.h"

namespace neardup {

std::vector<ClusterMember> readClusters(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::runtime_error(path + ": cannot open file");
    simdjson::dom::parser parser;
    std::vector<ClusterMember> out;
    std::string line;
    uint64_t lineNo = 0;
    const auto fail = [&](const std::string& what) {
        throw std::runtime_error(path + ":" + std::to_string(lineNo) + ": " + what);
    };
    while (std::getline(in, line)) {
        ++lineNo;
        if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
        simdjson::dom::element root;
        if (const auto err = parser.parse(line).get(root); err != simdjson::SUCCESS)
            fail(std::string("invalid JSON: ") + simdjson::error_message(err));
        simdjson::dom::object obj;
        if (root.get_object().get(obj) != simdjson::SUCCESS) fail("expected a JSON object");

        ClusterMember m;
        simdjson::dom::element id;
        if (obj["id"].get(id) != simdjson::SUCCESS) fail("missing \"id\"");
        std::string_view sv;
        int64_t i64 = 0;
        uint64_t u64 = 0;
        if (id.get_string().get(sv) == simdjson::SUCCESS) {
            m.id = sv;
        } else if (id.get_int64().get(i64) == simdjson::SUCCESS) {
            m.id = std::to_string(i64);
        } else if (id.get_uint64().get(u64) == simdjson::SUCCESS) {
            m.id = std::to_string(u64);
        } else {
            fail("\"id\" must be a string or an integer");
        }

        simdjson::dom::element cluster;
        if (obj["cluster"].get(cluster) != simdjson::SUCCESS) fail("missing \"cluster\"");
        if (cluster.get_uint64().get(m.cluster) != simdjson::SUCCESS)
            fail("\"cluster\" must be a non-negative integer");

        simdjson::dom::element rep;
        if (obj["representative"].get(rep) == simdjson::SUCCESS &&
            rep.get_bool().get(m.representative) != simdjson::SUCCESS)
            fail("\"representative\" must be true or false");
        out.push_back(std::move(m));
    }
    return out;
}

EvalResult evaluate(const GroundTruth& truth, const std::vector<ClusterMember>& clusters,
                    double threshold) {
    EvalResult r;
    r.threshold = threshold;

    // Each id counts once (its first line), so a repeated line cannot inflate a cluster.
    std::unordered_map<std::string_view, uint64_t> clusterOf;
    std::unordered_map<uint64_t, uint64_t> clusterSize;
    clusterOf.reserve(clusters.size());
    for (const auto& m : clusters) {
        if (clusterOf.emplace(m.id, m.cluster).second) ++clusterSize[m.cluster];
    }
    const auto predictedCluster = [&](std::string_view id) -> const uint64_t* {
        const auto it = clusterOf.find(id);
        if (it == clusterOf.end() || clusterSize[it->second] < 2) return nullptr;
        return &it->second;
    };

    std::unordered_set<std::string_view> truthDocs;
    for (const auto& p : truth.pairs) {
        if (p.jaccard < threshold || p.a == p.b) continue;
        truthDocs.insert(p.a);
        truthDocs.insert(p.b);
        ++r.truthPairs;
        const uint64_t* ca = predictedCluster(p.a);
        const uint64_t* cb = predictedCluster(p.b);
        if (ca && cb && *ca == *cb) ++r.commonPairs;
    }

    for (const auto& [id, cluster] : clusterOf) {
        if (clusterSize[cluster] >= 2) ++r.predictedDocuments;
    }
    for (const auto& [cluster, size] : clusterSize)
        r.predictedPairs += size * (size - 1) / 2;
    r.truthDocuments = truthDocs.size();
    for (const auto id : truthDocs) {
        if (predictedCluster(id)) ++r.commonDocuments;
    }

    const auto ratio = [](uint64_t num, uint64_t den) {
        return den == 0 ? 1.0 : static_cast<double>(num) / static_cast<double>(den);
    };
    r.documentJaccard =
        ratio(r.commonDocuments, r.truthDocuments + r.predictedDocuments - r.commonDocuments);
    r.documentPrecision = ratio(r.commonDocuments, r.predictedDocuments);
    r.documentRecall = ratio(r.commonDocuments, r.truthDocuments);
    r.pairPrecision = ratio(r.commonPairs, r.predictedPairs);
    r.pairRecall = ratio(r.commonPairs, r.truthPairs);
    return r;
}

std::string toJson(const EvalResult& r) {
    std::string s = "{\"threshold\":";
    json::appendNumber(s, r.threshold);
    const auto count = [&s](const char* key, uint64_t v) {
        s += ",\"";
        s += key;
        s += "\":" + std::to_string(v);
    };
    const auto real = [&s](const char* key, double v) {
        s += ",\"";
        s += key;
        s += "\":";
        json::appendNumber(s, v);
    };
    count("truth_documents", r.truthDocuments);
    count("predicted_documents", r.predictedDocuments);
    count("common_documents", r.commonDocuments);
    real("document_jaccard", r.documentJaccard);
    real("document_precision", r.documentPrecision);
    real("document_recall", r.documentRecall);
    count("truth_pairs", r.truthPairs);
    count("predicted_pairs", r.predictedPairs);
    count("common_pairs", r.commonPairs);
    real("pair_precision", r.pairPrecision);
    real("pair_recall", r.pairRecall);
    s += '}';
    return s;
}

}  // namespace neardup
