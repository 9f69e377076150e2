// Four traces at a time in AVX2 registers: periodic_trace.hpp's trace_sample and
// trace_sample_adjoint, lane by lane the same operations in the same order (floor, wrap,
// weights, sums), so every lane gives the scalar path's bits. The loads and the arithmetic run
// four wide: a stencil row's two values in one 16-byte load a lane (gathers only where a lane's
// square wraps along x). A row is traced in pieces, stage by stage (starts, midpoints, feet),
// each stage a loop over the piece's groups of four, so that many independent loads are in
// flight. The adjoint's scatter stays scalar (one sample after another, as the scalar path adds
// them), and so do the starts of traces at the grid's left and right edges. A lane that the
// scalar path would fold first (a foot a million cells away, or not finite) sends its group of
// four down the scalar path. Indices are 32-bit: Advector uses these kernels only on lattices of
// fewer than 2^31 samples.
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
// For the small helpers: GCC otherwise leaves some out of line in the large kernels, passing
// their vectors through memory.
#define SIMGRAD_AVX2_INLINE __attribute__((target("avx2"), always_inline)) inline
#define SIMGRAD_AVX2_LAMBDA __attribute__((target("avx2"), always_inline))

// Four bilinear samples of a field on a periodic lattice: WrappedSample, one per lane.
struct Sample4 {
  __m128i index[4];
  __m256d value[4];
  __m256d fx, fy;
};

// locate()'s periodic branch for four coordinates: the lower lattice index and the fraction;
// false when a lane lies a million cells away or more, or is not finite.
SIMGRAD_AVX2_INLINE bool locate4(__m256d g, int count, __m128i& i0, __m256d& f) {
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
  return true;
}

// The values f[at[lane]] into `left` and f[at[lane] + 1] into `right`, lane by lane.
SIMGRAD_AVX2_INLINE void load_pairs4(const double* f, __m128i at, __m256d& left, __m256d& right) {
  alignas(16) std::int32_t lane[4];
  _mm_store_si128(reinterpret_cast<__m128i*>(lane), at);
  const __m256d lanes02 = _mm256_insertf128_pd(_mm256_castpd128_pd256(_mm_loadu_pd(f + lane[0])), _mm_loadu_pd(f + lane[2]), 1);
  const __m256d lanes13 = _mm256_insertf128_pd(_mm256_castpd128_pd256(_mm_loadu_pd(f + lane[1])), _mm_loadu_pd(f + lane[3]), 1);
  left = _mm256_unpacklo_pd(lanes02, lanes13);
  right = _mm256_unpackhi_pd(lanes02, lanes13);
}

// The values of f at four lanes' indices, gathered: for squares that wrap along x, which only
// those at a lattice's last column do. Kept out of line, so that the common path stays lean.
SIMGRAD_AVX2 __attribute__((noinline, cold)) void gather4(const double* f, const __m128i* index, __m256d* value) {
  // The masked gather with a zero source: the plain one starts from an undefined register, which
  // GCC reports as used uninitialised.
  const __m256d all = _mm256_castsi256_pd(_mm256_set1_epi64x(-1));
  for (int m = 0; m < 4; ++m) value[m] = _mm256_mask_i32gather_pd(_mm256_setzero_pd(), f, index[m], all, 8);
}

// Samples field f of lattice l at four points (cell units) into s; false as locate4.
SIMGRAD_AVX2_INLINE bool sample4(const Lattice& l, __m256d x, __m256d y, const double* f, Sample4& s) {
  __m128i i0, j0;
  if (!locate4(_mm256_sub_pd(x, _mm256_set1_pd(l.ox)), l.cx, i0, s.fx)) return false;
  if (!locate4(_mm256_sub_pd(y, _mm256_set1_pd(l.oy)), l.cy, j0, s.fy)) return false;
  const __m128i columns = _mm_set1_epi32(l.cx), one = _mm_set1_epi32(1);
  const __m128i j_next = _mm_add_epi32(j0, one);
  const __m128i j1 = _mm_andnot_si128(_mm_cmpeq_epi32(j_next, _mm_set1_epi32(l.cy)), j_next);
  const __m128i at_last_column = _mm_cmpeq_epi32(i0, _mm_set1_epi32(l.cx - 1));
  s.index[0] = _mm_add_epi32(_mm_mullo_epi32(j0, columns), i0);
  s.index[2] = _mm_add_epi32(_mm_mullo_epi32(j1, columns), i0);
  if (_mm_testz_si128(at_last_column, at_last_column)) {
    // No lane wraps along x: each stencil row is two neighbouring values, one 16-byte load a
    // lane (faster than gathers).
    s.index[1] = _mm_add_epi32(s.index[0], one);
    s.index[3] = _mm_add_epi32(s.index[2], one);
    load_pairs4(f, s.index[0], s.value[0], s.value[1]);
    load_pairs4(f, s.index[2], s.value[2], s.value[3]);
  } else {
    // i1 - i0: 1, or 1 - cx where i0 is the last column and i1 wraps to the first.
    const __m128i across = _mm_sub_epi32(one, _mm_and_si128(at_last_column, columns));
    s.index[1] = _mm_add_epi32(s.index[0], across);
    s.index[3] = _mm_add_epi32(s.index[2], across);
    gather4(f, s.index, s.value);
  }
  return true;
}

