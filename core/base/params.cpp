#include "params.h"

#include "json_text.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

namespace neardup {

const char* toString(ShingleKind v) {
    return v == ShingleKind::Char ? "char" : "word";
}
const char* toString(HashFamily v) {
    return v == HashFamily::Rolling ? "rolling" : "permute";
}
const char* toString(SketchKind v) {
    return v == SketchKind::Oph ? "oph" : "classic";
}
const char* toString(BandKeyScheme v) {
    return v == BandKeyScheme::Hash ? "hash" : "sum";
}
const char* toString(KeepPolicy v) {
    switch (v) {
        case KeepPolicy::First:
            return "first";
        case KeepPolicy::Longest:
            return "longest";
        case KeepPolicy::MaxField:
            return "max";
    }
    return "first";
}

const char* toString(VerifyMode v) {
    switch (v) {
        case VerifyMode::None:
            return "none";
        case VerifyMode::Borderline:
            return "borderline";
        case VerifyMode::Exact:
            return "exact";
    }
    return "none";
}

const char* toString(DecideRule v) {
    return v == DecideRule::Components ? "components" : "witness";
}

std::optional<DecideRule> parseDecideRule(const std::string& s) {
    if (s == "witness") return DecideRule::Witness;
    if (s == "components") return DecideRule::Components;
    return std::nullopt;
}

std::optional<VerifyMode> parseVerifyMode(const std::string& s) {
    if (s == "none") return VerifyMode::None;
    if (s == "borderline") return VerifyMode::Borderline;
    if (s == "exact") return VerifyMode::Exact;
    return std::nullopt;
}

std::optional<ShingleKind> parseShingleKind(const std::string& s) {
    if (s == "char") return ShingleKind::Char;
    if (s == "word") return ShingleKind::Word;
    return std::nullopt;
}

std::optional<HashFamily> parseHashFamily(const std::string& s) {
    if (s == "rolling") return HashFamily::Rolling;
    if (s == "permute") return HashFamily::Permute;
    return std::nullopt;
}

std::optional<SketchKind> parseSketchKind(const std::string& s) {
    if (s == "classic") return SketchKind::Classic;
    if (s == "oph") return SketchKind::Oph;
    return std::nullopt;
}

std::optional<BandKeyScheme> parseBandKeyScheme(const std::string& s) {
    if (s == "hash") return BandKeyScheme::Hash;
    if (s == "sum") return BandKeyScheme::Sum;
    return std::nullopt;
}

bool parseKeepPolicy(const std::string& s, KeepPolicy& policy, std::string& field) {
    if (s == "first" || s == "longest") {
        policy = s == "first" ? KeepPolicy::First : KeepPolicy::Longest;
        field.clear();
        return true;
    }
    if (s.rfind("max:", 0) == 0 && s.size() > 4) {
        policy = KeepPolicy::MaxField;
        field = s.substr(4);
        return true;
    }
    return false;
}

bool parseBuckets(const std::string& s, BucketMode& mode, uint64_t& buckets) {
    if (s == "exact" || s == "auto") {
        mode = s == "exact" ? BucketMode::Exact : BucketMode::Auto;
        buckets = 0;
        return true;
    }
    if (s.empty() || s.find_first_not_of("0123456789") != std::string::npos || s.size() > 18)
        return false;
    const uint64_t k = std::stoull(s);
    if (k == 0) return false;
    mode = BucketMode::Fixed;
    buckets = k;
    return true;
}

std::string bucketsToString(BucketMode mode, uint64_t buckets) {
    switch (mode) {
        case BucketMode::Exact:
            return "exact";
        case BucketMode::Auto:
            return "auto";
        case BucketMode::Fixed:
            return std::to_string(buckets);
    }
    return "exact";
}

std::string validate(const RunParams& p, const ParameterNames& n) {
    const auto& s = p.signature;
    const auto& l = p.lsh;
    if (s.ngram < 1 || s.ngram > 64) return n.ngram + " must be between 1 and 64";
    if (s.hashes < 1 || s.hashes > 4096) return n.hashes + " must be between 1 and 4096";
    if (s.sketch == SketchKind::Oph && s.family != HashFamily::Permute)
        return n.sketchOph + " hashes each shingle once and needs " + n.hashPermute;
    if (l.bands < 1) return n.bands + " must be at least 1";
    if (l.rows < 1) return n.rows + " must be at least 1";
    if (l.bands * l.rows > s.hashes)
        return n.bands + " x " + n.rows + " (" + std::to_string(l.bands * l.rows) +
               ") must not exceed " + n.hashes + " (" + std::to_string(s.hashes) + ")";
    if (l.bucketMode == BucketMode::Fixed && l.buckets == 0) return n.buckets + " must be positive";
    const auto& c = p.compare;
    if (!(c.threshold > 0.0 && c.threshold <= 1.0)) return n.threshold + " must be in (0, 1]";
    if (!(c.storeFloor > 0.0 && c.storeFloor <= c.threshold))
        return n.storeFloor + " must be in (0, " + n.threshold + "]";
    if (p.keep == KeepPolicy::MaxField && p.reader.keepField.empty())
        return n.keepMaxField + " needs a field name";
    if (p.reader.textField.empty()) return n.textField + " must not be empty";
    if (p.threads < 0) return n.threads + " must be 0 (all cores) or positive";
    if (p.backend != "auto" && p.backend != "cpu" && p.backend != "cuda")
        return n.backend + " must be auto, cpu or cuda";
    if (p.workers < 1 || p.workers > RunParams::kMaxWorkers)
        return n.workers + " must be between 1 and " + std::to_string(RunParams::kMaxWorkers);
    if (!p.devices.empty()) {
        bool all = false;
        std::vector<int> list;
        if (!parseDeviceList(p.devices, all, list))
            return n.devices + " must be all or distinct device numbers such as 0,1,3 (got '" +
                   p.devices + "')";
        if (p.backend == "cpu") return n.devices + " selects GPUs and needs " + n.backendCudaOrAuto;
    }
    return {};
}

bool parseDeviceList(const std::string& s, bool& all, std::vector<int>& devices) {
    all = s == "all";
    devices.clear();
    if (all) return true;
    std::size_t at = 0;
    while (at <= s.size()) {
        const std::size_t comma = std::min(s.find(',', at), s.size());
        const std::string item = s.substr(at, comma - at);
        if (item.empty() || item.size() > 4 ||
            item.find_first_not_of("0123456789") != std::string::npos)
            return false;
        const int device = std::stoi(item);
        if (std::find(devices.begin(), devices.end(), device) != devices.end()) return false;
        devices.push_back(device);
        at = comma + 1;
    }
    return !devices.empty();
}

uint64_t autoBucketCount(uint64_t documents) {
    const double k = 2.0 * std::sqrt(static_cast<double>(documents));
    return k < 1.0 ? 1 : static_cast<uint64_t>(std::llround(k));
}

namespace {

const char* boolean(bool b) {
    return b ? "true" : "false";
}

std::string number(double v) {
    return fmt::format("{:.17g}", v);
}

std::string normalizeJson(const NormalizeOptions& n) {
    std::ostringstream o;
    o << "{\"nfc\":" << boolean(n.nfc) << ",\"lowercase\":" << boolean(n.lowercase)
      << ",\"collapse_whitespace\":" << boolean(n.collapseWhitespace)
      << ",\"trim\":" << boolean(n.trim) << "}";
    return o.str();
}

}  // namespace

std::string signatureCacheKey(const SignatureParams& s, const ReaderOptions& r) {
    std::ostringstream o;
    o << "{\"text_field\":" << json::quote(r.textField)
      << ",\"normalize\":" << normalizeJson(s.normalize) << ",\"shingle\":\"" << toString(s.shingle)
      << "\",\"ngram\":" << s.ngram << ",\"hashes\":" << s.hashes << ",\"hash\":\""
      << toString(s.family) << "\",\"sketch\":\"" << toString(s.sketch) << "\",\"seed\":" << s.seed
      << "}";
    return o.str();
}

// Written by hand on purpose (json_text.h), not with a JSON library: every project stores these
// bytes (runs.params_json, and signature_key from signatureCacheKey) and finds cached signatures
// by them, and doubles are written with %.17g ("threshold":0.80000000000000004) where
// nlohmann-json writes the shortest form (0.8); a library would change the bytes of every new
// run and lose the cache of older ones.
std::string toJson(const RunParams& p) {
    const auto& s = p.signature;
    const auto& l = p.lsh;
    std::string keep = toString(p.keep);
    if (p.keep == KeepPolicy::MaxField) keep += ":" + p.reader.keepField;
    std::ostringstream o;
    o << "{\"text_field\":" << json::quote(p.reader.textField)
      << ",\"id_field\":" << json::quote(p.reader.idField)
      << ",\"normalize\":" << normalizeJson(s.normalize) << ",\"shingle\":\"" << toString(s.shingle)
      << "\",\"ngram\":" << s.ngram << ",\"hashes\":" << s.hashes << ",\"hash\":\""
      << toString(s.family) << "\",\"sketch\":\"" << toString(s.sketch) << "\",\"seed\":" << s.seed
      << ",\"bands\":" << l.bands << ",\"rows\":" << l.rows << ",\"bucket_key\":\""
      << toString(l.scheme) << "\",\"buckets\":\"" << bucketsToString(l.bucketMode, l.buckets)
      << "\",\"threshold\":" << number(p.compare.threshold)
      << ",\"store_floor\":" << number(p.compare.storeFloor) << ",\"verify\":\""
      << toString(p.compare.verify) << "\",\"keep\":" << json::quote(keep) << ",\"decide\":\""
      << toString(p.decide) << "\""
      << ",\"threads\":" << p.threads << ",\"backend\":" << json::quote(p.backend) << "}";
    return o.str();
}

}  // namespace neardup
