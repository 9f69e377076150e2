// The machine's limits, which the large benchmarks report their fraction of: memory bandwidth by
// a STREAM-style triad and double-precision peak arithmetic at each vector width the processor
// has.
//
// Triad: a[i] = b[i] + s c[i] over three arrays of 2^24 doubles (128 MB each, four times the
// largest last-level cache this code has met), counted as STREAM counts it, 24 bytes an element
// (the write-allocate read of a is not counted), its best rate over the repeats as STREAM reports.
// Each thread first touches the part it will stream, so its pages sit near it.
//
// Peak: twelve independent chains x = x m + a per lane, enough to cover the latency of the
// floating-point pipes, 2 flops each. Two kinds: separate multiply and add, which is what simgrad's
// own code compiles to (it builds with -ffp-contract=off, so no multiply-add is fused: results
// keep their bits across compilers), and fused multiply-add where the processor has it, the
// hardware's ceiling. The scalar chains are kept in separate registers by an empty asm, so the
// compiler cannot pack them into vectors. And square root with division, which a spring, a
// normalised vector or a projection costs once an element: they run on the divider, which does not
// pipeline as the multipliers and adders do, so a kernel with one of each per element can be
// bound by them long before it is bound by the flops.
#include <omp.h>
#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstring>
#include <memory>
#include <vector>

#include "bench/bench_support.hpp"

