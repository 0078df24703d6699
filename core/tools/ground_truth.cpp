// Ground truth file: {"documents":N,"shingle":"char","ngram":5,"normalize":{...},"floor":0.5,
// "pairs":[{"a":..,"b":..,"jaccard":..,"kind":..},...]}, one pair per line.
#include <simdjson.h>

#include <stdexcept>
#include <string_view>

#include "corpus_generator.h"
#include "json_text.h"

namespace neardup {

void writeTruth(const GroundTruth& truth, std::ostream& out) {
    const auto& n = truth.normalize;
    const auto boolean = [](bool b) { return b ? "true" : "false"; };
    std::string s;
    s += "{\"documents\":" + std::to_string(truth.documents);
    s += ",\"shingle\":\"";
    s += toString(truth.shingle);
    s += "\",\"ngram\":" + std::to_string(truth.ngram);
    s += ",\"normalize\":{\"nfc\":";
    s += boolean(n.nfc);
    s += ",\"lowercase\":";
    s += boolean(n.lowercase);
    s += ",\"collapse_whitespace\":";
    s += boolean(n.collapseWhitespace);
    s += ",\"trim\":";
    s += boolean(n.trim);
    s += "},\"floor\":";
    json::appendNumber(s, truth.floor);
    s += ",\"pairs\":[";
    out.write(s.data(), static_cast<std::streamsize>(s.size()));
    for (std::size_t i = 0; i < truth.pairs.size(); ++i) {
        const TruthPair& p = truth.pairs[i];
        s.clear();
        s += i ? ",\n" : "\n";
        s += "{\"a\":";
        json::appendString(s, p.a);
        s += ",\"b\":";
        json::appendString(s, p.b);
        s += ",\"jaccard\":";
        json::appendNumber(s, p.jaccard);
        s += ",\"kind\":";
        json::appendString(s, p.kind);
        s += '}';
        out.write(s.data(), static_cast<std::streamsize>(s.size()));
    }
    out << "\n]}\n";
}

namespace {

[[noreturn]] void fail(const std::string& path, const std::string& what) {
    throw std::runtime_error(path + ": " + what);
}

std::string idOf(simdjson::dom::element e, const std::string& path, const char* field,
                 std::size_t pair) {
    std::string_view sv;
    if (e.get_string().get(sv) == simdjson::SUCCESS) return std::string(sv);
    int64_t i = 0;
    if (e.get_int64().get(i) == simdjson::SUCCESS) return std::to_string(i);
    uint64_t u = 0;
    if (e.get_uint64().get(u) == simdjson::SUCCESS) return std::to_string(u);
    fail(path, "pairs[" + std::to_string(pair) + "]." + field + " must be a string or an integer");
}

}  // namespace

GroundTruth readTruth(const std::string& path) {
    simdjson::padded_string json;
    if (simdjson::padded_string::load(path).get(json) != simdjson::SUCCESS)
        fail(path, "cannot read file");
    simdjson::dom::parser parser;
    simdjson::dom::element root;
    if (const auto err = parser.parse(json).get(root); err != simdjson::SUCCESS)
        fail(path, std::string("invalid JSON: ") + simdjson::error_message(err));
    simdjson::dom::object obj;
    if (root.get_object().get(obj) != simdjson::SUCCESS) fail(path, "expected a JSON object");

    GroundTruth t;
    uint64_t documents = 0;
    if (obj["documents"].get_uint64().get(documents) != simdjson::SUCCESS)
        fail(path, "\"documents\" must be a non-negative integer");
    t.documents = documents;

    std::string_view shingle;
    if (obj["shingle"].get_string().get(shingle) != simdjson::SUCCESS)
        fail(path, "\"shingle\" must be a string");
    const auto kind = parseShingleKind(std::string(shingle));
    if (!kind) fail(path, "\"shingle\" must be \"char\" or \"word\"");
    t.shingle = *kind;

    int64_t ngram = 0;
    if (obj["ngram"].get_int64().get(ngram) != simdjson::SUCCESS || ngram < 1 || ngram > 64)
        fail(path, "\"ngram\" must be an integer between 1 and 64");
    t.ngram = static_cast<int>(ngram);

    simdjson::dom::object norm;
    if (obj["normalize"].get_object().get(norm) == simdjson::SUCCESS) {
        const auto flag = [&](const char* key, bool& value) {
            simdjson::dom::element e;
            if (norm[key].get(e) != simdjson::SUCCESS) return;  // absent: default
            if (e.get_bool().get(value) != simdjson::SUCCESS)
                fail(path, std::string("\"normalize.") + key + "\" must be a boolean");
        };
        flag("nfc", t.normalize.nfc);
        flag("lowercase", t.normalize.lowercase);
        flag("collapse_whitespace", t.normalize.collapseWhitespace);
        flag("trim", t.normalize.trim);
    }

    if (obj["floor"].get_double().get(t.floor) != simdjson::SUCCESS || !(t.floor > 0) ||
        t.floor > 1)
        fail(path, "\"floor\" must be a number in (0, 1]");

    simdjson::dom::array pairs;
    if (obj["pairs"].get_array().get(pairs) != simdjson::SUCCESS)
        fail(path, "\"pairs\" must be an array");
    t.pairs.reserve(pairs.size());
    std::size_t i = 0;
    for (simdjson::dom::element e : pairs) {
        simdjson::dom::object p;
        if (e.get_object().get(p) != simdjson::SUCCESS)
            fail(path, "pairs[" + std::to_string(i) + "] must be an object");
        TruthPair tp;
        simdjson::dom::element a, b;
        if (p["a"].get(a) != simdjson::SUCCESS || p["b"].get(b) != simdjson::SUCCESS)
            fail(path, "pairs[" + std::to_string(i) + "] needs \"a\" and \"b\"");
        tp.a = idOf(a, path, "a", i);
        tp.b = idOf(b, path, "b", i);
        if (p["jaccard"].get_double().get(tp.jaccard) != simdjson::SUCCESS)
            fail(path, "pairs[" + std::to_string(i) + "].jaccard must be a number");
        std::string_view k;
        if (p["kind"].get_string().get(k) == simdjson::SUCCESS) tp.kind = k;
        t.pairs.push_back(std::move(tp));
        ++i;
    }
    return t;
}

}  // namespace neardup
