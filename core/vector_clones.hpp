// Function multiversioning for loops that vectorise: a function marked SIMGRAD_VECTOR_CLONES is
// compiled twice on x86-64, for the baseline (SSE2) and for AVX2, and the loader picks the
// clone the processor runs. Both clones do the same operations on each element in the same
// order (no fused multiply-adds: the build turns contraction off, and AVX2 does not include
// FMA), so they give the same bits; the wider one just does four at a time.
#pragma once

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__INTEL_COMPILER)
#define SIMGRAD_VECTOR_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define SIMGRAD_VECTOR_CLONES
#endif
