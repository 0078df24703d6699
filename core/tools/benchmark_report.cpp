// A benchmark report written out: as JSON (`neardup bench --json`) and as the Markdown table the
// CLI prints (benchmark.h).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <sstream>
#include <string>
#include <vector>

#include "benchmark.h"
#include "format_benchmark.h"
#include "json_text.h"

namespace neardup {

namespace {

void field(std::string& o, const char* name, double v, bool comma = true) {
    json::appendString(o, name);
    o += ':';
    json::appendNumber(o, std::isfinite(v) ? v : 0.0);
    if (comma) o += ',';
}

void field(std::string& o, const char* name, const std::string& v, bool comma = true) {
    json::appendString(o, name);
    o += ':';
    json::appendString(o, v);
    if (comma) o += ',';
}

// One numeric member of a JSON object: counts, sizes and rates alike are written as doubles.
struct Number {
    template <typename T>
    Number(const char* memberName, T v) : name(memberName), value(static_cast<double>(v)) {}
    const char* name;
    double value;
};

// Numeric members in the order given, a comma after each; with kClosesObject, none after the
// last, which ends its object.
constexpr bool kClosesObject = true;
void numbers(std::string& o, std::initializer_list<Number> list, bool closes = false) {
    std::size_t left = list.size();
    for (const Number& n : list)
        field(o, n.name, n.value, !(closes && --left == 0));
}

// `items` as a JSON array of objects, each object's fields written by `fields`.
template <typename T, typename Fields>
void appendObjects(std::string& o, const std::vector<T>& items, Fields fields) {
    o += '[';
    for (std::size_t i = 0; i < items.size(); ++i) {
        o += i ? ",{" : "{";
        fields(items[i]);
        o += '}';
    }
    o += ']';
}

}  // namespace

std::string toJson(const BenchmarkReport& r) {
    std::string o = "{";
    field(o, "neardup_version", r.version);
    field(o, "started_at", r.startedAt);
    o += "\"machine\":{";
    field(o, "cpu", r.machine.cpu);
    numbers(o,
            {{"logical_cores", r.machine.logicalCores}, {"memory_bytes", r.machine.memoryBytes}});
    field(o, "simd", r.machine.simd);
    field(o, "os", r.machine.os);
    field(o, "compiler", r.machine.compiler, false);
    o += "},\"parameters\":" + r.parametersJson + ",\"kernels\":";
    appendObjects(o, r.kernels, [&o](const BenchmarkKernel& k) {
        field(o, "name", k.name);
        numbers(o,
                {{"threads", 1},
                 {"bytes", k.bytes},
                 {"cpu_seconds", k.cpuSeconds},
                 {"mb_per_s", k.mbPerSecond}},
                kClosesObject);
    });
    o += ",\"cases\":";
    appendObjects(o, r.cases, [&o](const BenchmarkCase& c) {
        field(o, "corpus", c.corpus);
        field(o, "path", c.path);
        numbers(o, {{"target_bytes", c.targetBytes},
                    {"bytes", c.bytes},
                    {"documents", c.documents},
                    {"mean_chars", c.meanChars},
                    {"threads", c.threads},
                    {"wall_seconds", c.wallSeconds},
                    {"end_to_end_mb_per_s", c.endToEndMBps},
                    {"docs_per_s", c.documentsPerSecond},
                    {"candidate_pairs", c.candidatePairs},
                    {"comparisons_per_s", c.comparisonsPerSecond},
                    {"duplicate_pairs", c.duplicatePairs},
                    {"removed", c.removed},
                    {"peak_rss_bytes", c.peakRssBytes},
                    {"user_seconds", c.userSeconds},
                    {"system_seconds", c.systemSeconds},
                    {"cpu_mb_per_s", c.cpuMBps},
                    {"cores_busy", c.coresBusy},
                    {"memory_budget", c.memoryBudget},
                    {"spill_bytes", c.spillBytes},
                    {"thread_samples", c.threadSamples},
                    {"serial_share", c.serialShare},
                    {"projected_speedup_16", c.projected16}});
        o += "\"serial_by_phase\":{";
        for (std::size_t j = 0; j < c.serialByPhase.size(); ++j)
            field(o, c.serialByPhase[j].first.c_str(), c.serialByPhase[j].second,
                  j + 1 < c.serialByPhase.size());
        o += "},";
        o += "\"repeat_wall_seconds\":[";
        for (std::size_t j = 0; j < c.repeatWallSeconds.size(); ++j) {
            if (j) o += ',';
            json::appendNumber(o, c.repeatWallSeconds[j]);
        }
        o += "],\"phases\":";
        appendObjects(o, c.phases, [&o](const BenchmarkPhase& p) {
            field(o, "name", p.name);
            numbers(o,
                    {{"seconds", p.seconds},
                     {"items", p.items},
                     {"bytes", p.bytes},
                     {"mb_per_s", p.mbPerSecond},
                     {"items_per_s", p.itemsPerSecond}},
                    kClosesObject);
        });
    });
    o += ",";
    appendFormatsJson(o, r.formats);
    o += "}";
    return o;
}

namespace {

std::string fixed(double v, int digits) {
    return fmt::format("{:.{}f}", v, digits);
}

const BenchmarkPhase* phase(const BenchmarkCase& c, const char* name) {
    for (const BenchmarkPhase& p : c.phases)
        if (p.name == name) return &p;
    return nullptr;
}

}  // namespace

std::string toTable(const BenchmarkReport& r) {
    std::ostringstream o;
    const BenchmarkMachine& m = r.machine;
    o << "Machine: " << m.cpu << ", " << m.logicalCores << " logical cores, "
      << fixed(double(m.memoryBytes) / double(uint64_t{1} << 30), 1) << " GiB, SIMD " << m.simd
      << ", " << m.os << ", " << m.compiler << "\n\n";
    if (!r.kernels.empty()) {
        o << "| kernel (1 thread, CPU time) | MB/s |\n|---|---:|\n";
        for (const BenchmarkKernel& k : r.kernels)
            o << "| " << k.name << " | " << fixed(k.mbPerSecond, 1) << " |\n";
        o << "\n";
    }
    if (!r.cases.empty()) {
        o << "| corpus | size | docs | threads | read MB/s | signatures MB/s | buckets s | "
             "compare pairs/s | verify s | export s | store s | end-to-end MB/s | docs/s | "
             "MB per CPU s | cores busy | serial % | x at 16 cores | peak RSS MiB | spilled MiB |\n"
          << "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
             "---:|---:|\n";
        for (const BenchmarkCase& c : r.cases) {
            auto seconds = [&](const char* name) {
                const BenchmarkPhase* p = phase(c, name);
                return p ? fixed(p->seconds, 2) : std::string("-");
            };
            const BenchmarkPhase* read = phase(c, "read");
            const BenchmarkPhase* sign = phase(c, "signatures");
            o << "| " << c.corpus << " | " << fixed(double(c.bytes) / 1e6, 1) << " MB | "
              << c.documents << " | " << c.threads << " | "
              << (read ? fixed(read->mbPerSecond, 1) : "-") << " | "
              << (sign ? fixed(sign->mbPerSecond, 1) : "-") << " | " << seconds("buckets") << " | "
              << fixed(c.comparisonsPerSecond, 0) << " | " << seconds("verify") << " | "
              << seconds("export") << " | " << seconds("store") << " | " << fixed(c.endToEndMBps, 1)
              << " | " << fixed(c.documentsPerSecond, 0) << " | " << fixed(c.cpuMBps, 1) << " | "
              << fixed(c.coresBusy, 2) << " | "
              << (c.threadSamples ? fixed(100 * c.serialShare, 1) : std::string("-")) << " | "
              << (c.threadSamples ? fixed(c.projected16, 1) : std::string("-")) << " | "
              << fixed(double(c.peakRssBytes) / double(uint64_t{1} << 20), 0) << " | "
              << fixed(double(c.spillBytes) / double(uint64_t{1} << 20), 0) << " |\n";
        }
        // Where each case's serial share went, largest first.
        for (const BenchmarkCase& c : r.cases) {
            if (c.serialByPhase.empty()) continue;
            auto phases = c.serialByPhase;
            std::stable_sort(phases.begin(), phases.end(),
                             [](const auto& a, const auto& b) { return a.second > b.second; });
            o << "\nSerial share by phase (" << c.corpus << ", " << c.threads << " thread(s)): ";
            for (std::size_t i = 0; i < phases.size(); ++i)
                o << (i ? ", " : "") << phases[i].first << " " << fixed(100 * phases[i].second, 1)
                  << " %";
            o << "\n";
        }
    }
    if (!r.formats.empty()) o << "\n" << formatsTable(r.formats);
    return o.str();
}

}  // namespace neardup
