// Four traces at a time in AVX2 registers: periodic_trace.hpp's trace_sample and
// trace_sample_adjoint, lane by lane the same operations in the same order (floor, wrap,
// weights, sums), so every lane gives the scalar path's bits. The gathers and the arithmetic run
// four wide; the adjoint's scatter stays scalar (one sample after another, as the scalar path
// adds them), and so do the starts of traces at the grid's left and right edges. A lane that
// the scalar path would fold first (a foot a million cells away, or not finite) sends its group
// of four down the scalar path. Indices are 32-bit: Advector uses these kernels only on lattices
// of fewer than 2^31 samples.
#include "sims/fluid/periodic_trace.hpp"

#include <algorithm>
#include <type_traits>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace simgrad::fluid {

#if defined(__x86_64__)

namespace {

#define SIMGRAD_AVX2 __attribute__((target("avx2")))

// Four bilinear samples of a field on a periodic lattice: WrappedSample, one per lane.
struct Sample4 {
  __m128i index[4];
  __m256d value[4];
  __m256d fx, fy;
};

// locate()'s periodic branch for four coordinates: the lower and upper lattice indices and the
// fraction; false when a lane lies a million cells away or more, or is not finite.
SIMGRAD_AVX2 inline bool locate4(__m256d g, int count, __m128i& i0, __m128i& i1, __m256d& f) {
  const __m256d magnitude = _mm256_andnot_pd(_mm256_set1_pd(-0.0), g);
  if (_mm256_movemask_pd(_mm256_cmp_pd(magnitude, _mm256_set1_pd(1e6), _CMP_LT_OQ)) != 0xF) return false;
  // + 0: the scalar floor goes through an integer, so its floor of -0 is +0.
  const __m256d k = _mm256_add_pd(_mm256_floor_pd(g), _mm256_setzero_pd());
  f = _mm256_sub_pd(g, k);
  __m128i wrapped = _mm256_cvttpd_epi32(k);
  const __m128i n = _mm_set1_epi32(count), last = _mm_set1_epi32(count - 1), zero = _mm_setzero_si128();
  for (;;) {
    const __m128i below = _mm_cmpgt_epi32(zero, wrapped), above = _mm_cmpgt_epi32(wrapped, last);
    const __m128i outside = _mm_or_si128(below, above);
    if (_mm_testz_si128(outside, outside)) break;
    wrapped = _mm_sub_epi32(_mm_add_epi32(wrapped, _mm_and_si128(below, n)), _mm_and_si128(above, n));
  }
  i0 = wrapped;
  const __m128i next = _mm_add_epi32(wrapped, _mm_set1_epi32(1));
  i1 = _mm_andnot_si128(_mm_cmpeq_epi32(next, n), next);
  return true;
}

// Samples field f of lattice l at four points (cell units) into s; false as locate4.
SIMGRAD_AVX2 inline bool sample4(const Lattice& l, __m256d x, __m256d y, const double* f, Sample4& s) {
  __m128i i0, i1, j0, j1;
  if (!locate4(_mm256_sub_pd(x, _mm256_set1_pd(l.ox)), l.cx, i0, i1, s.fx)) return false;
  if (!locate4(_mm256_sub_pd(y, _mm256_set1_pd(l.oy)), l.cy, j0, j1, s.fy)) return false;
  const __m128i columns = _mm_set1_epi32(l.cx);
  const __m128i row0 = _mm_mullo_epi32(j0, columns), row1 = _mm_mullo_epi32(j1, columns);
  s.index[0] = _mm_add_epi32(row0, i0);
  s.index[1] = _mm_add_epi32(row0, i1);
  s.index[2] = _mm_add_epi32(row1, i0);
  s.index[3] = _mm_add_epi32(row1, i1);
  // The masked gather with a zero source: the plain one starts from an undefined register, which
  // GCC reports as used uninitialised.
  const __m256d all = _mm256_castsi256_pd(_mm256_set1_epi64x(-1));
  for (int m = 0; m < 4; ++m) s.value[m] = _mm256_mask_i32gather_pd(_mm256_setzero_pd(), f, s.index[m], all, 8);
  return true;
}

// WrappedSample::weight(m) in four lanes.
SIMGRAD_AVX2 inline __m256d weight4(const Sample4& s, int m) {
  const __m256d one = _mm256_set1_pd(1.0);
  return _mm256_mul_pd(m & 1 ? s.fx : _mm256_sub_pd(one, s.fx), m & 2 ? s.fy : _mm256_sub_pd(one, s.fy));
}

// WrappedSample::interpolated in four lanes.
SIMGRAD_AVX2 inline __m256d interpolated4(const Sample4& s) {
  __m256d r = _mm256_mul_pd(weight4(s, 0), s.value[0]);
  for (int m = 1; m < 4; ++m) r = _mm256_add_pd(r, _mm256_mul_pd(weight4(s, m), s.value[m]));
  return r;
}

// -a, as the unary minus flips the sign bit.
SIMGRAD_AVX2 inline __m256d negated(__m256d a) { return _mm256_xor_pd(a, _mm256_set1_pd(-0.0)); }

// Sum of the four products, from zero, in order: along_x and along_y's sums.
SIMGRAD_AVX2 inline __m256d sum_from_zero(const __m256d weight[4], const __m256d value[4]) {
  __m256d d = _mm256_setzero_pd();
  for (int m = 0; m < 4; ++m) d = _mm256_add_pd(d, _mm256_mul_pd(weight[m], value[m]));
  return d;
}

// WrappedSample::along_x in four lanes.
SIMGRAD_AVX2 inline __m256d along_x4(const Sample4& s) {
  const __m256d rest = _mm256_sub_pd(_mm256_set1_pd(1.0), s.fy);
  const __m256d weight[4] = {negated(rest), rest, negated(s.fy), s.fy};
  return sum_from_zero(weight, s.value);
}

// WrappedSample::along_y in four lanes.
SIMGRAD_AVX2 inline __m256d along_y4(const Sample4& s) {
  const __m256d rest = _mm256_sub_pd(_mm256_set1_pd(1.0), s.fx);
  const __m256d weight[4] = {negated(rest), negated(s.fx), rest, s.fx};
  return sum_from_zero(weight, s.value);
}

// w a[0] + w a[1] + ..., four lanes from each pointer, summed in order as grid_point sums.
template <int N>
SIMGRAD_AVX2 inline __m256d weighted_sum4(double w, const double* const (&at)[N]) {
  const __m256d weight = _mm256_set1_pd(w);
  __m256d r = _mm256_mul_pd(weight, _mm256_loadu_pd(at[0]));
  for (int m = 1; m < N; ++m) r = _mm256_add_pd(r, _mm256_mul_pd(weight, _mm256_loadu_pd(at[m])));
  return r;
}

// The velocity at the starts of four traces (i .. i + 3, j) away from the grid's left and right
// edges (1 <= i, i + 4 < nx): grid_point's sums in order, from whole rows of u and v.
template <Staggering K>
SIMGRAD_AVX2 inline void interior_velocity4(const PeriodicTrace& t, int i, int j, __m256d& vx, __m256d& vy) {
  const int jm = j == 0 ? t.ny - 1 : j - 1, jp = j + 1 == t.ny ? 0 : j + 1;
  const double* u = t.u + static_cast<Index>(j) * t.nx + i;
  const double* v = t.v + static_cast<Index>(j) * t.nx + i;
  const double* u_below = t.u + static_cast<Index>(jm) * t.nx + i;
  const double* v_above = t.v + static_cast<Index>(jp) * t.nx + i;
  if constexpr (K == Staggering::kU) {
    const double* const us[] = {u};
    const double* const vs[] = {v - 1, v, v_above - 1, v_above};
    vx = weighted_sum4(1.0, us);
    vy = weighted_sum4(0.25, vs);
  } else if constexpr (K == Staggering::kV) {
    const double* const us[] = {u_below, u_below + 1, u, u + 1};
    const double* const vs[] = {v};
    vx = weighted_sum4(0.25, us);
    vy = weighted_sum4(1.0, vs);
  } else {
    const double* const us[] = {u, u + 1};
    const double* const vs[] = {v, v_above};
    vx = weighted_sum4(0.5, us);
    vy = weighted_sum4(0.5, vs);
  }
}

// The starts of four traces at samples (i .. i + 3, j): where they lie and the velocity there.
struct Starts4 {
  __m256d vx, vy, x, y;
};

template <Staggering K>
SIMGRAD_AVX2 inline Starts4 starts4(const PeriodicTrace& t, int i, int j) {
  Starts4 s;
  if (i >= 1 && i + 4 < t.nx) {
    interior_velocity4<K>(t, i, j, s.vx, s.vy);
  } else {
    alignas(32) double vx[4], vy[4];
    for (int lane = 0; lane < 4; ++lane) {
      const GridPoint<K> p = grid_point<K>(t.nx, t.ny, t.u, t.v, i + lane, j);
      vx[lane] = p.vx;
      vy[lane] = p.vy;
    }
    s.vx = _mm256_load_pd(vx);
    s.vy = _mm256_load_pd(vy);
  }
  s.x = _mm256_add_pd(_mm256_setr_pd(i, i + 1, i + 2, i + 3), _mm256_set1_pd(t.lattice.ox));
  s.y = _mm256_add_pd(_mm256_set1_pd(j), _mm256_set1_pd(t.lattice.oy));
  return s;
}

// The midpoint samples of four traces, u and v at x - s V(x) / 2; false as locate4.
SIMGRAD_AVX2 inline bool midpoints4(const PeriodicTrace& t, const Starts4& s, Sample4& mu, Sample4& mv) {
  const __m256d half = _mm256_set1_pd(0.5 * t.scale);
  const __m256d xm = _mm256_sub_pd(s.x, _mm256_mul_pd(half, s.vx)), ym = _mm256_sub_pd(s.y, _mm256_mul_pd(half, s.vy));
  return sample4(t.u_lattice, xm, ym, t.u, mu) && sample4(t.v_lattice, xm, ym, t.v, mv);
}

// The feet of four traces: q sampled at x - s V, V the start's velocity (Euler) or the midpoint's.
SIMGRAD_AVX2 inline bool feet4(const PeriodicTrace& t, __m256d x, __m256d y, __m256d vx, __m256d vy, const double* q,
                               Sample4& foot) {
  const __m256d s = _mm256_set1_pd(t.scale);
  return sample4(t.lattice, _mm256_sub_pd(x, _mm256_mul_pd(s, vx)), _mm256_sub_pd(y, _mm256_mul_pd(s, vy)), q, foot);
}

// trace_sample at (i .. i + 4 N - 1, j) into out; false (nothing written) as locate4. The N
// groups of four go through each stage together, so their chains of dependent loads overlap.
template <Staggering K, int N, bool kEuler>
SIMGRAD_AVX2 bool trace_groups(const PeriodicTrace& t, const double* q, int i, int j, double* out) {
  Starts4 s[N];
  for (int g = 0; g < N; ++g) s[g] = starts4<K>(t, i + 4 * g, j);
  Sample4 foot[N];
  if constexpr (kEuler) {
    for (int g = 0; g < N; ++g)
      if (!feet4(t, s[g].x, s[g].y, s[g].vx, s[g].vy, q, foot[g])) return false;
  } else {
    Sample4 mu[N], mv[N];
    for (int g = 0; g < N; ++g)
      if (!midpoints4(t, s[g], mu[g], mv[g])) return false;
    for (int g = 0; g < N; ++g)
      if (!feet4(t, s[g].x, s[g].y, interpolated4(mu[g]), interpolated4(mv[g]), q, foot[g])) return false;
  }
  for (int g = 0; g < N; ++g) _mm256_storeu_pd(out + 4 * g, interpolated4(foot[g]));
  return true;
}

// A Sample4's indices and the values a scatter adds there (weights times an adjoint), by lane.
struct Spread4 {
  alignas(32) std::int32_t index[4][4];
  alignas(32) double value[4][4];