// WrappedSample::weight(m) in four lanes.
SIMGRAD_AVX2_INLINE __m256d weight4(const Sample4& s, int m) {
  const __m256d one = _mm256_set1_pd(1.0);
  return _mm256_mul_pd(m & 1 ? s.fx : _mm256_sub_pd(one, s.fx), m & 2 ? s.fy : _mm256_sub_pd(one, s.fy));
}

// WrappedSample::interpolated in four lanes.
SIMGRAD_AVX2_INLINE __m256d interpolated4(const Sample4& s) {
  __m256d r = _mm256_mul_pd(weight4(s, 0), s.value[0]);
  for (int m = 1; m < 4; ++m) r = _mm256_add_pd(r, _mm256_mul_pd(weight4(s, m), s.value[m]));
  return r;
}

// WrappedSample(...).interpolated() at four points; false as locate4. Inlined, the stencil's
// indices that the value does not need are never computed.
SIMGRAD_AVX2_INLINE bool interpolate4(const Lattice& l, __m256d x, __m256d y, const double* f, __m256d& value) {
  Sample4 s;
  if (!sample4(l, x, y, f, s)) return false;
  value = interpolated4(s);
  return true;
}

// WrappedSample::along_x in four lanes.
SIMGRAD_AVX2_INLINE __m256d along_x4(const Sample4& s) {
  const __m256d rest = _mm256_sub_pd(_mm256_set1_pd(1.0), s.fy);
  return _mm256_add_pd(_mm256_mul_pd(rest, _mm256_sub_pd(s.value[1], s.value[0])),
                       _mm256_mul_pd(s.fy, _mm256_sub_pd(s.value[3], s.value[2])));
}