namespace simgrad::app {
namespace {

using nlohmann::json;

constexpr long kChainSteps = 1 << 24;  // per chain; about 0.1 s a run on one core
constexpr double kMultiplier = 0.9999999, kAddend = 1e-7;

// Keeps `x` in a register of its own at this point: no packing, no folding.
#if defined(__x86_64__)
#define SIMGRAD_OPAQUE(x) asm volatile("" : "+x"(x))
#else
#define SIMGRAD_OPAQUE(x) asm volatile("" : "+w"(x))
#endif

// 12 scalar chains, multiply then add: 24 flops an iteration.
double scalar_mul_add() {
  double x0 = 1.0, x1 = 1.1, x2 = 1.2, x3 = 1.3, x4 = 1.4, x5 = 1.5, x6 = 1.6, x7 = 1.7, x8 = 1.8, x9 = 1.9,
         x10 = 2.0, x11 = 2.1;
  double m = kMultiplier, a = kAddend;
  SIMGRAD_OPAQUE(m);
  SIMGRAD_OPAQUE(a);
  for (long i = 0; i < kChainSteps; ++i) {
    x0 = x0 * m + a; x1 = x1 * m + a; x2 = x2 * m + a; x3 = x3 * m + a;
    x4 = x4 * m + a; x5 = x5 * m + a; x6 = x6 * m + a; x7 = x7 * m + a;
    x8 = x8 * m + a; x9 = x9 * m + a; x10 = x10 * m + a; x11 = x11 * m + a;
    SIMGRAD_OPAQUE(x0); SIMGRAD_OPAQUE(x1); SIMGRAD_OPAQUE(x2); SIMGRAD_OPAQUE(x3);
    SIMGRAD_OPAQUE(x4); SIMGRAD_OPAQUE(x5); SIMGRAD_OPAQUE(x6); SIMGRAD_OPAQUE(x7);
    SIMGRAD_OPAQUE(x8); SIMGRAD_OPAQUE(x9); SIMGRAD_OPAQUE(x10); SIMGRAD_OPAQUE(x11);
  }
  return x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7 + x8 + x9 + x10 + x11;
}

// 12 scalar chains x = 1 / sqrt(x + 1): a square root and a division each, which the spring law
// computes once a spring and which run on the divider, one unit that does not pipeline like the
// multipliers and adders do.
double scalar_sqrt_div() {
  double x[12];
  for (int k = 0; k < 12; ++k) x[k] = 1.0 + 0.1 * k;
  double one = 1.0;
  SIMGRAD_OPAQUE(one);
  for (long i = 0; i < kChainSteps / 8; ++i)
    for (int k = 0; k < 12; ++k) {
      x[k] = one / std::sqrt(x[k] + one);
      SIMGRAD_OPAQUE(x[k]);
    }
  double total = 0.0;
  for (int k = 0; k < 12; ++k) total += x[k];
  return total;
}

#if defined(__x86_64__)
// The body of a vector probe in a function compiled for its instruction set: 12 chains of
// `Vector` started at `start`, each replaced `steps` times by `update` (of v), then the sum of every
// lane of every chain.
#define SIMGRAD_VECTOR_CHAINS(Vector, start, update, steps)                     \
  Vector x[12];                                                                 \
  for (Vector & v : x) v = (start);                                             \
  for (long i = 0; i < (steps); ++i)                                            \
    _Pragma("GCC unroll 12") for (Vector & v : x) v = (update);                 \
  alignas(64) double lanes[sizeof(Vector) / sizeof(double)];                    \
  double total = 0.0;                                                           \
  for (Vector & v : x) {                                                        \
    std::memcpy(lanes, &v, sizeof v);                                           \
    for (double l : lanes) total += l;                                          \
  }                                                                             \
  return total

// SSE2, two lanes, multiply then add: 48 flops an iteration.
double sse2_mul_add() {
  const __m128d m = _mm_set1_pd(kMultiplier), a = _mm_set1_pd(kAddend);
  SIMGRAD_VECTOR_CHAINS(__m128d, a, _mm_add_pd(_mm_mul_pd(v, m), a), kChainSteps);
}

// AVX2, four lanes, multiply then add: 96 flops an iteration.
__attribute__((target("avx2"))) double avx2_mul_add() {
  const __m256d m = _mm256_set1_pd(kMultiplier), a = _mm256_set1_pd(kAddend);
  SIMGRAD_VECTOR_CHAINS(__m256d, a, _mm256_add_pd(_mm256_mul_pd(v, m), a), kChainSteps);
}

// AVX2 with fused multiply-add, four lanes: 96 flops an iteration.
__attribute__((target("avx2,fma"))) double avx2_fma() {
  const __m256d m = _mm256_set1_pd(kMultiplier), a = _mm256_set1_pd(kAddend);
  SIMGRAD_VECTOR_CHAINS(__m256d, a, _mm256_fmadd_pd(v, m, a), kChainSteps);
}

// AVX2 square roots and divisions, four lanes, as scalar_sqrt_div.
__attribute__((target("avx2"))) double avx2_sqrt_div() {
  const __m256d one = _mm256_set1_pd(1.0);
  SIMGRAD_VECTOR_CHAINS(__m256d, one, _mm256_div_pd(one, _mm256_sqrt_pd(_mm256_add_pd(v, one))), kChainSteps / 8);
}

// AVX-512 with fused multiply-add, eight lanes: 192 flops an iteration.
__attribute__((target("avx512f"))) double avx512_fma() {
  const __m512d m = _mm512_set1_pd(kMultiplier), a = _mm512_set1_pd(kAddend);
  SIMGRAD_VECTOR_CHAINS(__m512d, a, _mm512_fmadd_pd(v, m, a), kChainSteps);
}
#endif

// Where the probes' results go, so that no probe is optimised away.
volatile double kept_result = 0.0;

// Giga-operations per second of `chains` (`operations` in each of its kChainSteps / `divisor`
// iterations) on `threads` threads at once: the best of `repeats` runs of the whole team.
double peak_rate(double (*chains)(), double operations, int threads, int repeats, long divisor = 1) {
  std::vector<double> rates;
  for (int r = 0; r < repeats; ++r) {
    double sink = 0.0;
    const double seconds = time_of([&] {
#pragma omp parallel num_threads(threads) reduction(+ : sink)
      sink += chains();
    });
    kept_result = sink;  // the chains' results are used, so the compiler keeps the chains
    rates.push_back(threads * operations * static_cast<double>(kChainSteps / divisor) / seconds * 1e-9);
  }
  return *std::max_element(rates.begin(), rates.end());
}

// The triad's best rate in GB/s (STREAM's 24 bytes an element) on `threads` threads.
double triad_gb_per_s(int threads, int repeats) {
  constexpr std::size_t n = std::size_t{1} << 24;
  std::unique_ptr<double[]> a(new double[n]), b(new double[n]), c(new double[n]);
  const long count = static_cast<long>(n);
#pragma omp parallel for schedule(static) num_threads(threads)
  for (long i = 0; i < count; ++i) {
    a[i] = 0.0;
    b[i] = 1.0;
    c[i] = 2.0;
  }
  double best = 0.0;
  for (int r = 0; r < repeats; ++r) {
    const double s = 3.0 + r;
    const double seconds = time_of([&] {
#pragma omp parallel for schedule(static) num_threads(threads)
      for (long i = 0; i < count; ++i) a[i] = b[i] + s * c[i];
    });
    best = std::max(best, 24.0 * static_cast<double>(n) / seconds * 1e-9);
  }
  if (a[n / 2] != b[n / 2] + (2.0 + repeats) * c[n / 2]) return 0.0;  // the last run's result, or no figure
  return best;
}

}  // namespace

json measure_machine_limits(int threads, int repeats) {
  const int team = threads > 0 ? threads : omp_get_num_procs();
  json limits = {{"threads", team}};
  for (const int t : {1, team}) {
    const std::string suffix = t == 1 ? "_1thread" : "";
    limits["triad_gb_s" + suffix] = triad_gb_per_s(t, repeats);
    limits["scalar_mul_add_gflops" + suffix] = peak_rate(scalar_mul_add, 24.0, t, repeats);
    limits["scalar_sqrt_div_giga_per_s" + suffix] = peak_rate(scalar_sqrt_div, 12.0, t, repeats, 8);
#if defined(__x86_64__)
    limits["sse2_mul_add_gflops" + suffix] = peak_rate(sse2_mul_add, 48.0, t, repeats);
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx2")) {
      limits["avx2_mul_add_gflops" + suffix] = peak_rate(avx2_mul_add, 96.0, t, repeats);
      limits["avx2_sqrt_div_giga_per_s" + suffix] = peak_rate(avx2_sqrt_div, 48.0, t, repeats, 8);
    }
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
      limits["avx2_fma_gflops" + suffix] = peak_rate(avx2_fma, 96.0, t, repeats);
    if (__builtin_cpu_supports("avx512f"))
      limits["avx512_fma_gflops" + suffix] = peak_rate(avx512_fma, 192.0, t, repeats);
#endif
    if (team == 1) break;
  }
  return limits;
}

}  // namespace simgrad::app