  SIMGRAD_AVX2 void set(const Sample4& s, __m256d adjoint) {
    for (int m = 0; m < 4; ++m) {
      _mm_store_si128(reinterpret_cast<__m128i*>(index[m]), s.index[m]);
      _mm256_store_pd(value[m], _mm256_mul_pd(weight4(s, m), adjoint));
    }
  }
  // Lane `lane`'s square added to the band's target.
  void add(BandScatter::Band& band, int target, int lane) const {
    const Index indices[4] = {index[0][lane], index[1][lane], index[2][lane], index[3][lane]};
    const double values[4] = {value[0][lane], value[1][lane], value[2][lane], value[3][lane]};
    band.add_square(target, indices, values);
  }
};

// trace_sample_adjoint at (i .. i + 4 N - 1, j) with output adjoints dout (and the extra adds),
// the traces stage by stage as trace_groups, then scattered one sample after another; false
// (nothing added) as locate4.
template <Staggering K, int N, bool kEuler>
SIMGRAD_AVX2 bool trace_adjoint_groups(BandScatter::Band& band, const PeriodicTrace& t, const double* q,
                                       const double* dout, int q_target, const std::int32_t* extra_index,
                                       const double* extra_value, double* start_x, double* start_y, int i, int j) {
  Starts4 s[N];
  for (int g = 0; g < N; ++g) s[g] = starts4<K>(t, i + 4 * g, j);
  const __m256d minus_scale = _mm256_set1_pd(-t.scale);
  Sample4 mu[N], mv[N], foot[N];
  Spread4 foot_spread[N], mu_spread[N], mv_spread[N];
  alignas(32) double adjoint[N][4];
  if constexpr (kEuler) {
    for (int g = 0; g < N; ++g)
      if (!feet4(t, s[g].x, s[g].y, s[g].vx, s[g].vy, q, foot[g])) return false;
  } else {
    for (int g = 0; g < N; ++g)
      if (!midpoints4(t, s[g], mu[g], mv[g])) return false;
    for (int g = 0; g < N; ++g)
      if (!feet4(t, s[g].x, s[g].y, interpolated4(mu[g]), interpolated4(mv[g]), q, foot[g])) return false;
  }
  for (int g = 0; g < N; ++g) {
    const __m256d a = _mm256_loadu_pd(dout + 4 * g);
    // Zero starts where the adjoint is zero (the scalar path skips those samples).
    const __m256d live = _mm256_cmp_pd(a, _mm256_setzero_pd(), _CMP_NEQ_UQ);
    _mm256_store_pd(adjoint[g], a);
    foot_spread[g].set(foot[g], a);
    const __m256d avx = _mm256_mul_pd(_mm256_mul_pd(minus_scale, along_x4(foot[g])), a);
    const __m256d avy = _mm256_mul_pd(_mm256_mul_pd(minus_scale, along_y4(foot[g])), a);
    if constexpr (kEuler) {
      _mm256_storeu_pd(start_x + 4 * g, _mm256_and_pd(live, avx));
      _mm256_storeu_pd(start_y + 4 * g, _mm256_and_pd(live, avy));
      continue;
    }
    mu_spread[g].set(mu[g], avx);
    mv_spread[g].set(mv[g], avy);
    const __m256d axm = _mm256_add_pd(_mm256_mul_pd(avx, along_x4(mu[g])), _mm256_mul_pd(avy, along_x4(mv[g])));
    const __m256d aym = _mm256_add_pd(_mm256_mul_pd(avx, along_y4(mu[g])), _mm256_mul_pd(avy, along_y4(mv[g])));
    const __m256d minus_half_scale = _mm256_set1_pd(-0.5 * t.scale);
    _mm256_storeu_pd(start_x + 4 * g, _mm256_and_pd(live, _mm256_mul_pd(minus_half_scale, axm)));
    _mm256_storeu_pd(start_y + 4 * g, _mm256_and_pd(live, _mm256_mul_pd(minus_half_scale, aym)));
  }
  for (int g = 0; g < N; ++g)
    for (int lane = 0; lane < 4; ++lane) {
      if (extra_index != nullptr) band.add(q_target, extra_index[4 * g + lane], extra_value[4 * g + lane]);
      if (adjoint[g][lane] == 0.0) continue;
      foot_spread[g].add(band, q_target, lane);
      if constexpr (!kEuler) {
        mu_spread[g].add(band, 0, lane);
        mv_spread[g].add(band, 1, lane);
      }
    }
  return true;
}

// How many groups of four the drivers below try first, then one; as tags for the kernels'
// template arguments, with the trace rule.
constexpr int kWideGroups = 4;
using Wide = std::integral_constant<int, kWideGroups>;
using One = std::integral_constant<int, 1>;
using Euler = std::true_type;
using Midpoint = std::false_type;

}  // namespace

