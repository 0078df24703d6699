// The run records of the sidecar folder (run_record_file.h): names, content, the sweep lock.
#include "run_record_file.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <simdjson.h>

#include <algorithm>
#include <cerrno>
#include <utility>

#include "json_text.h"

namespace neardup {

namespace {

constexpr const char* kSweepLock = "sweep.lock";

template <typename T>
bool get(simdjson::dom::object o, const char* key, T& out) {
    return o[key].get(out) == simdjson::SUCCESS;
}

bool decodeParams(simdjson::dom::object o, RunParams& p) {
    std::string_view text;
    int64_t i = 0;
    uint64_t u = 0;
    double d = 0;
    bool b = false;
    if (!get(o, "text_field", text)) return false;
    p.reader.textField = std::string(text);
    if (!get(o, "id_field", text)) return false;
    p.reader.idField = std::string(text);
    simdjson::dom::object n;
    if (!get(o, "normalize", n)) return false;
    if (get(n, "nfc", b)) p.signature.normalize.nfc = b;
    if (get(n, "lowercase", b)) p.signature.normalize.lowercase = b;
    if (get(n, "collapse_whitespace", b)) p.signature.normalize.collapseWhitespace = b;
    if (get(n, "trim", b)) p.signature.normalize.trim = b;
    if (!get(o, "shingle", text)) return false;
    const auto shingle = parseShingleKind(std::string(text));
    if (!shingle) return false;
    p.signature.shingle = *shingle;
    if (get(o, "ngram", i)) p.signature.ngram = static_cast<int>(i);
    if (get(o, "hashes", i)) p.signature.hashes = static_cast<int>(i);
    if (get(o, "hash", text)) {
        const auto family = parseHashFamily(std::string(text));
        if (!family) return false;
        p.signature.family = *family;
    }
    // A lock written before the one-permutation sketch existed names none: those runs were
    // classic, whatever today's default is.
    p.signature.sketch = SketchKind::Classic;
    if (get(o, "sketch", text)) {
        const auto sketch = parseSketchKind(std::string(text));
        if (!sketch) return false;
        p.signature.sketch = *sketch;
    }
    if (get(o, "seed", u)) p.signature.seed = u;
    if (get(o, "bands", i)) p.lsh.bands = static_cast<int>(i);
    if (get(o, "rows", i)) p.lsh.rows = static_cast<int>(i);
    if (get(o, "bucket_key", text)) {
        const auto scheme = parseBandKeyScheme(std::string(text));
        if (!scheme) return false;
        p.lsh.scheme = *scheme;
    }
    if (get(o, "buckets", text) &&
        !parseBuckets(std::string(text), p.lsh.bucketMode, p.lsh.buckets))
        return false;
    if (get(o, "threshold", d)) p.compare.threshold = d;
    if (get(o, "store_floor", d)) p.compare.storeFloor = d;
    if (get(o, "verify", text)) {
        const auto verify = parseVerifyMode(std::string(text));
        if (!verify) return false;
        p.compare.verify = *verify;
    }
    if (get(o, "keep", text) && !parseKeepPolicy(std::string(text), p.keep, p.reader.keepField))
        return false;
    if (get(o, "threads", i)) p.threads = static_cast<int>(i);
    if (get(o, "backend", text)) p.backend = std::string(text);
    return true;
}

}  // namespace

namespace run_records {

UniqueFd openIn(int dirFd, const std::string& name, int flags, mode_t mode) {
    return UniqueFd(::openat(dirFd, name.c_str(), flags | O_NOFOLLOW | O_CLOEXEC, mode));
}

UniqueFd lockSweep(int dirFd) {
    UniqueFd fd = openIn(dirFd, kSweepLock, O_RDWR | O_CREAT, 0644);
    if (fd.get() < 0) return fd;
    while (::flock(fd.get(), LOCK_EX) != 0) {
        if (errno != EINTR) return UniqueFd();
    }
    return fd;
}

bool writeWhole(int fd, const std::string& text) {
    if (::ftruncate(fd, 0) != 0) return false;
    std::size_t done = 0;
    while (done < text.size()) {
        const ssize_t n =
            ::pwrite(fd, text.data() + done, text.size() - done, static_cast<off_t>(done));
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
        done += static_cast<std::size_t>(n);
    }
    return ::fsync(fd) == 0;
}

std::string readWhole(int fd) {
    std::string text;
    char buf[4096];
    off_t at = 0;
    for (;;) {
        const ssize_t n = ::pread(fd, buf, sizeof buf, at);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        text.append(buf, static_cast<std::size_t>(n));
        at += n;
    }
    return text;
}

std::string encode(const RunRecord& c) {
    std::string s = "{\"format\":1,\"pid\":" + std::to_string(c.pid) +
                    ",\"run\":" + std::to_string(c.runId) +
                    ",\"started_at\":" + json::quote(c.startedAt) + ",\"inputs\":[";
    for (std::size_t i = 0; i < c.inputs.size(); ++i) {
        if (i) s += ',';
        json::appendString(s, c.inputs[i]);
    }
    s += ']';
    // Written only for a run against a reference, so that other records stay as they were.
    if (!c.references.empty()) {
        s += ",\"references\":[";
        for (std::size_t i = 0; i < c.references.size(); ++i) {
            if (i) s += ',';
            json::appendString(s, c.references[i]);
        }
        s += ']';
    }
    const RunParams& p = c.params;
    s += ",\"on_error\":";
    s += p.reader.onError == OnError::Fail ? "\"fail\"" : "\"skip\"";
    s += ",\"chunk_bytes\":" + std::to_string(p.reader.chunkBytes);
    s += ",\"memory_budget\":" + std::to_string(p.memoryBudget);
    s += ",\"work_dir\":" + json::quote(p.workDir);
    s += ",\"params\":" + toJson(p) + "}\n";
    return s;
}

bool decode(const std::string& text, RunRecord& c) {
    simdjson::dom::parser parser;
    simdjson::dom::object o;
    if (parser.parse(text).get(o) != simdjson::SUCCESS) return false;
    int64_t format = 0;
    if (!get(o, "format", format) || format != 1) return false;
    get(o, "pid", c.pid);
    get(o, "run", c.runId);
    std::string_view sv;
    if (get(o, "started_at", sv)) c.startedAt = std::string(sv);
    simdjson::dom::array inputs;
    if (!get(o, "inputs", inputs)) return false;
    for (simdjson::dom::element e : inputs) {
        if (e.get(sv) != simdjson::SUCCESS) return false;
        c.inputs.emplace_back(sv);
    }
    simdjson::dom::array references;
    if (get(o, "references", references))
        for (simdjson::dom::element e : references) {
            if (e.get(sv) != simdjson::SUCCESS) return false;
            c.references.emplace_back(sv);
        }
    simdjson::dom::object params;
    if (!get(o, "params", params) || !decodeParams(params, c.params)) return false;
    if (get(o, "on_error", sv))
        c.params.reader.onError = sv == "fail" ? OnError::Fail : OnError::Skip;
    uint64_t u = 0;
    if (get(o, "chunk_bytes", u) && u > 0) c.params.reader.chunkBytes = static_cast<std::size_t>(u);
    if (get(o, "memory_budget", u)) c.params.memoryBudget = u;
    if (get(o, "work_dir", sv)) c.params.workDir = std::string(sv);
    return true;
}

int64_t runIdOf(const std::string& name, const std::string& suffix) {
    if (name.rfind("run-", 0) != 0 || name.size() <= 4 + suffix.size() ||
        name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0)
        return 0;
    const std::string digits = name.substr(4, name.size() - 4 - suffix.size());
    if (digits.empty() || digits.size() > 18 ||
        !std::all_of(digits.begin(), digits.end(), [](char ch) { return ch >= '0' && ch <= '9'; }))
        return 0;
    return std::stoll(digits);
}

std::string resumeName(int64_t runId) {
    return "run-" + std::to_string(runId) + ".resume";
}

}  // namespace run_records

bool paramsFromJson(const std::string& json, RunParams& out) {
    simdjson::dom::parser parser;
    simdjson::dom::object o;
    if (parser.parse(json).get(o) != simdjson::SUCCESS) return false;
    RunParams p;
    if (!decodeParams(o, p)) return false;
    out = std::move(p);
    return true;
}

}  // namespace neardup
