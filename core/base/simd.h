// Run-time choice of the SIMD kernels: one binary for any x86-64, using AVX2 or AVX-512 where
// the CPU has them. NEARDUP_SIMD=scalar|avx2|avx512 in the environment caps the level (for
// benchmarks and for checking the fallbacks on a machine that has everything).
#pragma once

namespace neardup {

enum class SimdLevel { Scalar = 0, Avx2 = 1, Avx512 = 2 };

// What this CPU (and operating system) supports.
SimdLevel detectedSimdLevel();
// What the kernels use: the detected level, capped by NEARDUP_SIMD and by overrideSimdLevel().
SimdLevel activeSimdLevel();
// Caps the level used from now on (never above the detected one); for tests and benchmarks.
// Not synchronized with kernels running on other threads.
void overrideSimdLevel(SimdLevel level);
const char* toString(SimdLevel level);

}  // namespace neardup