bool vector_traces_available() {
  static const bool available = __builtin_cpu_supports("avx2");
  return available;
}

template <Staggering K>
SIMGRAD_AVX2 void trace_samples_vector(const PeriodicTrace& t, const double* q, double* out, Index first, Index last) {
  const int columns = t.lattice.cx;
  int i = static_cast<int>(first % columns), j = static_cast<int>(first / columns);
  for (Index k = first; k < last;) {
    const Index room = std::min<Index>(columns - i, last - k);
    int done = 1;
    auto groups = [&](auto wide, auto euler) {
      return trace_groups<K, decltype(wide)::value, decltype(euler)::value>(t, q, i, j, out + k);
    };
    if (room >= 4 * kWideGroups && (t.euler ? groups(Wide{}, Euler{}) : groups(Wide{}, Midpoint{})))
      done = 4 * kWideGroups;
    else if (room >= 4 && (t.euler ? groups(One{}, Euler{}) : groups(One{}, Midpoint{})))
      done = 4;
    else
      out[k] = trace_sample<K>(t, q, i, j);
    k += done;
    i += done;
    if (i == columns) {
      i = 0;
      ++j;
    }
  }
}

template <Staggering K>
SIMGRAD_AVX2 void trace_samples_adjoint_vector(BandScatter::Band& band, const PeriodicTrace& t, const double* q,
                                               const double* dout, int q_target, const std::int32_t* extra_index,
                                               const double* extra_value, double* start_x, double* start_y, Index first,
                                               Index last) {
  const int columns = t.lattice.cx;
  int i = static_cast<int>(first % columns), j = static_cast<int>(first / columns);
  for (Index k = first; k < last;) {
    const Index room = std::min<Index>(columns - i, last - k);
    const std::int32_t* extra_indices = extra_index ? extra_index + k : nullptr;
    const double* extra_values = extra_value ? extra_value + k : nullptr;
    auto groups = [&](auto wide, auto euler) {
      return trace_adjoint_groups<K, decltype(wide)::value, decltype(euler)::value>(
          band, t, q, dout + k, q_target, extra_indices, extra_values, start_x + k, start_y + k, i, j);
    };
    int done = 1;
    if (room >= 4 * kWideGroups && (t.euler ? groups(Wide{}, Euler{}) : groups(Wide{}, Midpoint{}))) {
      done = 4 * kWideGroups;
    } else if (room >= 4 && (t.euler ? groups(One{}, Euler{}) : groups(One{}, Midpoint{}))) {
      done = 4;
    } else {
      trace_sample_adjoint_at<K>(band, t, q, dout, q_target, extra_index, extra_value, start_x, start_y, k, i, j);
    }
    k += done;
    i += done;
    if (i == columns) {
      i = 0;
      ++j;
    }
  }
}

#undef SIMGRAD_AVX2

#else  // no AVX2 build: vector_traces_available() is false and the kernels are never called

bool vector_traces_available() { return false; }

template <Staggering K>
void trace_samples_vector(const PeriodicTrace&, const double*, double*, Index, Index) {}

template <Staggering K>
void trace_samples_adjoint_vector(BandScatter::Band&, const PeriodicTrace&, const double*, const double*, int,
                                  const std::int32_t*, const double*, double*, double*, Index, Index) {}

#endif

#define SIMGRAD_INSTANTIATE(K)                                                                                        \
  template void trace_samples_vector<K>(const PeriodicTrace&, const double*, double*, Index, Index);                 \
  template void trace_samples_adjoint_vector<K>(BandScatter::Band&, const PeriodicTrace&, const double*, const double*, \
                                                int, const std::int32_t*, const double*, double*, double*, Index, Index);
SIMGRAD_INSTANTIATE(Staggering::kU)
SIMGRAD_INSTANTIATE(Staggering::kV)
SIMGRAD_INSTANTIATE(Staggering::kCell)
#undef SIMGRAD_INSTANTIATE

}  // namespace simgrad::fluid
