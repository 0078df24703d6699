// `neardup info`: version, compiled features, devices, SIMD level.
#include <cstdio>
#include <thread>

#include "backend_factory.h"
#include "commands.h"
#include "mpi_job.h"

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
        std::printf("neardup %s\n", NEARDUP_VERSION);
        std::printf("cuda backend: %s\n", gpus.compiledIn ? "compiled in" : "not compiled in");
        std::printf("gpus: %s\n", gpus.status.c_str());
        std::printf("mpi: %s\n", mpi::describeSupport().c_str());
        for (const GpuDevice& d : gpus.devices)
            std::printf("  [%d] %s, %.1f GiB (%.1f GiB free), compute capability %d.%d\n", d.index,
                        d.name.c_str(), static_cast<double>(d.totalMemory) / (1u << 30),
                        static_cast<double>(d.freeMemory) / (1u << 30), d.computeMajor,
                        d.computeMinor);
        std::printf("simd: %s\n", simdLevel());
        std::printf("hardware threads: %u\n", std::thread::hardware_concurrency());
        return kExitOk;
    };
}

}  // namespace neardup::cli