// WrappedSample::along_y in four lanes.
SIMGRAD_AVX2_INLINE __m256d along_y4(const Sample4& s) {
  const __m256d rest = _mm256_sub_pd(_mm256_set1_pd(1.0), s.fx);
  return _mm256_add_pd(_mm256_mul_pd(rest, _mm256_sub_pd(s.value[2], s.value[0])),
                       _mm256_mul_pd(s.fx, _mm256_sub_pd(s.value[3], s.value[1])));
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

// Where samples (i .. i + 3, j) of the traced lattice lie (cell units).
SIMGRAD_AVX2_INLINE void start_points4(const PeriodicTrace& t, int i, int j, __m256d& x, __m256d& y) {
  x = _mm256_add_pd(_mm256_setr_pd(i, i + 1, i + 2, i + 3), _mm256_set1_pd(t.lattice.ox));
  y = _mm256_add_pd(_mm256_set1_pd(j), _mm256_set1_pd(t.lattice.oy));
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
  start_points4(t, i, j, s.x, s.y);
  return s;
}

// The first stage of the traces of `groups` groups of four from sample (i, j) on: the points
// they reach, x - s V(x) / 2 (the midpoints) or, for Euler, x - s V(x) (the feet).
template <Staggering K, bool kEuler>
SIMGRAD_AVX2_INLINE void first_stage4(const PeriodicTrace& t, int i, int j, int groups, __m256d* at_x, __m256d* at_y) {
  const __m256d step = _mm256_set1_pd(kEuler ? t.scale : 0.5 * t.scale);
  for (int g = 0; g < groups; ++g) {
    const Starts4 s = starts4<K>(t, i + 4 * g, j);
    at_x[g] = _mm256_sub_pd(s.x, _mm256_mul_pd(step, s.vx));
    at_y[g] = _mm256_sub_pd(s.y, _mm256_mul_pd(step, s.vy));
  }
}

// The feet x - s V of the traces of samples (i .. i + 3, j), V the velocity at their midpoints.
SIMGRAD_AVX2_INLINE void feet4(const PeriodicTrace& t, int i, int j, __m256d vx, __m256d vy, __m256d& foot_x,
                               __m256d& foot_y) {
  const __m256d scale = _mm256_set1_pd(t.scale);
  __m256d x, y;
  start_points4(t, i, j, x, y);
  foot_x = _mm256_sub_pd(x, _mm256_mul_pd(scale, vx));
  foot_y = _mm256_sub_pd(y, _mm256_mul_pd(scale, vy));
}

// How many groups of four the staged forward takes at most from a row at a time.
constexpr int kPieceGroups = 16;

// trace_sample at (i .. i + 4 groups - 1, j) into out (groups <= kPieceGroups), stage by stage
// over the piece: the starts and the midpoints (or, for Euler, the feet), then the midpoints'
// velocity and the feet, then the values there. Only the points reached are kept between the
// stages; each stage is a loop of independent groups, which keeps many loads in flight. A group
// that locate4 refuses is traced one lane at a time by the scalar path.
template <Staggering K, bool kEuler>
SIMGRAD_AVX2 void trace_piece(const PeriodicTrace& t, const double* q, int i, int j, int groups, double* out) {
  __m256d at_x[kPieceGroups], at_y[kPieceGroups];
  bool scalar[kPieceGroups] = {};
  first_stage4<K, kEuler>(t, i, j, groups, at_x, at_y);
  if constexpr (!kEuler) {
    for (int g = 0; g < groups; ++g) {
      __m256d vx, vy;
      if (!interpolate4(t.u_lattice, at_x[g], at_y[g], t.u, vx) || !interpolate4(t.v_lattice, at_x[g], at_y[g], t.v, vy)) {
        scalar[g] = true;
        continue;
      }
      feet4(t, i + 4 * g, j, vx, vy, at_x[g], at_y[g]);
    }
  }
  for (int g = 0; g < groups; ++g) {
    __m256d value;
    if (!scalar[g] && interpolate4(t.lattice, at_x[g], at_y[g], q, value)) {
      _mm256_storeu_pd(out + 4 * g, value);
      continue;
    }
    for (int lane = 0; lane < 4; ++lane) out[4 * g + lane] = trace_sample<K>(t, q, i + 4 * g + lane, j);
  }
}

// What the adjoint keeps of a bilinear sample once taken: the square's indices, the fractions
// (its weights) and the derivatives along x and y.
struct Kept4 {
  __m128i index[4];
  __m256d fx, fy, along_x, along_y;
};

SIMGRAD_AVX2_INLINE Kept4 kept4(const Sample4& s) {
  return {{s.index[0], s.index[1], s.index[2], s.index[3]}, s.fx, s.fy, along_x4(s), along_y4(s)};
}

// Four squares and the values a scatter adds there (weights times an adjoint), lane by lane:
// where (i0, j0) and (i0, j1) lie in the band's window of the target, i1 - i0, and the values.
struct Spread4 {
  alignas(16) std::int32_t lower[4], upper[4], across[4];
  alignas(32) double value[4][4];

  SIMGRAD_AVX2_INLINE void set(const BandScatter::Band::View& window, const __m128i (&square)[4], __m256d fx, __m256d fy,
                               __m256d adjoint) {
    // Band::wrapped for four indices (windows of lattices under 2^31 values).
    const __m128i offset = _mm_set1_epi32(static_cast<std::int32_t>(window.offset));
    auto local = [&](__m128i index) SIMGRAD_AVX2_LAMBDA {
      __m128i k = _mm_sub_epi32(index, offset);
      if (!window.wrap) return k;
      const __m128i size = _mm_set1_epi32(static_cast<std::int32_t>(window.size));
      k = _mm_add_epi32(k, _mm_and_si128(_mm_cmpgt_epi32(_mm_setzero_si128(), k), size));
      return _mm_sub_epi32(k, _mm_andnot_si128(_mm_cmpgt_epi32(size, k), size));
    };
    _mm_store_si128(reinterpret_cast<__m128i*>(lower), local(square[0]));
    _mm_store_si128(reinterpret_cast<__m128i*>(upper), local(square[2]));
    _mm_store_si128(reinterpret_cast<__m128i*>(across), _mm_sub_epi32(square[1], square[0]));
    // WrappedSample::spread in four lanes.
    const __m256d one = _mm256_set1_pd(1.0);
    const __m256d lower_row = _mm256_mul_pd(_mm256_sub_pd(one, fy), adjoint), upper_row = _mm256_mul_pd(fy, adjoint);
    const __m256d rest = _mm256_sub_pd(one, fx);
    _mm256_store_pd(value[0], _mm256_mul_pd(rest, lower_row));
    _mm256_store_pd(value[1], _mm256_mul_pd(fx, lower_row));
    _mm256_store_pd(value[2], _mm256_mul_pd(rest, upper_row));
    _mm256_store_pd(value[3], _mm256_mul_pd(fx, upper_row));
  }
  // Lane `lane`'s square added to the window, as Band::add_square adds it.
  void add(const BandScatter::Band::View& window, int lane) const {
    double* row0 = window.data + lower[lane];
    double* row1 = window.data + upper[lane];
    const int step = across[lane];
    row0[0] += value[0][lane];
    row0[step] += value[1][lane];
    row1[0] += value[2][lane];
    row1[step] += value[3][lane];
  }
};

// How many groups of four the staged adjoint takes at most from a row at a time.
constexpr int kAdjointPieceGroups = 8;

// trace_sample_adjoint at (i .. i + 4 groups - 1, j) (groups <= kAdjointPieceGroups), with
// dout, extra_index, extra_value, start_x and start_y from sample (i, j) on: the traces stage
// by stage as trace_piece, keeping what the adjoint needs of each sample; then the adjoints
// through the feet and midpoints; then the scatter, one sample after another (with the extra
// adds), as the scalar path adds them. A group that locate4 refuses is done by the scalar path,
// in its place in that order. The first group's lanes below first_lane are samples already
// done: their starts are written again (the same bits), nothing else.
template <Staggering K, bool kEuler>
SIMGRAD_AVX2 void trace_adjoint_piece(BandScatter::Band& band, const PeriodicTrace& t, const double* q,
                                      const double* dout, int q_target, const std::int32_t* extra_index,
                                      const double* extra_value, double* start_x, double* start_y, int i, int j,
                                      int groups, int first_lane) {
  constexpr int G = kAdjointPieceGroups;
  const __m256d minus_scale = _mm256_set1_pd(-t.scale), minus_half_scale = _mm256_set1_pd(-0.5 * t.scale);
  __m256d at_x[G], at_y[G];
  Kept4 mu[G], mv[G];
  Spread4 foot_spread[G], mu_spread[G], mv_spread[G];
  bool scalar[G] = {};
  const BandScatter::Band::View q_window = band.view(q_target), u_window = band.view(0), v_window = band.view(1);
  first_stage4<K, kEuler>(t, i, j, groups, at_x, at_y);
  if constexpr (!kEuler) {
    for (int g = 0; g < groups; ++g) {
      Sample4 su, sv;
      if (!sample4(t.u_lattice, at_x[g], at_y[g], t.u, su) || !sample4(t.v_lattice, at_x[g], at_y[g], t.v, sv)) {
        scalar[g] = true;
        continue;
      }
      mu[g] = kept4(su);
      mv[g] = kept4(sv);
      feet4(t, i + 4 * g, j, interpolated4(su), interpolated4(sv), at_x[g], at_y[g]);
    }
  }
  for (int g = 0; g < groups; ++g) {
    Sample4 foot;
    if (scalar[g] || !sample4(t.lattice, at_x[g], at_y[g], q, foot)) {
      scalar[g] = true;
      continue;
    }
    const __m256d a = _mm256_loadu_pd(dout + 4 * g);
    // Zero starts where the adjoint is zero (the scalar path skips those samples).
    const __m256d live = _mm256_cmp_pd(a, _mm256_setzero_pd(), _CMP_NEQ_UQ);
    foot_spread[g].set(q_window, foot.index, foot.fx, foot.fy, a);
    const __m256d avx = _mm256_mul_pd(_mm256_mul_pd(minus_scale, along_x4(foot)), a);
    const __m256d avy = _mm256_mul_pd(_mm256_mul_pd(minus_scale, along_y4(foot)), a);
    if constexpr (kEuler) {
      _mm256_storeu_pd(start_x + 4 * g, _mm256_and_pd(live, avx));
      _mm256_storeu_pd(start_y + 4 * g, _mm256_and_pd(live, avy));
    } else {
      mu_spread[g].set(u_window, mu[g].index, mu[g].fx, mu[g].fy, avx);
      mv_spread[g].set(v_window, mv[g].index, mv[g].fx, mv[g].fy, avy);
      const __m256d axm = _mm256_add_pd(_mm256_mul_pd(avx, mu[g].along_x), _mm256_mul_pd(avy, mv[g].along_x));
      const __m256d aym = _mm256_add_pd(_mm256_mul_pd(avx, mu[g].along_y), _mm256_mul_pd(avy, mv[g].along_y));
      _mm256_storeu_pd(start_x + 4 * g, _mm256_and_pd(live, _mm256_mul_pd(minus_half_scale, axm)));
      _mm256_storeu_pd(start_y + 4 * g, _mm256_and_pd(live, _mm256_mul_pd(minus_half_scale, aym)));
    }
  }
  for (int g = 0; g < groups; ++g)
    for (int lane = g == 0 ? first_lane : 0; lane < 4; ++lane) {
      const int k = 4 * g + lane;
      if (scalar[g]) {
        trace_sample_adjoint_at<K>(band, t, q, dout, q_target, extra_index, extra_value, start_x, start_y, k, i + k, j);
        continue;
      }
      if (extra_index != nullptr) band.add(q_target, extra_index[k], extra_value[k]);
      if (dout[k] == 0.0) continue;
      foot_spread[g].add(q_window, lane);
      if constexpr (!kEuler) {
        mu_spread[g].add(u_window, lane);
        mv_spread[g].add(v_window, lane);
      }
    }
}

// Walks the samples [i0, i1) of a row as the drivers below trace them: pieces of at most `most`
// groups of four, piece(i, groups, 0); then, where fewer than four are left, one group ending at
// i1, piece(i1 - 4, 1, done) with its first `done` lanes already traced; a row shorter than four
// one sample at a time, one(i).
template <class Piece, class One>
void for_row_groups(int i0, int i1, int most, const Piece& piece, const One& one) {
  int i = i0;
  while (i1 - i >= 4) {
    const int groups = std::min(most, (i1 - i) / 4);
    piece(i, groups, 0);
    i += 4 * groups;
  }
  if (i == i1) return;
  if (i1 - i0 >= 4) {
    piece(i1 - 4, 1, i - (i1 - 4));
    return;
  }
  for (; i < i1; ++i) one(i);
}

}  // namespace

