// `neardup info`: version, compiled features, devices, SIMD level.
#include <fmt/format.h>

#include <cstdio>
#include <thread>

#include "backend_factory.h"
#include "commands.h"
#include "mpi_job.h"
#include "parquet_file.h"

namespace neardup::cli {

namespace {

const char* simdLevel() {
#if defined(__x86_64__)
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw")) return "AVX-512";
    if (__builtin_cpu_supports("avx2")) return "AVX2";
    if (__builtin_cpu_supports("sse4.2")) return "SSE4.2";
    return "SSE2";
#elif defined(__aarch64__)
    return "NEON";
#else
    return "none";
#endif
}

}  // namespace

Command addInfoCommand(CLI::App& app) {
    app.add_subcommand("info", "Show version, compiled features, GPUs and SIMD level");
    return []() -> int {
        const GpuInventory gpus = queryGpus();
        fmt::print("neardup {}\n", NEARDUP_VERSION);
        fmt::print("cuda backend: {}\n", gpus.compiledIn ? "compiled in" : "not compiled in");
        fmt::print("gpus: {}\n", gpus.status);
        fmt::print("mpi: {}\n", mpi::describeSupport());
        fmt::print("parquet input: {}\n",
                   columnar::parquetCompiledIn() ? "compiled in" : "not compiled in");
        for (const GpuDevice& d : gpus.devices)
            fmt::print("  [{}] {}, {:.1f} GiB ({:.1f} GiB free), compute capability {}.{}\n",
                       d.index, d.name, static_cast<double>(d.totalMemory) / (1u << 30),
                       static_cast<double>(d.freeMemory) / (1u << 30), d.computeMajor,
                       d.computeMinor);
        fmt::print("simd: {}\n", simdLevel());
        fmt::print("hardware threads: {}\n", std::thread::hardware_concurrency());
        return kExitOk;
    };
}

}  // namespace neardup::cli
