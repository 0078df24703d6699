#include "simd.h"

#include <atomic>
#include <cstdlib>
#include <cstring>

namespace neardup {

namespace {

SimdLevel detect() {
#if defined(__x86_64__) && defined(__GNUC__)
    __builtin_cpu_init();
    // __builtin_cpu_supports also checks that the OS saves the wide registers (XCR0).
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
        __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512bw"))
        return SimdLevel::Avx512;
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("bmi2")) return SimdLevel::Avx2;
#endif
    return SimdLevel::Scalar;
}

SimdLevel fromEnvironment(SimdLevel detected) {
    const char* env = std::getenv("NEARDUP_SIMD");
    SimdLevel wanted = detected;
    if (env && std::strcmp(env, "scalar") == 0) wanted = SimdLevel::Scalar;
    if (env && std::strcmp(env, "avx2") == 0) wanted = SimdLevel::Avx2;
    return wanted < detected ? wanted : detected;
}

std::atomic<int>& active() {
    static std::atomic<int> level{static_cast<int>(fromEnvironment(detectedSimdLevel()))};
    return level;
}

}  // namespace

SimdLevel detectedSimdLevel() {
    static const SimdLevel level = detect();
    return level;
}

SimdLevel activeSimdLevel() {
    return static_cast<SimdLevel>(active().load(std::memory_order_relaxed));
}

void overrideSimdLevel(SimdLevel level) {
    const SimdLevel detected = detectedSimdLevel();
    active().store(static_cast<int>(level < detected ? level : detected),
                   std::memory_order_relaxed);
}

const char* toString(SimdLevel level) {
    switch (level) {
        case SimdLevel::Avx512:
            return "avx512";
        case SimdLevel::Avx2:
            return "avx2";
        case SimdLevel::Scalar:
            return "scalar";
    }
    return "scalar";
}

}  // namespace neardup