bool vector_traces_available() {
  static const bool available = __builtin_cpu_supports("avx2");
  return available;
}

template <Staggering K>
SIMGRAD_AVX2 void trace_samples_vector(const PeriodicTrace& t, const double* q, double* out, Index first, Index last) {
  for_row_pieces(t.lattice.cx, first, last, [&](int j, int i0, int i1) {
    double* row = out + static_cast<Index>(j) * t.lattice.cx;
    // The last group's lanes already done are written again with the same bits.
    for_row_groups(i0, i1, kPieceGroups, [&](int i, int groups, int) {
      if (t.euler) trace_piece<K, true>(t, q, i, j, groups, row + i);
      else trace_piece<K, false>(t, q, i, j, groups, row + i);
    }, [&](int i) { row[i] = trace_sample<K>(t, q, i, j); });
  });
}

template <Staggering K>
SIMGRAD_AVX2 void trace_samples_adjoint_vector(BandScatter::Band& band, const PeriodicTrace& t, const double* q,
                                               const double* dout, int q_target, const std::int32_t* extra_index,
                                               const double* extra_value, double* start_x, double* start_y, Index first,
                                               Index last) {
  for_row_pieces(t.lattice.cx, first, last, [&](int j, int i0, int i1) {
    const Index row = static_cast<Index>(j) * t.lattice.cx;
    for_row_groups(i0, i1, kAdjointPieceGroups, [&](int i, int groups, int done) {
      const Index k = row + i;
      const std::int32_t* extra_indices = extra_index ? extra_index + k : nullptr;
      const double* extra_values = extra_value ? extra_value + k : nullptr;
      if (t.euler)
        trace_adjoint_piece<K, true>(band, t, q, dout + k, q_target, extra_indices, extra_values, start_x + k, start_y + k, i, j,
                                     groups, done);
      else
        trace_adjoint_piece<K, false>(band, t, q, dout + k, q_target, extra_indices, extra_values, start_x + k, start_y + k, i,
                                      j, groups, done);
    }, [&](int i) {
      trace_sample_adjoint_at<K>(band, t, q, dout, q_target, extra_index, extra_value, start_x, start_y, row + i, i, j);
    });
  });
}

#undef SIMGRAD_AVX2
#undef SIMGRAD_AVX2_INLINE
#undef SIMGRAD_AVX2_LAMBDA

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
