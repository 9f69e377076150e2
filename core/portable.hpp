// Code that kernel bodies call compiles for the host and, under nvcc, for CUDA devices too.
//
// A function marked SIMGRAD_HD is `__host__ __device__` when CUDA compiles it and plain
// otherwise: the physics of a kernel body (its law, its hand-written adjoint, the small vectors
// and matrices and the local reverse-mode scalar it runs on) is written once and serves both.
// Only what a body reaches needs the mark; the host machinery around kernels (partitions,
// threads, checkpoints) stays host code. docs/gpu.md sets out the device backend this prepares.
#pragma once

#if defined(__CUDACC__)
#define SIMGRAD_HD __host__ __device__
#else
#define SIMGRAD_HD
#endif

// SIMGRAD_HD for a small function of an inner loop that must be inlined: the general
// semi-Lagrangian trace's lattice lookups (sims/fluid/grid.hpp) were left as calls, two to five
// a sample, and took 40% of a walled grid's gradient (measured with perf). Inlining does not
// change a result's bits here: the build contracts no multiply-adds (-ffp-contract=off).
#if defined(__CUDACC__)
#define SIMGRAD_HD_INLINE __host__ __device__ __forceinline__
#else
#define SIMGRAD_HD_INLINE [[gnu::always_inline]] inline
#endif

// Whether this compilation pass produces device code (nvcc compiles a .cu file twice: once for
// the host, once for the device).
#if defined(__CUDA_ARCH__)
#define SIMGRAD_DEVICE_PASS 1
#else
#define SIMGRAD_DEVICE_PASS 0
#endif

// Put before a SIMGRAD_HD template that host code also instantiates with host-only types (the
// host's tape): nvcc then does not check those instantiations as if they ran on the device.
#if defined(__CUDACC__)
#define SIMGRAD_HOST_INSTANTIABLE _Pragma("nv_exec_check_disable")
#else
#define SIMGRAD_HOST_INSTANTIABLE
#endif
