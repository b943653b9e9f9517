// Host-only SIMD kernels for the hottest contiguous-stream loops, written
// once with GCC/Clang vector extensions and compiled three times on x86-64
// -- for the baseline (SSE2, 16-byte vectors), AVX2+FMA (32 bytes) and
// AVX-512 (64 bytes) -- with the variant picked at run time (simd_level()),
// so one wheel is fast on every x86-64 CPU; on aarch64 once, for NEON
// (16-byte vectors, with FMA: the architecture's baseline, so no run-time
// choice).  NUMREDUCE_SIMD=baseline|avx2|avx512 caps the level (tests run
// every variant the CPU has; on aarch64 every value gives NEON).  The
// kernels that stream memory at a few operations an element (min/max, the
// axis-0 row kernels) also have AVX-512 on 32-byte vectors and are picked
// by mem_level(), which looks at the CPU (cpuid; the L1d size from the OS
// decides which axis-0 rows stream whole): see choose_mem_level,
// choose_prefetch, row_stream_bytes; choose_argminmax_width and
// choose_two_sum_rows_at_once are chosen by the CPU too.  Other
// compilers / architectures fall back to the scalar traits loops.  Traits
// headers call these only under NR_HAVE_HOST_SIMD; the CuPy mirror never
// sees this file.  NR_DISABLE_HOST_SIMD (meson -Dsimd=false) turns all of
// it off, the target_clones included: the scalar loops only, as other
// platforms get.
#pragma once

#if !defined(__CUDACC__) && !defined(__CUDACC_RTC__) && (defined(__GNUC__) || defined(__clang__)) && \
    (defined(__x86_64__) || defined(__i386__)) && !defined(NR_DISABLE_HOST_SIMD)
#define NR_HAVE_HOST_SIMD 1
#define NR_SIMD_X86 1
#elif !defined(__CUDACC__) && !defined(__CUDACC_RTC__) && (defined(__GNUC__) || defined(__clang__)) && \
    defined(__aarch64__) && defined(__ARM_NEON) && defined(__ARM_FEATURE_FMA) &&                       \
    defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ && !defined(NR_DISABLE_HOST_SIMD)
#define NR_HAVE_HOST_SIMD 1
#define NR_SIMD_AARCH64 1
#endif
namespace nr {
// The L1d and L2 bytes assumed where the OS does not say (l1d_bytes,
// l2_bytes) and in a build without vector kernels (loops.hpp's
// cache_bytes): 32 KiB and 1 MiB.
constexpr long long kAssumedL1dBytes = 32768, kAssumedL2Bytes = 1ll << 20;
}  // namespace nr
#if defined(NR_HAVE_HOST_SIMD)
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <type_traits>
#include <utility>

#if defined(__unix__) || defined(__APPLE__)
#include <unistd.h>  // sysconf: the L1 data cache's size (row_stream_bytes)
#endif
#if defined(__APPLE__)
#include <sys/sysctl.h>
#endif
#if defined(NR_SIMD_X86)
#include <cpuid.h>      // the CPU's vendor, family and model (cpu_model)
#include <immintrin.h>  // AVX-512's vcvtph2ps (half_lanes), in target("avx512f") code only
// x86 intrinsics inside the kernels' BYTES == 32 / 64 branches: dropped
// where there are none (aarch64), whose one variant never takes them.
#define NR_X86_ONLY(...) __VA_ARGS__
#else
#define NR_X86_ONLY(...)
#endif

#include "traits/common.hpp"  // half16

// Generic (traits-driven) loops compiled for AVX-512, AVX2 and the
// baseline, picked at load time by the dynamic loader (target_clones, an
// ifunc: GCC, and Clang from 14, on x86-64 Linux with glibc -- musl has no
// ifunc; by CPU alone, NUMREDUCE_SIMD does not apply).  Clang takes it on
// member functions of class templates, not on function templates: the
// generic loops are static members.
#if defined(NR_SIMD_X86) && defined(__linux__) && defined(__GLIBC__) && \
    ((defined(__GNUC__) && !defined(__clang__)) || (defined(__clang__) && __clang_major__ >= 14))
#define NR_TARGET_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
// A function such a loop calls out of line, so that it is compiled once for
// the baseline, whatever clone calls it: arithmetic whose FMA contraction
// (-ffp-contract=fast in the AVX2/AVX-512 clones) GCC and Clang would
// choose differently (a * b + c * d) keeps the same bits on both.
#define NR_OUT_OF_CLONES __attribute__((noinline))
#endif
#endif
#ifndef NR_TARGET_CLONES
#define NR_TARGET_CLONES
#endif
#ifndef NR_OUT_OF_CLONES
#define NR_OUT_OF_CLONES
#endif

#if defined(NR_HAVE_HOST_SIMD)

// The variants: X(suffix, vector bytes, function attributes).
#if defined(NR_SIMD_X86)
#define NR_SIMD_VARIANTS(X)                                                      \
    X(base, 16, )                                                                \
    X(avx2, 32, __attribute__((target("avx2,fma"))))                             \
    X(avx512, 64, __attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,fma"))))
// The memory-streaming kernels' one more variant (mem_level 3): AVX-512
// (VL) instructions on 32-byte vectors -- 64-bit integer min/max in one
// instruction (vpminsq/vpminuq), where AVX2 compares and blends -- for the
// CPUs that stream memory faster at 32 bytes (choose_mem_level).
#define NR_SIMD_MEM_VARIANTS(X) \
    X(avx512y, 32, __attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,fma"))))
#else  // aarch64: NEON (Advanced SIMD) with FMA, the baseline
#define NR_SIMD_VARIANTS(X) X(base, 16, )
#endif

namespace nr {
namespace simd {

// Whether the baseline variant (base, 16 bytes) has a fused multiply-add:
// on aarch64, where FMA is part of the baseline (and -ffp-contract=fast
// uses it), not on x86-64's SSE2.
#if defined(NR_SIMD_AARCH64)
constexpr bool BASE_HAS_FMA = true;
#else
constexpr bool BASE_HAS_FMA = false;
#endif

// 0 = baseline (SSE2; NEON on aarch64), 1 = AVX2+FMA, 2 = AVX-512 (F, BW,
// VL, DQ): what the CPU has, capped by the environment variable
// NUMREDUCE_SIMD.
inline int detect_level() {
    int level = 0;
#if defined(NR_SIMD_X86)
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
        level = 1;
        if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
            __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq")) {
            level = 2;
        }
    }
#endif
    if (const char *cap = std::getenv("NUMREDUCE_SIMD")) {
        const int c = !std::strcmp(cap, "baseline") ? 0
                      : !std::strcmp(cap, "avx2")   ? 1
                      : !std::strcmp(cap, "avx512") ? 2
                                                    : 3;  // unknown: no cap
        if (c < level) level = c;
    }
    return level;
}
inline int simd_level() {
    static const int level = detect_level();
    return level;
}
inline const char *simd_level_name() {
#if defined(NR_SIMD_X86)
    static const char *const names[] = {"baseline (SSE2)", "AVX2+FMA", "AVX-512"};
#else
    static const char *const names[] = {"NEON"};
#endif
    return names[simd_level()];
}

// The CPU as cpuid names it: vendor (0 unknown, 1 Intel, 2 AMD), family and
// model (with their extended fields), and its words for show_config().
struct cpu_model {
    int vendor = 0, family = 0, model = 0;
    char text[64] = "unknown";
    // AMD family 19h (Zen 3, Zen 4): the CPU of the AMD rules below
    // (choose_mem_level, choose_prefetch, choose_argminmax_width), each
    // measured on Zen 4, whose AVX-512 runs 512-bit operations as two
    // 256-bit halves
    bool amd_19h() const { return vendor == 2 && family == 0x19; }
};
inline cpu_model read_cpu_model() {
    cpu_model c;
#if defined(NR_SIMD_X86)
    unsigned a, b, cx, d;
    if (!__get_cpuid(0, &a, &b, &cx, &d)) return c;
    char v[13];
    std::memcpy(v, &b, 4);
    std::memcpy(v + 4, &d, 4);
    std::memcpy(v + 8, &cx, 4);
    v[12] = 0;
    c.vendor = !std::strcmp(v, "GenuineIntel") ? 1 : !std::strcmp(v, "AuthenticAMD") ? 2 : 0;
    if (__get_cpuid(1, &a, &b, &cx, &d)) {
        const unsigned fam = (a >> 8) & 0xf, mod = (a >> 4) & 0xf;
        c.family = (int)(fam == 0xf ? fam + ((a >> 20) & 0xff) : fam);
        c.model = (int)(fam == 0x6 || fam == 0xf ? mod | (((a >> 16) & 0xf) << 4) : mod);
    }
    std::snprintf(c.text, sizeof c.text, "%s family %xh model %xh", v, c.family, c.model);
#elif defined(NR_SIMD_AARCH64)
    std::snprintf(c.text, sizeof c.text, "aarch64");
#endif
    return c;
}
inline const cpu_model &cpu() {
    static const cpu_model c = read_cpu_model();
    return c;
}

// The level of the kernels that stream memory at a few operations an
// element: the min/max family (minmax, minmax_cols, minmax_rows, find_eq:
// argminmax's blocked pass) and the axis-0 TwoSum kernels (two_sum_stream,
// two_sum_cols: the wide rows' tiles, 4.5 ms at 32 bytes against 5.1 at 64
// for a (4000, 4000) float64 fsum over axis 0 on Zen 4).  simd_level(),
// but AVX-512's instructions on 32-byte vectors (avx512y) on CPUs whose
// AVX-512 executes 512-bit operations as two 256-bit halves and whose
// memory then streams slower with 64-byte vectors: AMD family 19h (Zen 4).
// Measured on an EPYC of that family (one thread, prefetch off, 32 against
// 64 bytes): fsum over axis 0 of a (40000, 250) float64 block 2.45 ms
// against 3.4, minmax over axis 0 of (40000, 250) 3.3 against 3.7 and of
// (4000, 2500) 2.9 against 3.5, 1e7 int64 minmax 1.9 against 2.5 (AVX2,
// with no 64-bit integer min/max, 2.2: hence AVX-512VL's vpminsq at 32
// bytes); 1-D float minmax / argminmax of 1e7 the same at both widths
// (1.85-1.9 ms float64, np.max 1.9).  (With software prefetch on, the
// 64-byte 1-D kernels were 1.4x slower: see prefetch_bytes.)  The
// value-and-index argminmax kernel keeps simd_level() (rows of 2500:
// 2.31 ms at 64 bytes against 2.54), as do the compute-bound kernels
// (TwoSum lanes, moments, exp).  Every level gives the same bits, so the choice is
// speed alone.  NUMREDUCE_STREAM_WIDTH=64|32|16 sets the width instead (at
// most simd_level(): NUMREDUCE_SIMD and the CPU still cap it; 32 under
// AVX-512 is avx512y); "auto" or unset: this rule.
struct mem_choice {
    int level;
    const char *why;
    bool set = false;  // by NUMREDUCE_STREAM_WIDTH
};
// Levels: 0-2 as simd_level(), 3 = AVX-512 on 32-byte vectors (the
// avx512y variant: AVX-512 VL instructions, AVX2's width).
inline mem_choice choose_mem_level() {
    const int level = simd_level();
    if (const char *w = std::getenv("NUMREDUCE_STREAM_WIDTH")) {
        const int want = !std::strcmp(w, "64") ? 2 : !std::strcmp(w, "32") ? 1 : !std::strcmp(w, "16") ? 0 : -1;
        if (want >= 0) {
            const int l = want < level ? want : level;
            return {l == 1 && level == 2 ? 3 : l, "set by NUMREDUCE_STREAM_WIDTH", true};
        }
    }
    if (level == 2 && cpu().amd_19h()) {
        return {3, "AMD family 19h (Zen 4) runs 512-bit operations as two 256-bit halves; "
                   "its axis-0 and int64 kernels ran 1.1-1.4x faster at 32 bytes than at 64 "
                   "from memory; fsum's axis-0 tiles from the L2 keep 64 (compute-bound there)"};
    }
    return {level, "the widest level of simd_kernels"};
}
// The vector bytes and instruction set of a mem_level().
inline const char *mem_level_name(int level) {
#if defined(NR_SIMD_X86)
    static const char *const names[] = {"16-byte vectors, SSE2", "32-byte vectors, AVX2",
                                        "64-byte vectors, AVX-512", "32-byte vectors, AVX-512VL"};
    return names[level];
#else
    (void)level;
    return "16-byte vectors, NEON";
#endif
}
inline int mem_level() {
    static const int level = choose_mem_level().level;
    return level;
}
inline bool mem_level_set() {
    static const bool set = choose_mem_level().set;
    return set;
}

// A cache's size as the OS reports it (level 1: the L1 data cache, 2: the
// L2), 0 where it says nothing.
inline long long os_cache_bytes(int level) {
    long long v = 0;
#if defined(_SC_LEVEL1_DCACHE_SIZE) && defined(_SC_LEVEL2_CACHE_SIZE)
    v = (long long)sysconf(level == 1 ? _SC_LEVEL1_DCACHE_SIZE : _SC_LEVEL2_CACHE_SIZE);
#elif defined(__APPLE__)
    size_t len = sizeof v;
    if (sysctlbyname(level == 1 ? "hw.l1dcachesize" : "hw.l2cachesize", &v, &len, nullptr, 0) != 0) v = 0;
#else
    (void)level;
#endif
    return v > 0 ? v : 0;
}
// The L1d and the L2 the kernels assume: the OS's, else kAssumed*Bytes.
inline long long l1d_bytes() {
    static const long long v = os_cache_bytes(1) > 0 ? os_cache_bytes(1) : kAssumedL1dBytes;
    return v;
}
inline long long l2_bytes() {
    static const long long v = os_cache_bytes(2) > 0 ? os_cache_bytes(2) : kAssumedL2Bytes;
    return v;
}
// The bytes of the whole axis-0 reduction that a rows_reduce call is part
// of (the engine sets it around its calls, one slab at a time for a middle
// axis; 0: the call alone).  Rows stream whole (row_stream_bytes) only where
// that reduction is larger than the L2: from cache, the register tiles'
// one load an element beat the streams' three loads and two stores
// (Zen 4, (100, 1000) float64 over axis 0: minmax 10.7 us in tiles against
// 32.6 streamed, fsum 26 against 40), from memory the streams win (see
// row_stream_bytes).
inline thread_local long long rows_total_bytes = 0;
inline bool rows_from_memory(long long call_bytes) {
    return (rows_total_bytes > call_bytes ? rows_total_bytes : call_bytes) > l2_bytes();
}
// The widest accumulator rows (bytes, all outputs together) that the
// axis-0 row-block kernels (minmax_rows, two_sum_stream) stream whole
// rows past: half the L1 data cache (l1d_bytes), so that the accumulators
// stay in L1 while the data stream in memory order -- the hardware prefetchers' easiest pattern.  Wider rows
// take the register tiles (minmax_cols, two_sum_cols), whose accumulators
// would not fit: a tile reads a short piece of each of 16 rows, which on
// narrow rows the prefetchers did not follow (a (40000, 250) float64
// block over axis 0: 0.90 ns an element in tiles, 0.27 from L2, np.sum
// 0.32, on a Zen 4 with 32 KiB L1d).
inline long long row_stream_bytes() { return l1d_bytes() / 2; }

// The software prefetch distance of the 1-D streaming kernels (min/max,
// argminmax, TwoSum lanes) and of the strided gathers (loops.hpp's
// gather_k: x[::2] of 2e7 float64 on Zen 4, minmax 5.65 ms without it
// against 6.65, fsum 6.5 against 7.5-8.0), in bytes; 0: none, the hardware
// prefetchers alone.  (The axis-0 column tiles prefetch within their rows whatever
// this says: a tile reads a short piece of each of 16 rows, and without
// it a (4000, 2500) float64 fsum over axis 0 took 10.9 ms against 3.8 on
// the same Zen 4.)  4 KiB, measured on Intel (Sapphire Rapids: 1.2-1.4x faster past
// the L2, see minmax_ahead); none on AMD family 19h, where it cost
// (Zen 4, 1e7 elements from memory, one thread: minmax float32 1.15 ms
// with it against 1.05 without, fsum float64 2.7 against 2.5, argminmax
// float64 2.7 against 2.4).  NUMREDUCE_PREFETCH=on|off sets it instead.
struct prefetch_choice {
    long long bytes;
    const char *why;
};
inline prefetch_choice choose_prefetch() {
    if (const char *p = std::getenv("NUMREDUCE_PREFETCH")) {
        if (!std::strcmp(p, "on")) return {4096, "set by NUMREDUCE_PREFETCH"};
        if (!std::strcmp(p, "off")) return {0, "set by NUMREDUCE_PREFETCH"};
    }
    if (cpu().amd_19h()) {
        return {0, "AMD family 19h: the hardware prefetchers alone were faster (measured on Zen 4)"};
    }
#if defined(NR_SIMD_AARCH64)
    return {4096, "the x86 default (not measured on ARM)"};
#else
    return {4096, "the default (measured on Intel Sapphire Rapids: 1.2-1.4x past the L2)"};
#endif
}
inline const long long g_prefetch_bytes = choose_prefetch().bytes;
inline long long prefetch_bytes() { return g_prefetch_bytes; }
// Rows of `bytes` bytes, `stride` bytes apart, read one after the other by
// a kernel per row: a row shorter than the prefetch distance never reaches
// the kernels' own prefetches, so the caller prefetches the row this many
// rows ahead (prefetch_span) before each row; 0: none (prefetch off, rows
// as long as the distance, or not in increasing order).  Out of memory on
// an Intel Sapphire Rapids class Xeon, one thread, 1e7 float64 in rows of
// 100: argminmax 11.5 -> 6.7 ms; minmax 5.3-7.0 -> 4.2-4.5 ms (the minmax
// figures taken while another job ran on the second core).
inline long long rows_prefetch_ahead(long long bytes, long long stride) {
    const long long d = prefetch_bytes();
    return d > 0 && bytes > 0 && stride >= bytes && stride < d ? (d + stride - 1) / stride : 0;
}
inline void prefetch_span(const char *p, long long bytes) {
    for (long long b = 0; b < bytes; b += 64) __builtin_prefetch(p + b);
}

// 1, read through a volatile so that the compiler cannot fold x * one:
// the kernels write some of their additions as x * one + y, which the
// compiler contracts (-ffp-contract=fast) into a fused multiply-add where the
// variant has FMA -- exactly fl(x + y), one rounding of an exact product
// plus y -- so that on CPUs whose adders and FMA units are separate pipes
// (AMD Zen: two of each) the adds of the TwoSum and moments loops spread
// over both.  Without contraction it is a multiply by 1 and the same add.
template <class A>
inline A opaque_one() {
    static volatile A one = A(1);
    return one;
}

// Keep a loaded vector in a register.  GCC folds a vector load into every
// instruction that uses it, so a min/max step (vpminsw and vpmaxsw, each with
// its memory operand) loaded every vector twice; integer min/max at L2
// sizes then ran 1.15x a max-only loop at AVX2 (one load: 0.73-0.80x).
#if defined(NR_SIMD_X86)
#define NR_IN_REGISTER(v) __asm__("" : "+x"(v))
#else
#define NR_IN_REGISTER(v) __asm__("" : "+w"(v))  // aarch64's SIMD&FP registers
#endif
// A product kept apart from the sum that uses it (no fused multiply-add
// under -ffp-contract=fast): the value must be in a register of its own.
// "v" on x86 (any of AVX-512's 32 registers, xmm0-15 below it).
#if defined(NR_SIMD_X86)
#define NR_UNFUSED(v) __asm__("" : "+v"(v))
#else
#define NR_UNFUSED(v) __asm__("" : "+w"(v))
#endif

// Elements of T ahead of the min/max kernel's loads that it prefetches, one
// cache line per vector group: 4 KiB where software prefetch is on
// (prefetch_bytes), else none (a distance no index reaches).  Past the L2
// (1e7 float64: 80 MB) on a Sapphire Rapids the kernel read 20-24 GB/s
// against np.max's 28 (1.20-1.40x its time); 2 KiB gave 1.01-1.05x at
// AVX-512, but AVX2 float64 still 0.33-0.40 ns an element and int64
// 1.04-1.21x float64's time; at 4 KiB both levels read 0.27-0.29 ns an
// element (huge pages), int64 0.98-1.05x float64.  1 KiB gave 1.11x.  Same
// bits (no arithmetic changes).
template <class T>
inline long long minmax_ahead() {
    return prefetch_bytes() > 0 ? prefetch_bytes() / (long long)sizeof(T) : (1ll << 62);
}

// Vectors in flight per loop step of the min/max kernels.
constexpr int MINMAX_UNROLL = 4;

// Room for the min/max kernel's lane outputs for T: 16 bytes of lanes, as
// every variant writes them (a kernel returns how many lanes it wrote).
template <class T>
constexpr int minmax_lanes() {
    return 16 / (int)sizeof(T);
}

// The lanes of the min/max kernel for T: T itself, or for float16 the int16
// order keys of its bits (half_key).
template <class T>
struct minmax_lane {
    typedef T type;
};
template <>
struct minmax_lane<half16> {
    typedef short type;
};

// float16 bits as an int16 key in the order of the values: the magnitude
// bits, negated for a negative sign.  Both zeros key 0 (they compare equal);
// the keys of NaNs lie beyond +-0x7c00 (the infinities), a NaN's sign
// deciding the side.  half_of_key is the value of a non-NaN key (+0.0 for 0).
inline short half_key(half16 h) {
    const short m = (short)(h.bits & 0x7fffu);
    return (h.bits & 0x8000u) ? (short)-m : m;
}
inline half16 half_of_key(short k) {
    return k >= 0 ? half16{(unsigned short)k} : half16{(unsigned short)(0x8000u | (unsigned)-k)};
}
constexpr short HALF_INF_KEY = 0x7c00;

// The first i in [0, n) whose float16 bits satisfy pred (a zero, a NaN), or
// n: chunks or-ed branch-free (the loop vectorises), the matching chunk
// searched in order.
template <class P>
inline long long half_first(const half16 *x, long long n, P pred) {
    constexpr long long C = 256;
    for (long long c = 0; c < n; c += C) {
        const long long e = n - c < C ? n : c + C;
        int any = 0;
        for (long long i = c; i < e; i++) any |= (int)pred(x[i].bits);
        if (!any) continue;
        for (long long i = c; i < e; i++) {
            if (pred(x[i].bits)) return i;
        }
    }
    return n;
}
inline long long half_first_nan(const half16 *x, long long n) {
    return half_first(x, n, [](unsigned short b) { return (b & 0x7fffu) > 0x7c00u; });
}
inline long long half_first_zero(const half16 *x, long long n) {
    return half_first(x, n, [](unsigned short b) { return (b & 0x7fffu) == 0; });
}

// Elements of T ahead of the TwoSum lanes' loads that the stream
// prefetches, every cache line of a step (prefetch_lines): 4 KiB where
// software prefetch is on (prefetch_bytes), else none.  Out of cache on a
// Sapphire Rapids, the lanes' dependency chains kept too few loads in
// flight: without it a 1e7 int64 sum (converted in the loop) took 9.2 ms
// against 5.1 ms for float64 at AVX-512, and the AVX2 float64 sum 6.0 ms.
// 1 KiB (one line a step: every other line at AVX-512) gave 0.42-0.45 ns
// an element at 1e7 (huge pages), 4 KiB of every line 0.28-0.31 at AVX2
// and AVX-512, int64 included (0.98-1.07x float64's time); 8 KiB no better.
template <class T>
inline long long two_sum_ahead() {
    return minmax_ahead<T>();
}
// Rows the TwoSum rows kernel (two_sum_rows) steps at once, their steps
// interleaved (each row's arithmetic its own: the same bits for any count),
// chosen by the CPU:
//  - Intel (a Sapphire Rapids class Xeon, cpuid model a7h under KVM): two,
//    rows of float64 from the L2, ns a row against one at a time: n = 100
//    28.9 against 30.1, 256 44.1 against 47.5, 512 73.3 against 80.5.
//  - AMD family 19h (Zen 4, AVX-512, one thread): one -- two at once were
//    slower everywhere, most from memory: (100000, 100) float64 along
//    axis 1 12.2 ms against 4.9, (4000, 2500) 4.2 against 2.8 (float32
//    2.7 against 1.4), (200, 200, 250) over axes (0, 2) 9.2 against 3.8;
//    from the L2 rows of 100 float64 42 ns a row against 33, 32 elements
//    21 against 17.
// Other CPUs (not measured) take one, the choice whose worst case is the
// smaller.  NUMREDUCE_ROWS_AT_ONCE=1|2 sets it instead (the tests run both).
struct rows_at_once_choice {
    int rows;
    const char *why;
};
inline rows_at_once_choice choose_two_sum_rows_at_once() {
    if (const char *p = std::getenv("NUMREDUCE_ROWS_AT_ONCE")) {
        if (!std::strcmp(p, "1")) return {1, "set by NUMREDUCE_ROWS_AT_ONCE"};
        if (!std::strcmp(p, "2")) return {2, "set by NUMREDUCE_ROWS_AT_ONCE"};
    }
    if (cpu().vendor == 1) return {2, "Intel: faster from the L2 (measured on Sapphire Rapids)"};
    return {1, cpu().amd_19h() ? "AMD family 19h: two at once were 1.3-2.5x slower (measured on Zen 4)"
                               : "two at once measured faster on Intel only"};
}
inline int two_sum_rows_at_once() {
    static const int r = choose_two_sum_rows_at_once().rows;
    return r;
}

// Prefetch every cache line of the SPAN bytes at p (one line where SPAN is
// shorter).
template <long long SPAN>
inline __attribute__((always_inline)) void prefetch_lines(const void *p) {
    for (long long b = 0; b < SPAN; b += 64) __builtin_prefetch((const char *)p + b);
}

// Whether the float64-lane kernels (shift_store, max, sum_exp,
// two_sum into float64) read T: float64, float32, float16 and the integer
// types, bool (npy_bool) included (their load_* conversions are the scalar
// to_real<double>'s).
template <class T>
struct f64_lanes {
    static constexpr bool value = std::is_same<T, double>::value || std::is_same<T, float>::value ||
                                  std::is_same<T, half16>::value || std::is_integral<T>::value;
};

// One vector v into the lanes (lo, hi, na): vector min/max selects, and
// per lane a NaN seen (propagating) or a number seen (SKIP).  No select
// depends on a NaN test of the previous step.
#define NR_MINMAX_STEP(SUFFIX, BYTES, ATTR)                                           \
    /* The element maps of the TwoSum kernels (common.hpp's id_map, square_map: */  \
    /* the traits' maps) on a vector of lanes: square_map's products rounded */      \
    /* each on its own, as np.square rounds them, and pinned in a register so */     \
    /* that none is contracted into an FMA with the add that follows (the bits */    \
    /* of the TwoSum kernels over np.square(x)).  The scalar tails and redone */     \
    /* columns map with M::one(): the same IEEE products.  Per variant: the */       \
    /* register pin of a wide vector needs the variant's ISA. */                     \
    template <class M, class V>                                                       \
    ATTR __attribute__((always_inline)) inline V vmap_##SUFFIX(V v) {                 \
        if constexpr (std::is_same<M, square_map>::value) {                           \
            V p = v * v;                                                              \
            NR_IN_REGISTER(p);                                                        \
            return p;                                                                 \
        } else {                                                                      \
            static_assert(std::is_same<M, id_map>::value, "a map of common.hpp");     \
            return v;                                                                 \
        }                                                                             \
    }                                                                                 \
    /* One TwoSum step of a vector of lanes: (s, c) += v, s rounded, c */            \
    /* collecting the exact error; three of its adds on the FMA pipes (x * */         \
    /* one + y, opaque_one: one = 1, mone = -1) -- the three whose operand */         \
    /* the FMA overwrites is dead after it (s - e1, v - b, c + e): FMA */            \
    /* destroys an operand, and t = s + v, b = t - s, e1 = t - b on it cost a */       \
    /* register copy each (16 a step of four vectors), which at 64 bytes */           \
    /* share the two vector ports with the arithmetic (Intel SPR class, */            \
    /* fsum of 100 x 1000 float64 along axis 0: 0.25 ns an element, 0.22 */           \
    /* without them) */                                                               \
    template <class V>                                                                \
    ATTR __attribute__((always_inline)) inline void two_sum_vec_##SUFFIX(V &s, V &c, V v, V one, \
                                                                        V mone) {     \
        const V t = s + v, b = t - s, e1 = t - b;                                     \
        const V e2 = e1 * mone + s, e3 = b * mone + v; /* s - e1, v - b */            \
        c = (e2 + e3) * one + c;                                                      \
        s = t;                                                                        \
    }                                                                                 \
    /* Whether any lane of the mask m is set (its words ORed) */                     \
    template <class VM>                                                              \
    ATTR inline __attribute__((always_inline)) bool any_lane_##SUFFIX(const VM &m) { \
        static_assert(sizeof(VM) % 8 == 0, "whole 64-bit words");                    \
        unsigned long long w[sizeof(VM) / 8], any = 0;                               \
        std::memcpy(w, &m, sizeof(VM));                                              \
        for (unsigned j = 0; j < sizeof(VM) / 8; j++) any |= w[j];                   \
        return any != 0;                                                             \
    }                                                                                \
    /* The lanes of a TwoSum state (s, c) that overflowed inside: finite */          \
    /* s, non-finite error; c set to 0 where s is not finite */                      \
    template <class A, class V>                                                      \
    ATTR inline __attribute__((always_inline)) auto two_sum_bad_##SUFFIX(V s, V &c) { \
        const auto fin = s - s == (A)0;                                              \
        const auto bad = fin & (c - c != (A)0);                                      \
        c = fin ? c : V{};                                                           \
        return bad;                                                                  \
    }                                                                                \
    template <bool SKIP, class V>                                                     \
    ATTR __attribute__((always_inline)) inline void minmax_step_##SUFFIX(V &lo, V &hi, V &na, \
                                                                        V v) {        \
        lo = v < lo ? v : lo;                                                         \
        hi = v > hi ? v : hi;                                                         \
        if (SKIP) na = v == v ? v : na;                                               \
        else na = v != v ? v : na;                                                    \
    }                                                                                 \
    /* float16 bits v (int16 lanes) as half_key order keys for the min side (a) */  \
    /* and the max side (b): propagating, NaN keys as they are (beyond the */        \
    /* infinities); skipping, a NaN keys the side's neutral value instead */         \
    template <bool SKIP, class V>                                                     \
    ATTR __attribute__((always_inline)) inline void half_keys_##SUFFIX(V v, V &a, V &b) { \
        const V m = v & (short)0x7fff, s = v >> 15;                                   \
        const V key = (m ^ s) - s;                                                    \
        if (SKIP) {                                                                   \
            const auto nan = m > HALF_INF_KEY;                                        \
            a = nan ? (V{} + (short)0x7fff) : key;                                    \
            b = nan ? (V{} + (short)-0x8000) : key;                                   \
        } else {                                                                      \
            a = b = key;                                                              \
        }                                                                             \
    }                                                                                 \
    /* The lanes of (lo, hi, na) halved down to the first 16 bytes: lanes j */    \
    /* and j + D (D lanes: half the part still in play) merged into lane j */       \
    /* with the kernel's compare-selects (ties keep lane j), the NaN lanes as */     \
    /* the U vectors merge; in registers (lanes_swapped: one shuffle each) */        \
    template <bool SKIP, bool KEYS, int D, class V>                                   \
    ATTR __attribute__((always_inline)) inline void minmax_halve_##SUFFIX(V &lo, V &hi, V &na) { \
        constexpr int L = (int)(sizeof(V) / sizeof(lo[0]));                           \
        const auto J = std::make_integer_sequence<int, L>();                          \
        V a, b;                                                                       \
        lanes_swapped<D>(a, lo, J);                                                   \
        lanes_swapped<D>(b, hi, J);                                                   \
        lo = a < lo ? a : lo;                                                         \
        hi = b > hi ? b : hi;                                                         \
        if constexpr (!KEYS) {                                                        \
            V c;                                                                      \
            lanes_swapped<D>(c, na, J);                                               \
            if (SKIP) na = na == na ? na : c;                                         \
            else na = na != na ? na : c;                                              \
        }                                                                             \
        if constexpr (D * sizeof(lo[0]) > 16) minmax_halve_##SUFFIX<SKIP, KEYS, D / 2>(lo, hi, na); \
    }                                                                                 \
    /* one vector into the lanes: T's own, or float16 (KEYS) by its keys */          \
    template <bool SKIP, bool KEYS, class V>                                          \
    ATTR __attribute__((always_inline)) inline void minmax_vec_##SUFFIX(V &lo, V &hi, V &na, \
                                                                       V v) {         \
        if constexpr (KEYS) {                                                         \
            V a, b;                                                                   \
            half_keys_##SUFFIX<SKIP>(v, a, b);                                        \
            lo = a < lo ? a : lo;                                                     \
            hi = b > hi ? b : hi;                                                     \
        } else {                                                                      \
            minmax_step_##SUFFIX<SKIP>(lo, hi, na, v);                                \
        }                                                                             \
    }

// min / max / "a NaN seen" of the whole of x[0..n): lanes of BYTES-wide
// vectors, U vectors per step from the first BYTES boundary, then single
// vectors, the last one ending at n (the head and the tail overlap the
// steps: min/max are idempotent).  The selects are exactly vector min/max
// instructions; NaNs are remembered in their own lanes, so the caller can
// reproduce np.minimum/np.maximum (NaN wins) from (lo, hi, nan) with scalar
// code.  With SKIP (np.fmin/np.fmax) lanes start at +inf/-inf where the
// first element is NaN and the third output holds, per lane, some non-NaN
// element seen (NaN: the lane saw only NaNs): the caller takes lo/hi of
// lanes that saw a number.  float16 data (minmax_lane: KEYS) run in int16
// lanes of half_key keys instead: the lo/hi lanes are the keys' min/max
// (propagating: a NaN key lies beyond +-HALF_INF_KEY; skipping: NaNs key the
// neutral values, so a lo key above HALF_INF_KEY means only NaNs) and the
// third output is not written.  The vector's lanes are halved down to 16
// bytes before they are written (minmax_halve: the upper half merged into
// the lower with the same compare-selects), so the callers fold few lanes
// (minmax.hpp fold_lanes).  Returns the number of lanes written, or 0
// (touching nothing) when n is shorter than one step.
#define NR_MINMAX_KERNEL(SUFFIX, BYTES, ATTR)                                         \
    template <class T, bool SKIP>                                                     \
    ATTR int minmax_##SUFFIX(const T *x, long long n, typename minmax_lane<T>::type *lo_out, \
                             typename minmax_lane<T>::type *hi_out,                   \
                             typename minmax_lane<T>::type *nan_out) {                \
        typedef typename minmax_lane<T>::type E;                                      \
        constexpr bool KEYS = !std::is_same<E, T>::value;                             \
        static_assert(sizeof(E) == sizeof(T), "lanes of the element's width");        \
        constexpr int W = BYTES / (int)sizeof(T), U = MINMAX_UNROLL;                  \
        /* 64-bit unsigned lanes without vpminuq/vpmaxuq (below AVX-512): */         \
        /* signed lanes of x - 2**63 (the top bit flipped once per load), */          \
        /* not GCC's flip of both operands in every compare */                        \
        constexpr bool BIAS = std::is_unsigned<T>::value && sizeof(T) == 8 && BYTES < 64; \
        typedef typename std::conditional<BIAS, long long, E>::type L;                \
        constexpr L FLIP = (L)(BIAS ? 1ull << 63 : 0);                                \
        typedef L V __attribute__((vector_size(BYTES)));                              \
        if (n < U * W) return 0;                                                      \
        V lo[U], hi[U], na[U];                                                        \
        for (int u = 0; u < U; u++) {                                                 \
            std::memcpy(&lo[u], x + u * W, BYTES);                                    \
            if constexpr (BIAS) lo[u] ^= FLIP;                                        \
            hi[u] = na[u] = lo[u];                                                    \
            if constexpr (KEYS) {                                                     \
                half_keys_##SUFFIX<SKIP>(na[u], lo[u], hi[u]);                        \
            } else if constexpr (SKIP && (T)0.5 != (T)0) { /* floats: NaN lanes to +-inf */ \
                const V inf = (V){} + (T)__builtin_huge_val();                        \
                lo[u] = lo[u] != lo[u] ? inf : lo[u];                                 \
                hi[u] = hi[u] != hi[u] ? -inf : hi[u];                                \
            }                                                                         \
        }                                                                             \
        const unsigned mis = (unsigned)((unsigned long long)x % BYTES);               \
        long long k = mis == 0 || mis % sizeof(T) ? U * W : (BYTES - mis) / sizeof(T); \
        const long long ahead = minmax_ahead<T>();                                    \
        for (; k + U * W <= n; k += U * W) {                                          \
            for (int u = 0; u < U; u++) {                                             \
                if ((u * BYTES) % 64 == 0 && k + ahead < n)                           \
                    __builtin_prefetch(x + k + u * W + ahead);                        \
                V v;                                                                  \
                std::memcpy(&v, x + k + u * W, BYTES);                                \
                NR_IN_REGISTER(v);                                                    \
                if constexpr (BIAS) v ^= FLIP;                                        \
                minmax_vec_##SUFFIX<SKIP, KEYS>(lo[u], hi[u], na[u], v);              \
            }                                                                         \
        }                                                                             \
        /* the rest one vector at a time, the last one overlapping */               \
        for (bool last = false; k < n; k = last ? n : k + W) {                        \
            last = k + W >= n;                                                        \
            V v;                                                                      \
            std::memcpy(&v, x + (last ? n - W : k), BYTES);                           \
            if constexpr (BIAS) v ^= FLIP;                                            \
            minmax_vec_##SUFFIX<SKIP, KEYS>(lo[0], hi[0], na[0], v);                  \
        }                                                                             \
        /* fold the U vectors into one (NaN information stays in na) */           \
        for (int u = 1; u < U; u++) {                                                 \
            lo[0] = lo[u] < lo[0] ? lo[u] : lo[0];                                    \
            hi[0] = hi[u] > hi[0] ? hi[u] : hi[0];                                    \
            if constexpr (KEYS) continue;                                             \
            if (SKIP) na[0] = na[u] == na[u] ? na[u] : na[0];                         \
            else na[0] = na[u] != na[u] ? na[u] : na[0];                              \
        }                                                                             \
        /* the lanes halved down to 16 bytes (the callers' fold: 4 float32 */      \
        /* lanes, not 16) */                                                          \
        if constexpr (BYTES > 16) minmax_halve_##SUFFIX<SKIP, KEYS, W / 2>(lo[0], hi[0], na[0]); \
        constexpr int W16 = (BYTES > 16 ? 16 : BYTES) / (int)sizeof(T);               \
        for (int j = 0; j < W16; j++) {                                               \
            if constexpr (BIAS) {                                                     \
                lo[0][j] ^= FLIP;                                                     \
                hi[0][j] ^= FLIP;                                                     \
            }                                                                         \
            lo_out[j] = (E)lo[0][j];                                                  \
            hi_out[j] = (E)hi[0][j];                                                  \
            if constexpr (!KEYS) nan_out[j] = na[0][j];                               \
        }                                                                             \
        return W16;                                                                   \
    }

// Column tiles of a row-major block reduced over its rows (axis 0),
// NaN-propagating: the accumulators lo/hi (one per column, holding the
// start values) stay in registers while all rows stream past, 4 vectors of
// columns at a time.  Returns the number of leading columns done (a
// multiple of the tile); the caller finishes the rest.
/* SKIP (fmin/fmax, floats): a NaN element is skipped (the compares keep the */
/* state), and a NaN state -- nothing but NaN seen so far -- starts from the */
/* side's infinity and is put back where the tile's rows held no number: */
/* order_ops<true>'s results, bit for bit */
#define NR_COLS_KERNEL(SUFFIX, BYTES, ATTR)                                           \
    template <class T, bool SKIP = false>                                             \
    ATTR long long minmax_cols_##SUFFIX(T *lo_acc, T *hi_acc, const T *x, long long rows, \
                                        long long cols, long long stride) {           \
        constexpr int W = BYTES / (int)sizeof(T), U = 4;                              \
        typedef T V __attribute__((vector_size(BYTES)));                              \
        /* unaligned vector loads/stores of the accumulator rows straight to */      \
        /* registers: a memcpy into the vector arrays went through the stack */      \
        /* in 16-byte halves (GCC's split unaligned 256-bit accesses), and the */    \
        /* 32-byte reload of those halves missed store forwarding, once per */       \
        /* call -- every row on the native path, which passes rows == 1 */           \
        typedef T VU __attribute__((vector_size(BYTES), aligned(sizeof(T)), may_alias)); \
        long long c0 = 0;                                                             \
        for (; c0 + U * W <= cols; c0 += U * W) {                                     \
            V lo[U], hi[U], na[U], lo0[U], hi0[U];                                    \
            decltype(V{} != V{}) seen[U];                                             \
            for (int u = 0; u < U; u++) {                                             \
                lo[u] = *reinterpret_cast<const VU *>(lo_acc + c0 + u * W);           \
                hi[u] = *reinterpret_cast<const VU *>(hi_acc + c0 + u * W);           \
                na[u] = lo[u];                                                        \
                if constexpr (SKIP) {                                                 \
                    lo0[u] = lo[u];                                                   \
                    hi0[u] = hi[u];                                                   \
                    seen[u] = V{} != V{};                                             \
                    lo[u] = lo[u] != lo[u] ? V{} + std::numeric_limits<T>::infinity() : lo[u]; \
                    hi[u] = hi[u] != hi[u] ? V{} - std::numeric_limits<T>::infinity() : hi[u]; \
                }                                                                     \
            }                                                                         \
            for (long long r = 0; r < rows; r++) {                                    \
                const T *xr = x + r * stride + c0;                                    \
                for (int u = 0; u < U; u++) {                                         \
                    V v;                                                              \
                    std::memcpy(&v, xr + u * W, BYTES);                               \
                    NR_IN_REGISTER(v);                                                \
                    if constexpr (SKIP) {                                             \
                        lo[u] = v < lo[u] ? v : lo[u];                                \
                        hi[u] = v > hi[u] ? v : hi[u];                                \
                        seen[u] |= v == v;                                            \
                    } else {                                                          \
                        minmax_step_##SUFFIX<false>(lo[u], hi[u], na[u], v);          \
                    }                                                                 \
                }                                                                     \
            }                                                                         \
            for (int u = 0; u < U; u++) {                                             \
                if constexpr (SKIP) {                                                 \
                    lo[u] = ((lo0[u] != lo0[u]) & !seen[u]) ? lo0[u] : lo[u];         \
                    hi[u] = ((hi0[u] != hi0[u]) & !seen[u]) ? hi0[u] : hi[u];         \
                } else {                                                              \
                    lo[u] = na[u] != na[u] ? na[u] : lo[u];                           \
                    hi[u] = na[u] != na[u] ? na[u] : hi[u];                           \
                }                                                                     \
                *reinterpret_cast<VU *>(lo_acc + c0 + u * W) = lo[u];                 \
                *reinterpret_cast<VU *>(hi_acc + c0 + u * W) = hi[u];                 \
            }                                                                         \
        }                                                                             \
        return c0;                                                                    \
    }

// The rows of a row-major block reduced over axis 0 into lo_acc / hi_acc
// (one per column, holding the start values) with the accumulator rows in
// memory (L1: the caller streams only rows whose accumulators fit,
// row_stream_bytes) and the data read in memory order, row after row: the
// column tiles' results, bit for bit.  Propagating: the last NaN of a
// column's start value (lo's) and its rows is the result on both sides, as
// the tiles' NaN lanes give; skipping (fmin/fmax): a NaN start value stays
// until the column's first number, NaN elements are skipped.  The columns
// past the last whole vector run in one more vector held in registers,
// ending at the last column (its first lanes, columns done in memory, are
// dropped).  Returns the number of columns done: cols, or 0 (nothing
// touched) where cols is narrower than one vector.
#define NR_ROWS_KERNEL(SUFFIX, BYTES, ATTR)                                           \
    /* The walk of every row stream: rows x cols elements of T (rows `stride` */    \
    /* apart) into two accumulator rows a0, a1 in memory, row after row, U */       \
    /* vectors of columns at a time, then single vectors; the columns past */       \
    /* the last whole vector in one more vector held in registers (its first */     \
    /* lanes, columns done in memory, dropped).  F::step(st, acc0, acc1, v) */      \
    /* steps two accumulator vectors by the data vector v (st: the step's */        \
    /* constants); a variant's member so that it is compiled for its ISA. */        \
    /* Returns cols, or 0 (nothing touched) where cols < one vector. */            \
    template <class F, class T, class S>                                              \
    ATTR __attribute__((always_inline)) inline void row_step_##SUFFIX(T *a0, T *a1, const T *xr, \
                                                                      long long c, const S &st) { \
        typedef T V __attribute__((vector_size(BYTES)));                              \
        typedef T VU __attribute__((vector_size(BYTES), aligned(sizeof(T)), may_alias)); \
        VU *p0 = reinterpret_cast<VU *>(a0 + c);                                      \
        VU *p1 = reinterpret_cast<VU *>(a1 + c);                                      \
        V b0 = *p0, b1 = *p1, v;                                                      \
        std::memcpy(&v, xr + c, BYTES);                                               \
        F::step(st, b0, b1, v);                                                       \
        *p0 = b0;                                                                     \
        *p1 = b1;                                                                     \
    }                                                                                 \
    template <class F, class T, class S>                                              \
    ATTR __attribute__((always_inline)) inline long long row_stream_##SUFFIX(         \
        T *a0, T *a1, const T *x, long long rows, long long cols, long long stride, const S &st) { \
        constexpr int W = BYTES / (int)sizeof(T), U = 4;                              \
        typedef T V __attribute__((vector_size(BYTES)));                              \
        typedef T VU __attribute__((vector_size(BYTES), aligned(sizeof(T)), may_alias)); \
        if (cols < W) return 0;                                                       \
        const long long full = cols / W * W, t0 = cols - W;                           \
        const int keep = (int)(full - t0); /* tail lanes already in whole vectors */ \
        V t_0 = *reinterpret_cast<const VU *>(a0 + t0);                               \
        V t_1 = *reinterpret_cast<const VU *>(a1 + t0);                               \
        for (long long r = 0; r < rows; r++) {                                        \
            const T *xr = x + r * stride;                                             \
            long long c = 0;                                                          \
            for (; c + U * W <= full; c += U * W) {                                   \
                for (int u = 0; u < U; u++) row_step_##SUFFIX<F>(a0, a1, xr, c + u * W, st); \
            }                                                                         \
            for (; c < full; c += W) row_step_##SUFFIX<F>(a0, a1, xr, c, st);         \
            if (keep < W) {                                                           \
                V v;                                                                  \
                std::memcpy(&v, xr + t0, BYTES);                                      \
                F::step(st, t_0, t_1, v);                                             \
            }                                                                         \
        }                                                                             \
        for (int j = keep; j < W; j++) {                                              \
            a0[t0 + j] = t_0[j];                                                      \
            a1[t0 + j] = t_1[j];                                                      \
        }                                                                             \
        return cols;                                                                  \
    }                                                                                 \
    /* min/max's step: propagating, the last NaN of a column's start value */      \
    /* (lo's) and its rows is the result on both sides, as the tiles' NaN */        \
    /* lanes give; skipping (fmin/fmax): a NaN start value stays until the */       \
    /* column's first number, NaN elements are skipped */                            \
    template <bool SKIP>                                                              \
    struct minmax_into_##SUFFIX {                                                     \
        template <class V>                                                            \
        ATTR __attribute__((always_inline)) static void step(int, V &lo, V &hi, V v) { \
            if constexpr (SKIP) {                                                     \
                lo = ((v < lo) | ((lo != lo) & (v == v))) ? v : lo;                   \
                hi = ((v > hi) | ((hi != hi) & (v == v))) ? v : hi;                   \
            } else {                                                                  \
                lo = ((v < lo) | (v != v)) ? v : lo;                                  \
                hi = ((v > hi) | (v != v)) ? v : hi;                                  \
            }                                                                         \
        }                                                                             \
    };                                                                                \
    template <class T, bool SKIP = false>                                             \
    ATTR long long minmax_rows_##SUFFIX(T *lo_acc, T *hi_acc, const T *x, long long rows, \
                                        long long cols, long long stride) {           \
        if (cols < BYTES / (long long)sizeof(T)) return 0;                            \
        if constexpr (!SKIP && (T)0.5 != (T)0) {                                      \
            /* a NaN start value is the tiles' NaN lane of both sides */             \
            for (long long c = 0; c < cols; c++)                                      \
                if (lo_acc[c] != lo_acc[c]) hi_acc[c] = lo_acc[c];                    \
        }                                                                             \
        return row_stream_##SUFFIX<minmax_into_##SUFFIX<SKIP>>(lo_acc, hi_acc, x, rows, cols, \
                                                              stride, 0);            \
    }

// The first i in [0, n) with x[i] == v (x[i] a NaN when v is NaN; NE: the
// first with x[i] != v, integers), or n: four vector compares per step,
// their masks OR-ed and tested once; the step that matched is then searched
// in order.
#define NR_FIND_KERNEL(SUFFIX, BYTES, ATTR)                                           \
    template <class T, bool NE>                                                       \
    ATTR long long find_eq_##SUFFIX(const T *x, long long n, T v) {                   \
        static_assert(!NE || (T)0.5 == (T)0, "NE: integers");                         \
        constexpr int W = BYTES / (int)sizeof(T), U = 4;                              \
        typedef T V __attribute__((vector_size(BYTES)));                              \
        const bool nan = v != v;                                                      \
        long long k = 0;                                                              \
        for (; k + U * W <= n; k += U * W) {                                          \
            decltype(V{} == V{}) m = {};                                              \
            for (int u = 0; u < U; u++) {                                             \
                V a;                                                                  \
                std::memcpy(&a, x + k + u * W, BYTES);                                \
                m |= NE ? (a != v) : nan ? (a != a) : (a == v);                       \
            }                                                                         \
            if (any_lane_##SUFFIX(m)) break;                                          \
        }                                                                             \
        for (; k < n; k++) {                                                          \
            if (NE ? x[k] != v : nan ? x[k] != x[k] : x[k] == v) return k;            \
        }                                                                             \
        return n;                                                                     \
    }

// (argmin, argmax) of a short row x[0..n), W <= n < 2**31, in one pass:
// two sets of lanes of values and of their indices (integers of T's width;
// both sets start from the first vector), strict compares, so each lane
// keeps the first of its best elements; single vectors after the steps of
// two, the last one ending at n (overlapping: a lane may see an element
// again, with its own index).  Every lane holds an element and its index,
// and the first index of the row's minimum is held by some lane (its first
// visit finds only greater values in its lane), so folding the lanes by
// (value, index) -- the sets lane by lane, then the lanes in a tree, without
// branches -- gives np.argmin's first occurrence (-0.0 == 0.0).  Returns
// false, with nothing written, where the row holds a NaN (the caller's
// blocked pass knows what a NaN means).  SKIP (np.nanargmin's rules, floats):
// the lanes start from (+inf, none) and (-inf, none), so a NaN, false in
// every compare, never enters them, and a NaN row runs this one pass too
// (the (4000, 2500) rows with every 97th element NaN, Intel Sapphire
// Rapids class, AVX-512: float64 4.1 ms against 7.7 for the one pass that
// found the NaN and then the blocked pass, float32 1.6 against 3.4); a side
// left at none (only NaNs, or only elements equal to its start, an
// infinity) returns false, for the blocked pass.
// The longest row that ArgMinMax's block_reduce gives this kernel rather
// than its blocked pass (the min/max kernel, then a search for the first
// equal element).  Rows of 2500 (4000 of them, one thread, prefetched 4 KiB
// ahead as the min/max kernel): at AVX-512 the one pass takes 0.36-0.38 us
// a row against the blocked pass's 0.56-0.58 in float32 (1.15-1.48 against
// 1.35-1.60 in float64), and at 4096 0.61-0.72 against 0.94-0.97; at AVX2
// (selects of 3 uops on this Golden Cove core) the blocked pass wins from
// 1024 on (float64 0.44 against 0.54 us), so there the one pass stays for
// rows of up to 1024.  AMD's selects (vblendv) are one uop at either
// width: there the one pass takes rows of up to 4096 at AVX2 too (Zen 4, 32
// bytes, rows of 2500: the blocked pass ran the sweep's C axis 1 cell at
// 1.00x / 1.16x np.argmin + np.argmax, float64 / float32).
inline long long argminmax_short() {
    return simd_level() >= 2 || (simd_level() == 1 && cpu().vendor == 2) ? 4096 : 1024;
}

#define NR_ARG_KERNEL(SUFFIX, BYTES, ATTR)                                            \
    /* one vector at x + s into a set of lanes (a helper of the variant's */           \
    /* target, not a lambda: a lambda would be lowered for the baseline) */            \
    template <class T, class V, class VI, class M>                                    \
    ATTR __attribute__((always_inline)) inline void arg_step_##SUFFIX(                \
        V &lo, V &hi, VI &il, VI &ih, M &nan, const T *x, long long s, VI iota) {     \
        V v;                                                                          \
        std::memcpy(&v, x + s, BYTES);                                                \
        const VI idx = iota + (decltype(iota[0] + 0))s;                               \
        const auto a = v < lo, b = v > hi;                                            \
        lo = a ? v : lo;                                                              \
        il = a ? idx : il;                                                            \
        hi = b ? v : hi;                                                              \
        ih = b ? idx : ih;                                                            \
        nan |= v != v;                                                                \
    }                                                                                 \
    /* the lanes (lv, li | hv, hj), VB bytes of each, folded by halves in */        \
    /* vectors down to 16 bytes: lane j takes lane j + VB/2's (value, index) */     \
    /* where it is better, or equal with a lower index */                           \
    template <int VB, class T, class I>                                             \
    ATTR __attribute__((always_inline)) inline void arg_fold_##SUFFIX(T *lv, I *li, T *hv, I *hj) { \
        constexpr int H = VB / 2 / (int)sizeof(T);                                  \
        typedef T Vh __attribute__((vector_size(VB / 2)));                          \
        typedef I Ih __attribute__((vector_size(VB / 2)));                          \
        Vh l0, l1, h0, h1;                                                          \
        Ih i0, i1, j0, j1;                                                          \
        std::memcpy(&l0, lv, VB / 2);                                               \
        std::memcpy(&l1, lv + H, VB / 2);                                           \
        std::memcpy(&h0, hv, VB / 2);                                               \
        std::memcpy(&h1, hv + H, VB / 2);                                           \
        std::memcpy(&i0, li, VB / 2);                                               \
        std::memcpy(&i1, li + H, VB / 2);                                           \
        std::memcpy(&j0, hj, VB / 2);                                               \
        std::memcpy(&j1, hj + H, VB / 2);                                           \
        const auto a = (l1 < l0) | ((l1 == l0) & (i1 < i0));                        \
        const auto b = (h1 > h0) | ((h1 == h0) & (j1 < j0));                        \
        l0 = a ? l1 : l0;                                                           \
        i0 = a ? i1 : i0;                                                           \
        h0 = b ? h1 : h0;                                                           \
        j0 = b ? j1 : j0;                                                           \
        std::memcpy(lv, &l0, VB / 2);                                               \
        std::memcpy(li, &i0, VB / 2);                                               \
        std::memcpy(hv, &h0, VB / 2);                                               \
        std::memcpy(hj, &j0, VB / 2);                                               \
        if constexpr (VB / 2 > 16) arg_fold_##SUFFIX<VB / 2>(lv, li, hv, hj);       \
    }                                                                               \
    template <class T, bool SKIP = false>                                           \
    ATTR bool argminmax_##SUFFIX(const T *x, long long n, long long *ilo, long long *ihi) { \
        constexpr int W = BYTES / (int)sizeof(T);                                   \
        static_assert(sizeof(T) == 4 || sizeof(T) == 8, "index lanes of T's width"); \
        static_assert(!SKIP || std::is_floating_point<T>::value, "NaNs to skip: floats only"); \
        typedef typename std::conditional<sizeof(T) == 4, int, long long>::type I;  \
        typedef T V __attribute__((vector_size(BYTES)));                            \
        typedef I VI __attribute__((vector_size(BYTES)));                           \
        V lo[2], hi[2];                                                             \
        VI iota, il[2], ih[2];                                                      \
        for (int j = 0; j < W; j++) iota[j] = (I)j;                                 \
        const I none = std::numeric_limits<I>::max(); /* SKIP: no element yet */    \
        long long k = W;                                                            \
        if constexpr (SKIP) { /* (+inf, none), (-inf, none): a NaN never enters */  \
            lo[0] = lo[1] = V{} + std::numeric_limits<T>::infinity();               \
            hi[0] = hi[1] = -lo[0];                                                 \
            il[0] = il[1] = ih[0] = ih[1] = VI{} + none;                            \
            k = 0;                                                                  \
        } else {                                                                    \
            std::memcpy(&lo[0], x, BYTES);                                          \
            lo[1] = hi[0] = hi[1] = lo[0];                                          \
            il[0] = il[1] = ih[0] = ih[1] = iota;                                   \
        }                                                                           \
        auto nan = lo[0] != lo[0];                                                  \
        const long long ahead = minmax_ahead<T>();                                    \
        for (; k + 2 * W <= n; k += 2 * W) {                                          \
            if (k + ahead < n) prefetch_lines<2 * BYTES>(x + k + ahead);              \
            arg_step_##SUFFIX(lo[0], hi[0], il[0], ih[0], nan, x, k, iota);            \
            arg_step_##SUFFIX(lo[1], hi[1], il[1], ih[1], nan, x, k + W, iota);        \
        }                                                                             \
        for (bool last = false; k < n; k = last ? n : k + W) {                        \
            last = k + W >= n;                                                        \
            arg_step_##SUFFIX(lo[0], hi[0], il[0], ih[0], nan, x, last ? n - W : k, iota); \
        }                                                                             \
        if (!SKIP && any_lane_##SUFFIX(nan)) return false;                            \
        {                                                                             \
            const auto a = (lo[1] < lo[0]) | ((lo[1] == lo[0]) & (il[1] < il[0]));    \
            const auto b = (hi[1] > hi[0]) | ((hi[1] == hi[0]) & (ih[1] < ih[0]));    \
            lo[0] = a ? lo[1] : lo[0];                                                \
            il[0] = a ? il[1] : il[0];                                                \
            hi[0] = b ? hi[1] : hi[0];                                                \
            ih[0] = b ? ih[1] : ih[0];                                                \
        }                                                                             \
        T lv[W], hv[W];                                                               \
        I li[W], hj[W];                                                               \
        std::memcpy(lv, &lo[0], BYTES);                                               \
        std::memcpy(hv, &hi[0], BYTES);                                               \
        std::memcpy(li, &il[0], BYTES);                                               \
        std::memcpy(hj, &ih[0], BYTES);                                               \
        if constexpr (BYTES > 16) arg_fold_##SUFFIX<BYTES>(lv, li, hv, hj);           \
        for (int h = (BYTES > 16 ? 16 : BYTES) / (int)sizeof(T) / 2; h >= 1; h /= 2) { \
            for (int j = 0; j < h; j++) {                                             \
                const bool a = (lv[j + h] < lv[j]) | ((lv[j + h] == lv[j]) & (li[j + h] < li[j])); \
                const bool b = (hv[j + h] > hv[j]) | ((hv[j + h] == hv[j]) & (hj[j + h] < hj[j])); \
                lv[j] = a ? lv[j + h] : lv[j];                                        \
                li[j] = a ? li[j + h] : li[j];                                        \
                hv[j] = b ? hv[j + h] : hv[j];                                        \
                hj[j] = b ? hj[j + h] : hj[j];                                        \
            }                                                                         \
        }                                                                             \
        /* SKIP: a side that kept none (only NaNs, or its extreme an infinity, */      \
        /* which the strict compares never take): the caller's blocked pass */          \
        if (SKIP && (li[0] == none || hj[0] == none)) return false;                   \
        *ilo = li[0];                                                                 \
        *ihi = hj[0];                                                                 \
        return true;                                                                  \
    }                                                                                 \
    /* argmin / argmax down the columns of a (rows, cols) block, the */             \
    /* reduction over a leading axis: element k of column c at */                    \
    /* x[k * stride + c], rows >= 1, cols >= one vector.  Each column's */          \
    /* (value, index) lanes stay in memory, a tile of 4 KiB of columns at a */      \
    /* time, stepped by eight rows a pass (the row pieces read in order; no */     \
    /* copy of the block).  The 1-D pass's semantics: strict compares keep */       \
    /* the first of equal elements; the first NaN wins both (a NaN in row 0 */      \
    /* stays); SKIP: NaNs skipped, -1 for a column of NaNs.  Indices in */          \
    /* lanes of T's width: for 4-byte T the caller keeps rows below INT_MAX. */    \
    /* A tile is stepped by bare compares first, from the ends of T's range */     \
    /* with no index (+inf, -1), (-inf, -1), which a NaN never enters; a tile */    \
    /* that met a NaN (propagating) or kept a side at -1 (NaNs only, or the */     \
    /* range's end its extreme) is stepped again by the EXACT compares, from */     \
    /* row 0.  The tile's last vector may */                                        \
    /* overlap the one before it: a step is idempotent (an element equal to */     \
    /* the lane's value moves nothing). */                                          \
    template <bool SKIP, bool EXACT, class V, class VI, class M>                      \
    ATTR __attribute__((always_inline)) inline void arg_col_step_##SUFFIX(           \
        V &lo, V &hi, VI &il, VI &ih, M &nan, V v, VI idx) {                          \
        auto a = v < lo, b = v > hi;                                                  \
        if constexpr (EXACT && SKIP) { /* the column's first number enters */        \
            a |= (il < 0) & (v == v);                                                 \
            b |= (ih < 0) & (v == v);                                                 \
        } else if constexpr (EXACT) { /* the first NaN enters and stays */           \
            a |= (v != v) & (lo == lo);                                               \
            b |= (v != v) & (hi == hi);                                               \
        } else if constexpr (!SKIP) {                                                 \
            nan |= v != v;                                                            \
        }                                                                             \
        lo = a ? v : lo;                                                              \
        il = a ? idx : il;                                                            \
        hi = b ? v : hi;                                                              \
        ih = b ? idx : ih;                                                            \
    }                                                                                 \
    /* the tile's vectors: c = 0, W, ..., and tc - W last */                         \
    template <long long W>                                                            \
    ATTR __attribute__((always_inline)) inline long long arg_cols_next_##SUFFIX(long long c, long long tc) { \
        return c + W >= tc ? tc : c + 2 * W > tc ? tc - W : c + W;                    \
    }                                                                                 \
    /* U rows from row k (at xk) into the tile's lanes */                             \
    template <bool SKIP, bool EXACT, int U, class T, class I, class M>                \
    ATTR __attribute__((always_inline)) inline void arg_cols_pass_##SUFFIX(           \
        const T *xk, long long k, long long tc, long long stride, T *lv, T *hv, I *li, I *hj, M &nan) { \
        constexpr long long W = BYTES / (long long)sizeof(T);                         \
        typedef T V __attribute__((vector_size(BYTES)));                              \
        typedef I VI __attribute__((vector_size(BYTES)));                             \
        typedef T VU __attribute__((vector_size(BYTES), aligned(sizeof(T)), may_alias)); \
        typedef I VIU __attribute__((vector_size(BYTES), aligned(sizeof(T)), may_alias)); \
        for (long long c = 0; c < tc; c = arg_cols_next_##SUFFIX<W>(c, tc)) {          \
            V lo = *reinterpret_cast<const VU *>(lv + c);                             \
            V hi = *reinterpret_cast<const VU *>(hv + c);                             \
            VI il = *reinterpret_cast<const VIU *>(li + c);                           \
            VI ih = *reinterpret_cast<const VIU *>(hj + c);                           \
            for (int u = 0; u < U; u++) {                                             \
                V v;                                                                  \
                std::memcpy(&v, xk + u * stride + c, BYTES);                          \
                arg_col_step_##SUFFIX<SKIP, EXACT>(lo, hi, il, ih, nan, v, VI{} + (I)(k + u)); \
            }                                                                         \
            *reinterpret_cast<VU *>(lv + c) = lo;                                     \
            *reinterpret_cast<VU *>(hv + c) = hi;                                     \
            *reinterpret_cast<VIU *>(li + c) = il;                                    \
            *reinterpret_cast<VIU *>(hj + c) = ih;                                    \
        }                                                                             \
    }                                                                                 \
    template <class T, bool SKIP, bool EXACT, class I>                                \
    ATTR bool arg_cols_tile_##SUFFIX(const T *x, long long rows, long long tc,        \
                                     long long stride, T *lv, T *hv, I *li, I *hj) {  \
        constexpr long long W = BYTES / (long long)sizeof(T);                       \
        typedef T V __attribute__((vector_size(BYTES)));                            \
        typedef I VI __attribute__((vector_size(BYTES)));                           \
        typedef T VU __attribute__((vector_size(BYTES), aligned(sizeof(T)), may_alias)); \
        typedef I VIU __attribute__((vector_size(BYTES), aligned(sizeof(T)), may_alias)); \
        auto nan = V{} != V{};                                                      \
        long long k = 0;                                                            \
        if constexpr (EXACT) { /* from row 0 */                                     \
            for (long long c = 0; c < tc; c = arg_cols_next_##SUFFIX<W>(c, tc)) {    \
                V v;                                                                \
                std::memcpy(&v, x + c, BYTES);                                      \
                VI i0 = VI{};                                                       \
                if constexpr (SKIP) i0 = (v == v) ? i0 : i0 - 1;                    \
                *reinterpret_cast<VU *>(lv + c) = v;                                \
                *reinterpret_cast<VU *>(hv + c) = v;                                \
                *reinterpret_cast<VIU *>(li + c) = i0;                              \
                *reinterpret_cast<VIU *>(hj + c) = i0;                              \
            }                                                                       \
            k = 1;                                                                  \
        } else { /* from the ends of T's range, no index */                         \
            typedef std::numeric_limits<T> L;                                       \
            const T top = L::has_infinity ? L::infinity() : L::max();               \
            const T bottom = L::has_infinity ? -L::infinity() : L::lowest();        \
            for (long long j = 0; j < tc; j++) {                                    \
                lv[j] = top;                                                        \
                hv[j] = bottom;                                                     \
                li[j] = hj[j] = -1;                                                 \
            }                                                                       \
        }                                                                           \
        for (; k + 8 <= rows; k += 8) {                                             \
            arg_cols_pass_##SUFFIX<SKIP, EXACT, 8>(x + k * stride, k, tc, stride, lv, hv, li, hj, nan); \
        }                                                                           \
        if (k + 4 <= rows) {                                                        \
            arg_cols_pass_##SUFFIX<SKIP, EXACT, 4>(x + k * stride, k, tc, stride, lv, hv, li, hj, nan); \
            k += 4;                                                                 \
        }                                                                           \
        if (k + 2 <= rows) {                                                        \
            arg_cols_pass_##SUFFIX<SKIP, EXACT, 2>(x + k * stride, k, tc, stride, lv, hv, li, hj, nan); \
            k += 2;                                                                 \
        }                                                                           \
        if (k < rows) {                                                             \
            arg_cols_pass_##SUFFIX<SKIP, EXACT, 1>(x + k * stride, k, tc, stride, lv, hv, li, hj, nan); \
        }                                                                           \
        if constexpr (EXACT) return true;                                           \
        I none = 0; /* a side that kept index -1 */                                 \
        for (long long j = 0; j < tc; j++) none |= li[j] | hj[j];                   \
        return none >= 0 && (SKIP || !any_lane_##SUFFIX(nan));                      \
    }                                                                               \
    template <class T, bool SKIP, class O>                                            \
    ATTR void argminmax_cols_##SUFFIX(const T *x, long long rows, long long cols,     \
                                      long long stride, O *ilo, O *ihi) {             \
        constexpr long long W = BYTES / (long long)sizeof(T), TC = 4096 / sizeof(T);  \
        static_assert(sizeof(T) == 4 || sizeof(T) == 8, "index lanes of T's width"); \
        typedef typename std::conditional<sizeof(T) == 4, int, long long>::type I;  \
        alignas(64) T lv[TC], hv[TC];                                               \
        alignas(64) I li[TC], hj[TC];                                               \
        for (long long c0 = 0; c0 < cols; c0 += TC) {                               \
            /* a last tile narrower than a vector moves back onto its neighbour */ \
            const long long b0 = cols - c0 < W ? cols - W : c0;                     \
            const long long tc = cols - b0 < TC ? cols - b0 : TC;                   \
            if (!arg_cols_tile_##SUFFIX<T, SKIP, false>(x + b0, rows, tc, stride, lv, hv, li, hj)) { \
                arg_cols_tile_##SUFFIX<T, SKIP, true>(x + b0, rows, tc, stride, lv, hv, li, hj); \
            }                                                                       \
            for (long long j = 0; j < tc; j++) {                                    \
                ilo[b0 + j] = (O)li[j];                                             \
                ihi[b0 + j] = (O)hj[j];                                             \
            }                                                                       \
        }                                                                           \
    }

}  // namespace simd
}  // namespace nr
#include "traits/expfn.hpp"
namespace nr {
namespace simd {

// N float16 values at p as float32 lanes, exactly as half_to_float: with
// AVX-512 (VCVT, F16C=1) by vcvtph2ps (exact; DAZ does not apply to it; a
// signaling NaN comes out quiet), else by bits: normal halves by exponent
// rebias, subnormal ones as m * 2**-24 (an integer conversion and an exact
// product: no subnormal float operand, so DAZ/FTZ cannot change it), inf/NaN
// (payload kept) by bits.
#define NR_HALF_LANES(NAME, N, ATTR, VCVT)                                              \
    typedef unsigned short NAME##_vh __attribute__((vector_size(2 * (N))));             \
    typedef unsigned int NAME##_vi __attribute__((vector_size(4 * (N))));               \
    typedef int NAME##_vs __attribute__((vector_size(4 * (N))));                        \
    typedef float NAME##_vf __attribute__((vector_size(4 * (N))));                     \
    ATTR inline NAME##_vf NAME(const half16 *p) {                                       \
        NAME##_vh h;                                                                    \
        std::memcpy(&h, p, sizeof h);                                                   \
        NR_X86_ONLY(                                                                    \
        if constexpr (VCVT && (N) == 16) {                                              \
            __m256i hv;                                                                 \
            std::memcpy(&hv, &h, sizeof hv);                                            \
            /* (masked, all lanes: the unmasked form's header reads an undefined */  \
            /* vector, which GCC 12 warns about) */                                 \
            const __m512 fv = _mm512_maskz_cvtph_ps((__mmask16)0xffff, hv);             \
            NAME##_vf f;                                                                \
            std::memcpy(&f, &fv, sizeof f);                                             \
            return f;                                                                   \
        } else if constexpr (VCVT && (N) == 8) {                                        \
            __m128i hv;                                                                 \
            std::memcpy(&hv, &h, sizeof hv);                                            \
            const __m256 fv = _mm256_maskz_cvtph_ps((__mmask8)0xff, hv);                \
            NAME##_vf f;                                                                \
            std::memcpy(&f, &fv, sizeof f);                                             \
            return f;                                                                   \
        })                                                                              \
        const NAME##_vi w = __builtin_convertvector(h, NAME##_vi);                      \
        const NAME##_vi em = w & 0x7fffu, sign = (w & 0x8000u) << 16;                   \
        const NAME##_vf sub = __builtin_convertvector((NAME##_vs)em, NAME##_vf) * 0x1p-24f; \
        NAME##_vi sb;                                                                   \
        std::memcpy(&sb, &sub, sizeof sb);                                              \
        NAME##_vi b = em < 0x400u ? sb : (em << 13) + 0x38000000u;                      \
        b = em >= 0x7c00u ? (em << 13) | 0x7f800000u : b;                               \
        b |= sign;                                                                      \
        NAME##_vf f;                                                                    \
        std::memcpy(&f, &b, sizeof f);                                                  \
        return f;                                                                       \
    }

// exp64_nonpos_v's table (traits/expfn.hpp) in memory, for the element-wise
// lookups of the narrower variants.
alignas(64) inline constexpr unsigned long long exp_tab_bits_host[16] = {NR_EXP_TAB_BITS_0,
                                                                         NR_EXP_TAB_BITS_1};
alignas(64) inline constexpr double exp_tab_rel_host[16] = {NR_EXP_TAB_REL_0, NR_EXP_TAB_REL_1};

#if defined(NR_SIMD_X86)
// Helpers for the widest variants' instructions that vector extensions
// cannot spell, each with its variant's target attribute (a wide vector
// never crosses a function boundary of a narrower ISA) and always inlined.
// Their first template argument D only makes a call dependent: a call
// from a kernel template's discarded `if constexpr` branch (the narrower
// variants) is then never checked or instantiated -- Clang, unlike GCC,
// checks non-dependent code in discarded branches.
//
// The exact a * b - p (one rounding: vfmsub) of float64 lanes.
template <class D, class V>
__attribute__((target("avx2,fma"), always_inline)) inline V fmsub_256(V a, V b, V p) {
    static_assert(sizeof(V) == 32, "4 float64 lanes");
    __m256d x, y, z;
    std::memcpy(&x, &a, 32);
    std::memcpy(&y, &b, 32);
    std::memcpy(&z, &p, 32);
    const __m256d r = _mm256_fmsub_pd(x, y, z);
    V e;
    std::memcpy(&e, &r, 32);
    return e;
}
template <class D, class V>
__attribute__((target("avx512f"), always_inline)) inline V fmsub_512(V a, V b, V p) {
    static_assert(sizeof(V) == 64, "8 float64 lanes");
    __m512d x, y, z;
    std::memcpy(&x, &a, 64);
    std::memcpy(&y, &b, 64);
    std::memcpy(&z, &p, 64);
    const __m512d r = _mm512_fmsub_pd(x, y, z);
    V e;
    std::memcpy(&e, &r, 64);
    return e;
}
// Lane i of the result is lane idx[i] % 16 of the 16 lanes (a, b)
// (vpermt2q; the lanes' bits are moved as they are): 8 lanes of 64 bits.
template <class V, class I>
__attribute__((target("avx512f"), always_inline)) inline V permute2_512(V a, V b, I idx) {
    static_assert(sizeof(V) == 64 && sizeof(I) == 64, "8 lanes of 64 bits");
    __m512i x, y, j;
    std::memcpy(&x, &a, 64);
    std::memcpy(&y, &b, 64);
    std::memcpy(&j, &idx, 64);
    const __m512i r = _mm512_permutex2var_epi64(x, j, y);
    V out;
    std::memcpy(&out, &r, 64);
    return out;
}
#endif  // NR_SIMD_X86

// out = a with every lane j swapped with lane j ^ D (one constant shuffle;
// J: the lanes 0, 1, ..., L - 1); always inlined into the caller's variant
// (vectors by reference: no wide vector crosses a call by value).
template <int D, class V, int... J>
__attribute__((always_inline)) inline void lanes_swapped(V &out, const V &a, std::integer_sequence<int, J...>) {
#if defined(__clang__) || (defined(__GNUC__) && __GNUC__ >= 12)
    out = __builtin_shufflevector(a, a, (J ^ D)...);
#else
    constexpr size_t E = sizeof(V) / sizeof...(J);  // (mask lanes of the lanes' width)
    typedef typename std::conditional<
        E == 8, long long,
        typename std::conditional<E == 4, int,
                                  typename std::conditional<E == 2, short, signed char>::type>::type>::type I;
    typedef I M __attribute__((vector_size(sizeof(V))));
    out = __builtin_shuffle(a, M{(J ^ D)...});
#endif
}

// The transpose of two_sum_rows' L vectors of L lanes (S[j] becomes lane j
// of every vector): for D = 1, 2, ..., L / 2, vectors i and i + D (i & D
// clear) swap their off-diagonal blocks of D lanes -- two constant
// two-source shuffles per pair (the masks are the pack expansions).  The
// vectors are passed by reference (no wide vector crosses a call by value);
// always inlined into the caller's variant.
template <int D, class V, int... J>
__attribute__((always_inline)) inline void swap_lane_blocks(V &a, V &b, std::integer_sequence<int, J...>) {
    constexpr int L = (int)sizeof...(J);
#if defined(__clang__) || (defined(__GNUC__) && __GNUC__ >= 12)
    const V lo = __builtin_shufflevector(a, b, ((J & D) ? L + J - D : J)...);
    const V hi = __builtin_shufflevector(a, b, ((J & D) ? L + J : J + D)...);
#else  // GCC before 12: __builtin_shuffle with the same constant masks
    typedef typename std::conditional<sizeof(V) / L == 8, long long, int>::type I;
    typedef I M __attribute__((vector_size(sizeof(V))));
    const V lo = __builtin_shuffle(a, b, M{((J & D) ? L + J - D : J)...});
    const V hi = __builtin_shuffle(a, b, M{((J & D) ? L + J : J + D)...});
#endif
    a = lo;
    b = hi;
}
template <int D, int L, class V>
__attribute__((always_inline)) inline void transpose_lanes(V *S) {
    if constexpr (D < L) {
        for (int i = 0; i < L; i++) {
            if (!(i & D)) swap_lane_blocks<D>(S[i], S[i + D], std::make_integer_sequence<int, L>());
        }
        transpose_lanes<2 * D, L>(S);
    }
}

// lanes_sum_<level> (pairwise, adjacent lanes first) of N vectors at once, the same
// bits as N separate folds (each addition pairs the same two partial sums;
// floating addition commutes): at D = 1, 2, ... < N the vectors pair off,
// the D-lane blocks of each pair transposed (swap_lane_blocks) and added,
// which leaves lane i of every N-lane block the partial sum of vector i
// over that block; then, in the one vector left, each block adds the block
// D lanes away (D = N, ..., L / 2).  A horizontal sum of L = 8 lanes costs
// seven extracts and seven scalar additions; here two vectors take four
// shuffles and three vector additions -- the fixed cost of a short row
// (meanvar of float64 rows of 32 to 300 at AVX-512 had been slower than
// at AVX2, its two horizontal sums a fifth of the row).  N <= L, a power
// of two; out[i] = the fold of v[i]; v is overwritten.
template <int D, class V, int... J>
__attribute__((always_inline)) inline void add_lane_blocks(V &a, std::integer_sequence<int, J...> j) {
    V b;
    lanes_swapped<D>(b, a, j);
    a += b;
}
template <int N, int L, int D = 1, class V>
__attribute__((always_inline)) inline void lanes_sums(V *v, double *out) {
    static_assert(N >= 1 && N <= L && (N & (N - 1)) == 0, "lanes_sums: N a power of two, at most the lanes");
    if constexpr (D < N) {
        for (int i = 0; i < N / D; i += 2) {
            swap_lane_blocks<D>(v[i], v[i + 1], std::make_integer_sequence<int, L>());
            v[i / 2] = v[i] + v[i + 1];
        }
        lanes_sums<N, L, 2 * D>(v, out);
    } else if constexpr (D < L) {
        add_lane_blocks<D>(v[0], std::make_integer_sequence<int, L>());
        lanes_sums<N, L, 2 * D>(v, out);
    } else {
        for (int i = 0; i < N; i++) out[i] = v[0][i];
    }
}

// Kernels over float64 blocks: lane-parallel sums (two or four vectors of
// L = BYTES / 8 lanes per step), the lanes added in a fixed order at the
// end.  Each returns the number of elements it covered; the caller finishes
// the tail.
#define NR_F64_KERNELS(SUFFIX, BYTES, ATTR)                                             \
    typedef double vd_##SUFFIX __attribute__((vector_size(BYTES)));                     \
    typedef unsigned long long vu_##SUFFIX __attribute__((vector_size(BYTES)));         \
    /* the lanes of each of N vectors v[i] in order, pairwise, into out[i] */          \
    /* (lanes_sums; N vectors more than the lanes: in groups) */                        \
    template <int N>                                                                    \
    ATTR inline __attribute__((always_inline)) void lanes_sums_##SUFFIX(vd_##SUFFIX *v, double *out) { \
        if constexpr (N > BYTES / 8) {                                                  \
            lanes_sums_##SUFFIX<N / 2>(v, out);                                         \
            lanes_sums_##SUFFIX<N / 2>(v + N / 2, out + N / 2);                         \
        } else {                                                                        \
            lanes_sums<N, BYTES / 8>(v, out);                                           \
        }                                                                               \
    }                                                                                   \
    ATTR inline double lanes_sum_##SUFFIX(vd_##SUFFIX a) {                              \
        double r;                                                                       \
        lanes_sums_##SUFFIX<1>(&a, &r);                                                 \
        return r;                                                                       \
    }                                                                                   \
    NR_HALF_LANES(half_lanes_f32_##SUFFIX, BYTES / 4, ATTR, BYTES == 64)               \
    NR_HALF_LANES(half_lanes_f64_##SUFFIX, BYTES / 8, ATTR, BYTES == 64)               \
    /* load_ of float32 and the integers of 4 bytes or fewer (bool too) on x86 */      \
    /* at 32 and 64 bytes: the elements widened to int32 lanes (vpmovsx/zx), then */   \
    /* one vcvtdq2pd / vcvtudq2pd / vcvtps2pd of the whole vector.  GCC 12 lowers */   \
    /* __builtin_convertvector there as conversions of halves (or quarters) and */    \
    /* inserts: float32 rows of 32 through meanvar at AVX2 took 2.0 ns an element */  \
    /* against float64's 1.3 (Intel SPR class).  (AVX-512: the masked forms, all */  \
    /* lanes, as half_lanes: GCC 12's unmasked ones warn.)  Exact, as the */           \
    /* generic code */                                                                  \
    NR_X86_ONLY(                                                                        \
    template <class T>                                                                  \
    ATTR inline __attribute__((always_inline)) vd_##SUFFIX load_narrow_x86_##SUFFIX(const T *p) { \
        constexpr bool S = std::is_signed<T>::value || std::is_floating_point<T>::value; \
        vd_##SUFFIX v;                                                                  \
        if constexpr (BYTES == 64) {                                                    \
            __m256i i;                                                                  \
            if constexpr (sizeof(T) == 4) {                                             \
                i = _mm256_loadu_si256((const __m256i *)p);                             \
            } else if constexpr (sizeof(T) == 2) {                                      \
                const __m128i h = _mm_loadu_si128((const __m128i *)p);                  \
                i = S ? _mm256_cvtepi16_epi32(h) : _mm256_cvtepu16_epi32(h);            \
            } else {                                                                    \
                const __m128i h = _mm_loadl_epi64((const __m128i *)p);                  \
                i = S ? _mm256_cvtepi8_epi32(h) : _mm256_cvtepu8_epi32(h);              \
            }                                                                           \
            __m512d r;                                                                  \
            if constexpr (std::is_floating_point<T>::value) {                           \
                r = _mm512_maskz_cvtps_pd((__mmask8)0xff, _mm256_castsi256_ps(i));      \
            } else if constexpr (sizeof(T) == 4 && !S) {                                \
                r = _mm512_maskz_cvtepu32_pd((__mmask8)0xff, i);                        \
            } else {                                                                    \
                r = _mm512_maskz_cvtepi32_pd((__mmask8)0xff, i);                        \
            }                                                                           \
            std::memcpy(&v, &r, BYTES);                                                 \
        } else {                                                                        \
            static_assert(BYTES == 32 || sizeof(T) == 0, "load_narrow_x86: 32 or 64 bytes"); \
            __m128i i;                                                                  \
            if constexpr (sizeof(T) == 4) {                                             \
                i = _mm_loadu_si128((const __m128i *)p);                                \
            } else if constexpr (sizeof(T) == 2) {                                      \
                const __m128i h = _mm_loadl_epi64((const __m128i *)p);                  \
                i = S ? _mm_cvtepi16_epi32(h) : _mm_cvtepu16_epi32(h);                  \
            } else {                                                                    \
                int w;                                                                  \
                std::memcpy(&w, p, 4);                                                  \
                const __m128i h = _mm_cvtsi32_si128(w);                                 \
                i = S ? _mm_cvtepi8_epi32(h) : _mm_cvtepu8_epi32(h);                    \
            }                                                                           \
            __m256d r;                                                                  \
            if constexpr (std::is_floating_point<T>::value) {                           \
                r = _mm256_cvtps_pd(_mm_castsi128_ps(i));                               \
            } else if constexpr (sizeof(T) == 4 && !S) { /* x - 2**31 as int32, + 2**31 */ \
                r = _mm256_add_pd(_mm256_cvtepi32_pd(_mm_xor_si128(i, _mm_set1_epi32((int)0x80000000u))), \
                                  _mm256_set1_pd(2147483648.0));                        \
            } else {                                                                    \
                r = _mm256_cvtepi32_pd(i);                                              \
            }                                                                           \
            std::memcpy(&v, &r, BYTES);                                                 \
        }                                                                               \
        return v;                                                                       \
    })                                                                                  \
    /* L lanes of float64 from x: float64 as it is; float16, float32 and every */  \
    /* integer type (bool too) converted as the scalar loops' to_real does (exactly, */ \
    /* and 64-bit integers beyond 2**53 rounded to nearest, ties to even: */        \
    /* AVX-512DQ's vcvt(u)qq2pd, else hi * 2**32 + lo with one rounding) */        \
    template <class T>                                                                  \
    ATTR inline vd_##SUFFIX load_##SUFFIX(const T *p) {                                 \
        if constexpr (std::is_same<T, double>::value) {                                 \
            vd_##SUFFIX v;                                                              \
            std::memcpy(&v, p, BYTES);                                                  \
            return v;                                                                   \
        } else if constexpr (std::is_same<T, half16>::value) {                          \
            return __builtin_convertvector(half_lanes_f64_##SUFFIX(p), vd_##SUFFIX);     \
        } else if constexpr (NR_X86_ONLY((BYTES >= 32 && sizeof(T) <= 4) ||) false) {    \
            NR_X86_ONLY(return load_narrow_x86_##SUFFIX(p);)                            \
        } else if constexpr (sizeof(T) == 4 && (std::is_floating_point<T>::value ||      \
                                                std::is_signed<T>::value || BYTES == 64)) { \
            typedef T vt __attribute__((vector_size(BYTES / 2)));                       \
            vt v;                                                                       \
            std::memcpy(&v, p, BYTES / 2);                                              \
            return __builtin_convertvector(v, vd_##SUFFIX);                             \
        } else if constexpr (sizeof(T) == 4) { /* uint32 below AVX-512 */             \
            typedef int vt __attribute__((vector_size(BYTES / 2)));                     \
            vt v;                                                                       \
            std::memcpy(&v, p, BYTES / 2);                                              \
            v ^= (int)0x80000000u; /* x - 2**31, as int32 */                            \
            return __builtin_convertvector(v, vd_##SUFFIX) + 2147483648.0;              \
        } else if constexpr (sizeof(T) <= 2) { /* bool, (u)int8, (u)int16 */        \
            typedef T vt __attribute__((vector_size(BYTES / 8 * sizeof(T))));           \
            typedef int vi __attribute__((vector_size(BYTES / 2)));                     \
            vt v;                                                                       \
            std::memcpy(&v, p, sizeof v);                                               \
            return __builtin_convertvector(__builtin_convertvector(v, vi), vd_##SUFFIX); \
        } else if constexpr (BYTES == 64) { /* int64, uint64: vcvtqq2pd, vcvtuqq2pd */ \
            typedef T vt __attribute__((vector_size(BYTES)));                           \
            vt v;                                                                       \
            std::memcpy(&v, p, BYTES);                                                  \
            return __builtin_convertvector(v, vd_##SUFFIX);                             \
        } else { /* int64, uint64 without a vector conversion */                      \
            static_assert(sizeof(T) == 8 && std::is_integral<T>::value, "lane input");  \
            vu_##SUFFIX u;                                                              \
            std::memcpy(&u, p, BYTES);                                                  \
            /* signed: u = x + 2**63; hi = 2**84 + (u >> 32) 2**32, */                  \
            /* lo = 2**52 + (u mod 2**32); (hi - C) exact, + lo rounds once */         \
            constexpr double C = std::is_signed<T>::value ? 0x1p84 + 0x1p63 + 0x1p52    \
                                                          : 0x1p84 + 0x1p52;            \
            if (std::is_signed<T>::value) u ^= 0x8000000000000000ull;                   \
            const vu_##SUFFIX hi = (u >> 32) | 0x4530000000000000ull;                   \
            const vu_##SUFFIX lo = (u & 0xffffffffull) | 0x4330000000000000ull;         \
            vd_##SUFFIX h, l;                                                           \
            std::memcpy(&h, &hi, BYTES);                                                \
            std::memcpy(&l, &lo, BYTES);                                                \
            return (h - C) + l;                                                         \
        }                                                                               \
    }                                                                                   \
    /* Whether 64-bit integers load by narrow_ below (no vector conversion: */         \
    /* below AVX-512) */                                                                \
    template <class T>                                                                  \
    static constexpr bool narrow_i64_##SUFFIX = sizeof(T) == 8 && std::is_integral<T>::value && BYTES != 64; \
    /* L lanes of float64 from 64-bit integers that lie in [-2**51, 2**51) */         \
    /* (signed) or [0, 2**52) (unsigned): the magic-number conversion, exact */        \
    /* there, at a third of load_'s cost; bad collects (ORs) what proves some */       \
    /* element out of that range: its top 12 bits are not zero at the end */           \
    template <class T>                                                                  \
    ATTR inline __attribute__((always_inline)) vd_##SUFFIX narrow_##SUFFIX(const T *p, vu_##SUFFIX &bad) { \
        constexpr unsigned long long MAGIC = std::is_signed<T>::value ? 0x4338000000000000ull : 0x4330000000000000ull; \
        constexpr double D = std::is_signed<T>::value ? 0x1.8p52 : 0x1p52;                 \
        vu_##SUFFIX u;                                                                  \
        std::memcpy(&u, p, BYTES);                                                      \
        u += MAGIC;                                                                     \
        bad |= u ^ 0x4330000000000000ull;                                               \
        vd_##SUFFIX d;                                                                  \
        std::memcpy(&d, &u, BYTES);                                                     \
        return d - D;                                                                   \
    }                                                                                   \
    template <class V>                                                                  \
    ATTR inline __attribute__((always_inline)) bool narrow_ok_##SUFFIX(V bad) {         \
        unsigned long long w[BYTES / 8], any = 0;                                       \
        std::memcpy(w, &bad, BYTES);                                                    \
        for (int j = 0; j < BYTES / 8; j++) any |= w[j];                                \
        return (any >> 52) == 0;                                                        \
    }                                                                                   \
    /* y = x - K stored to y[0..k) (one conversion per element), and the */             \
    /* lanes' sum of y; SKIP (nanmoments): a NaN y (a NaN x: K is finite) */            \
    /* adds +0.0 and no count, *cnt the count of the others (with !SKIP */              \
    /* the caller counts: k); EXTREMES (describe's blocks, Summary): also the */        \
    /* min and max of the values x into *lo, *hi (a NaN never wins a */                 \
    /* comparison: with !SKIP a NaN makes the sum NaN and the caller redoes */          \
    /* the block) */                                                                    \
    template <class T, bool SKIP, bool EXTREMES>                                        \
    ATTR inline long long shift_sum_##SUFFIX(const T *x, long long n, double K, double *y, \
                                             double *out, double *cnt, double *lo, double *hi) { \
        constexpr int L = BYTES / 8;                                                    \
        vd_##SUFFIX a0 = {}, a1 = {};                                                   \
        vu_##SUFFIX c0 = {}, c1 = {}; /* minus the counts (masks are -1) */             \
        const vd_##SUFFIX one = vd_##SUFFIX{} + opaque_one<double>();                   \
        const vd_##SUFFIX inf = vd_##SUFFIX{} + __builtin_inf();                        \
        vd_##SUFFIX l0 = inf, l1 = inf, h0 = -inf, h1 = -inf;                           \
        /* prefetched ahead where the policy says so (prefetch_bytes), past */          \
        /* this block too: the caller's next block (or row) follows it in */             \
        /* memory (Intel SPR class, one thread, float64 out of memory: meanvar */        \
        /* 1e7 7.9 -> 5.5 ms, nanmeanvar 10.3 -> 4.7-6.0, rows of 100 15.2 -> 9.6) */    \
        const bool pf = prefetch_bytes() > 0;                                           \
        const long long ahead = pf ? prefetch_bytes() / (long long)sizeof(T) : 0;       \
        long long k = 0;                                                                \
        for (; k + 2 * L <= n; k += 2 * L) {                                            \
            if (pf) prefetch_lines<2 * L * (long long)sizeof(T)>(x + k + ahead);        \
            const vd_##SUFFIX v0 = load_##SUFFIX(x + k), v1 = load_##SUFFIX(x + k + L); \
            const vd_##SUFFIX y0 = v0 - K, y1 = v1 - K;                                 \
            std::memcpy(y + k, &y0, BYTES);                                             \
            std::memcpy(y + k + L, &y1, BYTES);                                         \
            if constexpr (EXTREMES) {                                                   \
                l0 = v0 < l0 ? v0 : l0;                                                 \
                l1 = v1 < l1 ? v1 : l1;                                                 \
                h0 = v0 > h0 ? v0 : h0;                                                 \
                h1 = v1 > h1 ? v1 : h1;                                                 \
            }                                                                           \
            if (SKIP) {                                                                 \
                a0 += y0 == y0 ? y0 : vd_##SUFFIX{};                                    \
                a1 += y1 == y1 ? y1 : vd_##SUFFIX{};                                    \
                c0 += (vu_##SUFFIX)(y0 == y0);                                          \
                c1 += (vu_##SUFFIX)(y1 == y1);                                          \
            } else {                                                                    \
                a0 = y0 * one + a0; /* a0 + y0, on the FMA pipes (opaque_one) */        \
                a1 = y1 * one + a1;                                                     \
            }                                                                           \
        }                                                                               \
        *out = lanes_sum_##SUFFIX(a0 + a1);                                             \
        if (SKIP) {                                                                     \
            const vu_##SUFFIX c = c0 + c1;                                              \
            unsigned long long t = 0;                                                   \
            for (int j = 0; j < L; j++) t -= c[j];                                      \
            *cnt = (double)t;                                                           \
        }                                                                               \
        if constexpr (EXTREMES) {                                                       \
            l0 = l1 < l0 ? l1 : l0;                                                     \
            h0 = h1 > h0 ? h1 : h0;                                                     \
            double l = *lo, h = *hi;                                                    \
            for (int j = 0; j < L; j++) {                                               \
                l = l0[j] < l ? l0[j] : l;                                              \
                h = h0[j] > h ? h0[j] : h;                                              \
            }                                                                           \
            *lo = l;                                                                    \
            *hi = h;                                                                    \
        }                                                                               \
        return k;                                                                       \
    }                                                                                   \
    template <class T, bool SKIP = false>                                               \
    ATTR inline long long shift_store_##SUFFIX(const T *x, long long n, double K, double *y, \
                                               double *out, double *cnt) {              \
        return shift_sum_##SUFFIX<T, SKIP, false>(x, n, K, y, out, cnt, nullptr, nullptr); \
    }                                                                                   \
    template <class T, bool SKIP = false>                                               \
    ATTR inline long long shift_minmax_##SUFFIX(const T *x, long long n, double K, double *y, \
                                                double *out, double *cnt, double *lo, double *hi) { \
        return shift_sum_##SUFFIX<T, SKIP, true>(x, n, K, y, out, cnt, lo, hi);         \
    }                                                                                   \
    /* sum(d) and sum(d*d), d = y - m (y from shift_store); the squares' */            \
    /* lanes folded into a total every 64 elements (one large square cannot */         \
    /* swallow the roundings of many small ones) */                                    \
    /* (SKIP: NaN elements contribute +0.0, nanmoments) */                           \
    template <bool SKIP = false>                                                        \
    ATTR inline long long dev_sums_##SUFFIX(const double *y, long long n, double m,     \
                                            double *s1, double *s2) {                   \
        constexpr int L = BYTES / 8;                                                    \
        vd_##SUFFIX a0 = {}, a1 = {}, q0 = {}, q1 = {}, qt = {};                        \
        const vd_##SUFFIX one = vd_##SUFFIX{} + opaque_one<double>();                  \
        long long k = 0;                                                                \
        for (; k + 2 * L <= n; k += 2 * L) {                                            \
            vd_##SUFFIX v0, v1;                                                         \
            std::memcpy(&v0, y + k, BYTES);                                             \
            std::memcpy(&v1, y + k + L, BYTES);                                         \
            vd_##SUFFIX d0 = v0 - m, d1 = v1 - m;                                       \
            if (SKIP) {                                                                 \
                d0 = v0 == v0 ? d0 : vd_##SUFFIX{};                                     \
                d1 = v1 == v1 ? d1 : vd_##SUFFIX{};                                     \
            }                                                                           \
            a0 = d0 * one + a0; /* a0 + d0, on the FMA pipes (opaque_one) */           \
            a1 = d1 * one + a1;                                                         \
            q0 += d0 * d0;                                                              \
            q1 += d1 * d1;                                                              \
            if (((k + 2 * L) & 63) == 0) {                                              \
                qt += q0 + q1;                                                          \
                q0 = q1 = vd_##SUFFIX{};                                                \
            }                                                                           \
        }                                                                               \
        vd_##SUFFIX v[2] = {a0 + a1, qt + (q0 + q1)};                                   \
        double r[2];                                                                    \
        lanes_sums_##SUFFIX<2>(v, r);                                                   \
        *s1 = r[0];                                                                     \
        *s2 = r[1];                                                                     \
        return k;                                                                       \
    }                                                                                   \
    /* sum(d), sum(d^2), sum(d^3), sum(d^4), d = y - m (y from shift_minmax) */         \
    /* into s[0..4) (SKIP: NaN elements contribute +0.0) */                             \
    template <bool SKIP = false>                                                        \
    ATTR inline long long dev_sums4_##SUFFIX(const double *y, long long n, double m, double *s) { \
        constexpr int L = BYTES / 8;                                                    \
        vd_##SUFFIX a0 = {}, a1 = {}, q0 = {}, q1 = {}, c0 = {}, c1 = {}, f0 = {}, f1 = {}; \
        const vd_##SUFFIX one = vd_##SUFFIX{} + opaque_one<double>();                   \
        long long k = 0;                                                                \
        for (; k + 2 * L <= n; k += 2 * L) {                                            \
            vd_##SUFFIX v0, v1;                                                         \
            std::memcpy(&v0, y + k, BYTES);                                             \
            std::memcpy(&v1, y + k + L, BYTES);                                         \
            vd_##SUFFIX d0 = v0 - m, d1 = v1 - m;                                       \
            if (SKIP) {                                                                 \
                d0 = v0 == v0 ? d0 : vd_##SUFFIX{};                                     \
                d1 = v1 == v1 ? d1 : vd_##SUFFIX{};                                     \
            }                                                                           \
            a0 = d0 * one + a0;                                                         \
            a1 = d1 * one + a1;                                                         \
            const vd_##SUFFIX p0 = d0 * d0, p1 = d1 * d1;                               \
            q0 += p0;                                                                   \
            q1 += p1;                                                                   \
            c0 += p0 * d0;                                                              \
            c1 += p1 * d1;                                                              \
            f0 += p0 * p0;                                                              \
            f1 += p1 * p1;                                                              \
        }                                                                               \
        vd_##SUFFIX v[4] = {a0 + a1, q0 + q1, c0 + c1, f0 + f1};                        \
        lanes_sums_##SUFFIX<4>(v, s);                                                   \
        return k;                                                                       \
    }                                                                                   \
    /* max(x), NaN-propagating (np.max): a NaN lane stays NaN; four vectors */      \
    /* per step (the select chains' latency); float32 in its own lanes */             \
    /* (twice as many per vector, no conversion: the float64 of the float32 */         \
    /* max is the max of the float64 values) */                                       \
    /* max_'s loads: float32 in its own lanes, the rest as float64 (load_) */       \
    template <class T, class V>                                                         \
    ATTR __attribute__((always_inline)) inline V max_load_##SUFFIX(const T *p) {        \
        if constexpr (std::is_same<T, float>::value) {                                  \
            V v;                                                                        \
            std::memcpy(&v, p, BYTES);                                                  \
            return v;                                                                   \
        } else {                                                                        \
            return load_##SUFFIX(p);                                                    \
        }                                                                               \
    }                                                                                   \
    template <class T>                                                            \
    ATTR inline long long max_##SUFFIX(const T *x, long long n, double *out) {     \
        constexpr bool F32 = std::is_same<T, float>::value;                             \
        typedef typename std::conditional<F32, float, double>::type E;                  \
        typedef E V __attribute__((vector_size(BYTES)));                                \
        constexpr int L = BYTES / (int)sizeof(E), U = 4;                                \
        if (n < U * L) return 0;                                                        \
        V m[U];                                                                         \
        for (int u = 0; u < U; u++) m[u] = max_load_##SUFFIX<T, V>(x + u * L);                               \
        long long k = U * L;                                                            \
        for (; k + U * L <= n; k += U * L) {                                            \
            _Pragma("GCC unroll 4") for (int u = 0; u < U; u++) {                       \
                const V v = max_load_##SUFFIX<T, V>(x + k + u * L);                                          \
                m[u] = ((v > m[u]) | (v != v)) ? v : m[u];                              \
            }                                                                           \
        }                                                                               \
        /* AVX2, AVX-512: the rest in single vectors, then one vector ending at */      \
        /* the last element (max is idempotent: its first lanes again); the */          \
        /* baseline leaves the rest to the caller's scalar loop */                      \
        if constexpr (BYTES > 16) {                                                     \
            for (int u = 0; k + L <= n; k += L, u = (u + 1) % U) {                      \
                const V v = max_load_##SUFFIX<T, V>(x + k);                             \
                m[u] = ((v > m[u]) | (v != v)) ? v : m[u];                              \
            }                                                                           \
            if (k < n) {                                                                \
                const V v = max_load_##SUFFIX<T, V>(x + n - L);                         \
                m[0] = ((v > m[0]) | (v != v)) ? v : m[0];                              \
                k = n;                                                                  \
            }                                                                           \
        }                                                                               \
        /* the vectors folded, then the lanes in halves: selects, no branches */        \
        m[0] = ((m[1] > m[0]) | (m[1] != m[1])) ? m[1] : m[0];                          \
        m[2] = ((m[3] > m[2]) | (m[3] != m[3])) ? m[3] : m[2];                          \
        m[0] = ((m[2] > m[0]) | (m[2] != m[2])) ? m[2] : m[0];                          \
        E h[L];                                                                         \
        std::memcpy(h, &m[0], BYTES);                                                   \
        for (int w = L / 2; w >= 1; w /= 2) {                                           \
            for (int j = 0; j < w; j++) h[j] = ((h[j + w] > h[j]) | (h[j + w] != h[j + w])) ? h[j + w] : h[j]; \
        }                                                                               \
        *out = (double)h[0];                                                            \
        return k;                                                                       \
    }                                                                                   \
    /* the 2^(j/16) table of exp64_nonpos_v per lane: with 8 lanes, two */           \
    /* in-register two-source permutes (vpermt2q, vpermt2pd: the index's low 4 */     \
    /* bits select, so t's pattern serves as it is); with fewer lanes, element */     \
    /* by element from the scalar table */                                            \
    struct exp_tab_##SUFFIX {                                                           \
        template <class U, class V> /* a template: only the taken branch compiles */     \
        ATTR __attribute__((always_inline)) static inline void get(U j, U &kb, V &rel) { \
            constexpr int L = sizeof(V) / 8;                                            \
            if constexpr (L == 8) {                                                     \
                const U k0 = {NR_EXP_TAB_BITS_0}, k1 = {NR_EXP_TAB_BITS_1};             \
                const V r0 = {NR_EXP_TAB_REL_0}, r1 = {NR_EXP_TAB_REL_1};               \
                NR_X86_ONLY(kb = permute2_512(k0, k1, j);)                              \
                NR_X86_ONLY(rel = permute2_512(r0, r1, j);)                             \
            } else {                                                                    \
                for (int i = 0; i < L; i++) {                                           \
                    kb[i] = exp_tab_bits_host[j[i] & 15];                               \
                    rel[i] = exp_tab_rel_host[j[i] & 15];                               \
                }                                                                       \
            }                                                                           \
        }                                                                               \
    };                                                                                  \
    /* exp64_nonpos_v (traits/expfn.hpp) of the lanes, its halves around */         \
    /* this variant's table lookup */                                                 \
    ATTR __attribute__((always_inline)) inline vd_##SUFFIX exp64_##SUFFIX(vd_##SUFFIX x) { \
        vd_##SUFFIX t, r, p, rel, out;                                                  \
        exp64_reduce(x, t, r, p);                                                       \
        vu_##SUFFIX tb, kb;                                                             \
        bitcast_to(t, tb);                                                              \
        exp_tab_##SUFFIX::get(tb, kb, rel);                                             \
        exp64_scale(tb, r, p, kb, rel, out);                                            \
        return out;                                                                     \
    }                                                                                   \
    /* over x != mx: 2^64 sum(exp(x - mx)) into *out (exp64_nonpos_v; terms */        \
    /* below EXP64_FLOOR are 0); over x == mx: their count into *cnt (kept */          \
    /* apart, so that the caller can drop the maximum's own exp(0) = 1 */             \
    /* exactly and small terms are not rounded away against it); four */              \
    /* independent vectors per step hide the exp polynomial's latency */              \
    template <class T>                                                            \
    ATTR inline long long sum_exp_##SUFFIX(const T *x, long long n, double mx,     \
                                           double *out, double *cnt) {                  \
        constexpr int L = BYTES / 8;                                                    \
        vd_##SUFFIX a[4] = {}, c[4] = {};                                               \
        long long k = 0;                                                                \
        for (; k + 4 * L <= n; k += 4 * L) {                                            \
            _Pragma("GCC unroll 4") for (int u = 0; u < 4; u++) {                       \
                const vd_##SUFFIX v = load_##SUFFIX(x + k + L * u), d = v - mx;        \
                const vd_##SUFFIX e =                                                   \
                    exp64_##SUFFIX(d);      \
                const auto eq = v == mx;                                                \
                a[u] = (eq | (d < EXP64_FLOOR)) ? a[u] : a[u] + e;                      \
                c[u] = eq ? c[u] + 1.0 : c[u];                                          \
            }                                                                           \
        }                                                                               \
        /* AVX2, AVX-512: the rest in single vectors (into a[0], a[1], ... in           \
           turn), then one vector ending at the last element with its lanes             \
           below k left out: every element in the lanes, where n >= L (Zen 4,           \
           AVX-512, rows of 250: float32 1.74 -> 1.11 ns per element, the 26            \
           past the four vectors had run in scalar code).  The baseline covers          \
           multiples of four vectors only, as MaxSumExp::sum_exp_lanes (its             \
           bits without vector kernels) */                                              \
        if constexpr (BYTES > 16) {                                                     \
            int u = 0;                                                                  \
            for (; k + L <= n; k += L, u = (u + 1) & 3) {                               \
                const vd_##SUFFIX v = load_##SUFFIX(x + k), d = v - mx;                 \
                const vd_##SUFFIX e = exp64_##SUFFIX(d);                                \
                const auto eq = v == mx;                                                \
                a[u] = (eq | (d < EXP64_FLOOR)) ? a[u] : a[u] + e;                      \
                c[u] = eq ? c[u] + 1.0 : c[u];                                          \
            }                                                                           \
            if (k < n && n >= L) {                                                      \
                vd_##SUFFIX io;                                                         \
                for (int i = 0; i < L; i++) io[i] = (double)i;                          \
                const vd_##SUFFIX v = load_##SUFFIX(x + n - L), d = v - mx;             \
                const vd_##SUFFIX e = exp64_##SUFFIX(d);                                \
                const auto old = io < (double)(k - (n - L)); /* lanes done above */     \
                const auto eq = (v == mx) & ~old;                                       \
                a[u] = (old | eq | (d < EXP64_FLOOR)) ? a[u] : a[u] + e;                \
                c[u] = eq ? c[u] + 1.0 : c[u];                                          \
                k = n;                                                                  \
            }                                                                           \
        }                                                                               \
        vd_##SUFFIX v[2] = {(a[0] + a[1]) + (a[2] + a[3]), (c[0] + c[1]) + (c[2] + c[3])}; \
        double r[2];                                                                    \
        lanes_sums_##SUFFIX<2>(v, r);                                                   \
        *out = r[0];                                                                    \
        *cnt = r[1];                                                                    \
        return k;                                                                       \
    }                                                                                   \
    /* exp64_nonpos_v (traits/expfn.hpp) of the lanes with every product  */        \
    /* rounded on its own (NR_UNFUSED: no fused multiply-add), as x86-64's */          \
    /* scalar baseline computes it: the same bits at every level (lse_cols) */        \
    ATTR __attribute__((always_inline)) inline vd_##SUFFIX exp64u_##SUFFIX(vd_##SUFFIX x) { \
        vd_##SUFFIX t, r, p, rel, out;                                                  \
        NR_EXP64_REDUCE_STEPS(vd_##SUFFIX, x, t, r, p, NR_UNFUSED);                     \
        vu_##SUFFIX tb, kb;                                                             \
        bitcast_to(t, tb);                                                              \
        exp_tab_##SUFFIX::get(tb, kb, rel);                                             \
        NR_EXP64_SCALE_STEPS(vd_##SUFFIX, tb, r, p, kb, rel, out, NR_UNFUSED);          \
        return out;                                                                     \
    }                                                                                   \
    /* log-sum-exp down the columns into the column states (MaxSumExp::rows_reduce): */ \
    /* a run of `rows` rows (>= 1, `stride` elements apart) of `cols` columns */        \
    /* merged into the states (M[j], T[j]).  Pass 1: per column the new max */          \
    /* M' = max(M, the run's elements) (NaN-propagating, in row order), row */          \
    /* after row in memory order (the hardware prefetchers follow them), into */        \
    /* bm.  Pass 2 in tiles of U vectors down the rows: the old sum rescaled */         \
    /* to M' -- (T e + e), e = exp(M - M') (0 below EXP64_FLOOR), where M' > M */       \
    /* -- plus, in row order, c the count of x == M' (less the new max's own */         \
    /* 1 where M' > M) and s = 2^64 sum exp(x - M') over the other x (exp64u: */        \
    /* terms below EXP64_FLOOR are 0): T' = T0 + (c + 2^-64 s), into bt (NaN */         \
    /* for a NaN M').  Each column is a lane of its own and every product is */         \
    /* rounded on its own: the bits of MaxSumExp::cols_block at every width. */         \
    /* Pass 2 runs on U-vector tiles, then single vectors, then one vector */           \
    /* ending at the last column (its first lanes redone alike: the results */          \
    /* go to bm/bt, the states are read only), and bm/bt are copied into M/T */         \
    /* at the end.  Returns the columns done: cols, or 0 where cols is */               \
    /* narrower than one vector.  The tiles prefetch the same columns of the */         \
    /* next `ahead` rows (pass 1 of the next run then reads from the cache). */         \
    template <class T, int U>                                                           \
    ATTR __attribute__((always_inline)) inline void lse_tile_##SUFFIX(                  \
        const T *x, long long rows, long long stride, const double *M, const double *Tt, \
        const double *Ec, const double *bm, double *bt, double *be, long long ahead) {  \
        constexpr int L = BYTES / 8;                                                    \
        vd_##SUFFIX m[U], s[U], c[U], t0[U];                                            \
        for (int u = 0; u < U; u++) {                                                   \
            vd_##SUFFIX mo, to, eo;                                                     \
            std::memcpy(&m[u], bm + u * L, BYTES);                                      \
            std::memcpy(&mo, M + u * L, BYTES);                                         \
            std::memcpy(&to, Tt + u * L, BYTES);                                        \
            std::memcpy(&eo, Ec + u * L, BYTES);                                        \
            const vd_##SUFFIX d = mo - m[u];                                            \
            vd_##SUFFIX e = exp64u_##SUFFIX(d) * 5.421010862427522e-20; /* 2^-64 */     \
            NR_UNFUSED(e);                                                              \
            e = d < EXP64_FLOOR ? vd_##SUFFIX{} : e;                                    \
            vd_##SUFFIX te = to * e;                                                    \
            NR_UNFUSED(te);                                                             \
            const auto up = m[u] > mo;                                                  \
            t0[u] = up ? te + e : to;                                                   \
            vd_##SUFFIX ee = eo * e;                                                    \
            NR_UNFUSED(ee);                                                             \
            eo = up ? ee : eo; /* the compensation, rescaled */                         \
            std::memcpy(be + u * L, &eo, BYTES);                                        \
            c[u] = up ? vd_##SUFFIX{} - 1.0 : vd_##SUFFIX{};                            \
            s[u] = vd_##SUFFIX{};                                                       \
        }                                                                               \
        for (long long r = 0; r < rows; r++) {                                          \
            if (r < ahead) {                                                            \
                for (int u = 0; u < U; u++) __builtin_prefetch(x + (rows + r) * stride + u * L); \
            }                                                                           \
            _Pragma("GCC unroll 4") for (int u = 0; u < U; u++) {                       \
                const vd_##SUFFIX v = load_##SUFFIX(x + r * stride + u * L), d = v - m[u]; \
                const vd_##SUFFIX e = exp64u_##SUFFIX(d);                               \
                const auto eq = v == m[u];                                              \
                s[u] = (eq | (d < EXP64_FLOOR)) ? s[u] : s[u] + e;                      \
                c[u] = eq ? c[u] + 1.0 : c[u];                                          \
            }                                                                           \
        }                                                                               \
        for (int u = 0; u < U; u++) {                                                   \
            vd_##SUFFIX sl = s[u] * 5.421010862427522e-20; /* 2^-64 */                  \
            NR_UNFUSED(sl);                                                             \
            /* t0 + y and its rounding error (TwoSum) into the compensation */          \
            const vd_##SUFFIX y = c[u] + sl, t = t0[u] + y, yv = t - t0[u];             \
            const vd_##SUFFIX err = (t0[u] - (t - yv)) + (y - yv);                      \
            vd_##SUFFIX eo;                                                             \
            std::memcpy(&eo, be + u * L, BYTES);                                        \
            eo = eo + err;                                                              \
            const vd_##SUFFIX tn = m[u] != m[u] ? m[u] : t;                             \
            std::memcpy(bt + u * L, &tn, BYTES);                                        \
            std::memcpy(be + u * L, &eo, BYTES);                                        \
        }                                                                               \
    }                                                                                   \
    /* pass 1 on the columns [j, j + L) of one row: their maxima in bm */               \
    template <class T>                                                                  \
    ATTR __attribute__((always_inline)) inline void lse_max_##SUFFIX(const T *x, long long j, double *bm) { \
        vd_##SUFFIX m;                                                                  \
        std::memcpy(&m, bm + j, BYTES);                                                 \
        const vd_##SUFFIX v = load_##SUFFIX(x + j);                                     \
        m = ((v > m) | (v != v)) ? v : m;                                               \
        std::memcpy(bm + j, &m, BYTES);                                                 \
    }                                                                                   \
    template <class T>                                                                  \
    ATTR inline long long lse_cols_##SUFFIX(const T *x, long long rows, long long cols, \
                                            long long stride, double *M, double *Tt, double *Ec, \
                                            double *bm, double *bt, double *be, long long ahead) {  \
        constexpr int L = BYTES / 8, U = BYTES == 64 ? 4 : 2;                           \
        if (cols < L) return 0;                                                         \
        std::memcpy(bm, M, cols * sizeof(double));                                      \
        for (long long r = 0; r < rows; r++) {                                          \
            const T *xr = x + r * stride;                                               \
            long long j = 0;                                                            \
            for (; j + L <= cols; j += L) lse_max_##SUFFIX(xr, j, bm);                  \
            if (j < cols) lse_max_##SUFFIX(xr, cols - L, bm); /* (max is idempotent) */ \
        }                                                                               \
        long long j = 0;                                                                \
        for (; j + U * L <= cols; j += U * L)                                           \
            lse_tile_##SUFFIX<T, U>(x + j, rows, stride, M + j, Tt + j, Ec + j, bm + j, bt + j, be + j, ahead); \
        for (; j + L <= cols; j += L)                                                   \
            lse_tile_##SUFFIX<T, 1>(x + j, rows, stride, M + j, Tt + j, Ec + j, bm + j, bt + j, be + j, ahead); \
        if (j < cols) {                                                                 \
            j = cols - L;                                                               \
            lse_tile_##SUFFIX<T, 1>(x + j, rows, stride, M + j, Tt + j, Ec + j, bm + j, bt + j, be + j, ahead); \
        }                                                                               \
        std::memcpy(M, bm, cols * sizeof(double));                                      \
        std::memcpy(Tt, bt, cols * sizeof(double));                                     \
        std::memcpy(Ec, be, cols * sizeof(double));                                     \
        return cols;                                                                    \
    }                                                                                   \
    /* the weighted moments' and co-moments' chunk sums (traits/wmoments.hpp,                \
       traits/comoments.hpp): elements [0, n) (n a multiple of 8) of the                     \
       contiguous sources added into 8 lanes per sum (element j in lane j % 8,               \
       whatever the vector width: the same bits at every level), the lanes                   \
       read from and written back to s*[0..8); every product kept apart from                 \
       its sum (NR_IN_REGISTER: no fused multiply-add), as the traits' scalar                \
       lanes compute it */                                                                   \
    template <class T, bool SKIP>                                                            \
    ATTR inline void wsums_##SUFFIX(const T *x, const T *w, long long n, double K, double *s0, \
                                  double *s1, double *s2) {                                  \
        constexpr int L = BYTES / 8, V = 8 / L;                                              \
        vd_##SUFFIX a0[V], a1[V], a2[V];                                                     \
        for (int v = 0; v < V; v++) {                                                        \
            std::memcpy(&a0[v], s0 + v * L, BYTES);                                          \
            std::memcpy(&a1[v], s1 + v * L, BYTES);                                          \
            std::memcpy(&a2[v], s2 + v * L, BYTES);                                          \
        }                                                                                    \
        for (long long j = 0; j < n; j += 8) {                                               \
            _Pragma("GCC unroll 4") for (int v = 0; v < V; v++) {                            \
                const vd_##SUFFIX xv = load_##SUFFIX(x + j + v * L), wv = load_##SUFFIX(w + j + v * L); \
                auto sk = wv == 0.0;                                                         \
                if (SKIP) sk |= xv != xv;                                                    \
                const vd_##SUFFIX d = xv - K;                                                \
                vd_##SUFFIX p = wv * d;                                                      \
                NR_IN_REGISTER(p);                                                           \
                const vd_##SUFFIX wd = sk ? vd_##SUFFIX{} : p;                               \
                vd_##SUFFIX q = wd * d;                                                      \
                NR_IN_REGISTER(q);                                                           \
                a0[v] += sk ? vd_##SUFFIX{} : wv;                                            \
                a1[v] += wd;                                                                 \
                a2[v] += sk ? vd_##SUFFIX{} : q;                                             \
            }                                                                                \
        }                                                                                    \
        for (int v = 0; v < V; v++) {                                                        \
            std::memcpy(s0 + v * L, &a0[v], BYTES);                                          \
            std::memcpy(s1 + v * L, &a1[v], BYTES);                                          \
            std::memcpy(s2 + v * L, &a2[v], BYTES);                                          \
        }                                                                                    \
    }                                                                                        \
    template <class T>                                                                       \
    ATTR inline void cosums_##SUFFIX(const T *x, const T *y, long long n, double Kx, double Ky, \
                                   double *const *s) {                                       \
        constexpr int L = BYTES / 8, V = 8 / L;                                              \
        vd_##SUFFIX a[5][V];                                                                 \
        for (int i = 0; i < 5; i++)                                                          \
            for (int v = 0; v < V; v++) std::memcpy(&a[i][v], s[i] + v * L, BYTES);          \
        for (long long j = 0; j < n; j += 8) {                                               \
            _Pragma("GCC unroll 4") for (int v = 0; v < V; v++) {                            \
                const vd_##SUFFIX u = load_##SUFFIX(x + j + v * L) - Kx, t = load_##SUFFIX(y + j + v * L) - Ky; \
                vd_##SUFFIX uu = u * u, tt = t * t, ut = u * t;                              \
                NR_IN_REGISTER(uu);                                                          \
                NR_IN_REGISTER(tt);                                                          \
                NR_IN_REGISTER(ut);                                                          \
                a[0][v] += u;                                                                \
                a[1][v] += t;                                                                \
                a[2][v] += uu;                                                               \
                a[3][v] += tt;                                                               \
                a[4][v] += ut;                                                               \
            }                                                                                \
        }                                                                                    \
        for (int i = 0; i < 5; i++)                                                          \
            for (int v = 0; v < V; v++) std::memcpy(s[i] + v * L, &a[i][v], BYTES);          \
    }                                                                                        \
    /* log-sum-exp with b (traits/logsumexp.hpp MaxSumExpB), pass 1: over the                \
       elements with b != 0, their max into *mx, and *flags bit 0: one such                  \
       element, bit 1: a NaN x or b among them (the caller then steps); four                 \
       vectors per step; returns the elements covered (0 below 4 L) */                       \
    template <class T>                                                                       \
    ATTR inline long long max_b_##SUFFIX(const T *x, const T *b, long long n, double *mx, int *flags) { \
        constexpr int L = BYTES / 8;                                                         \
        if (n < 4 * L) return 0;                                                             \
        vd_##SUFFIX m[4];                                                                    \
        vu_##SUFFIX bad[4] = {}, any[4] = {};                                                \
        for (int u = 0; u < 4; u++) m[u] = vd_##SUFFIX{} - __builtin_inf();                  \
        long long k = 0;                                                                     \
        for (; k + 4 * L <= n; k += 4 * L) {                                                 \
            _Pragma("GCC unroll 4") for (int u = 0; u < 4; u++) {                            \
                const vd_##SUFFIX v = load_##SUFFIX(x + k + L * u), bv = load_##SUFFIX(b + k + L * u); \
                const auto cnt = bv != 0.0;                                                  \
                bad[u] |= (vu_##SUFFIX)(cnt & ((v != v) | (bv != bv)));                      \
                any[u] |= (vu_##SUFFIX)cnt;                                                  \
                m[u] = (cnt & (v > m[u])) ? v : m[u];                                        \
            }                                                                                \
        }                                                                                    \
        m[0] = m[1] > m[0] ? m[1] : m[0];                                                    \
        m[2] = m[3] > m[2] ? m[3] : m[2];                                                    \
        m[0] = m[2] > m[0] ? m[2] : m[0];                                                    \
        const vu_##SUFFIX bd = (bad[0] | bad[1]) | (bad[2] | bad[3]), an = (any[0] | any[1]) | (any[2] | any[3]); \
        double r = m[0][0];                                                                  \
        unsigned long long fb = 0, fa = 0;                                                   \
        for (int j = 0; j < L; j++) {                                                        \
            r = m[0][j] > r ? m[0][j] : r;                                                   \
            fb |= bd[j];                                                                     \
            fa |= an[j];                                                                     \
        }                                                                                    \
        *mx = r;                                                                             \
        *flags = (fa != 0 ? 1 : 0) | (fb != 0 ? 2 : 0);                                      \
        return k;                                                                            \
    }                                                                                        \
    /* pass 2: over the elements with x != mx and b != 0, 2^64 sum(b exp(x -                 \
       mx)) into *out (exp64_nonpos_v; terms below EXP64_FLOOR are 0, each                   \
       product kept apart from its sum), and over x == mx the sum of their b                 \
       into *cnt; four vectors per step, as sum_exp */                                       \
    template <class T>                                                                       \
    ATTR inline long long sum_exp_b_##SUFFIX(const T *x, const T *b, long long n, double mx, \
                                           double *out, double *cnt) {                       \
        constexpr int L = BYTES / 8;                                                         \
        vd_##SUFFIX a[4] = {}, c[4] = {};                                                    \
        long long k = 0;                                                                     \
        for (; k + 4 * L <= n; k += 4 * L) {                                                 \
            _Pragma("GCC unroll 4") for (int u = 0; u < 4; u++) {                            \
                const vd_##SUFFIX v = load_##SUFFIX(x + k + L * u), bv = load_##SUFFIX(b + k + L * u), d = v - mx; \
                const vd_##SUFFIX e = exp64_##SUFFIX(d); \
                vd_##SUFFIX p = bv * e;                                                      \
                NR_IN_REGISTER(p);                                                           \
                const auto eq = v == mx;                                                     \
                a[u] = (eq | (d < EXP64_FLOOR) | (bv == 0.0)) ? a[u] : a[u] + p;             \
                c[u] = eq ? c[u] + bv : c[u];                                                \
            }                                                                                \
        }                                                                                    \
        vd_##SUFFIX v[2] = {(a[0] + a[1]) + (a[2] + a[3]), (c[0] + c[1]) + (c[2] + c[3])};   \
        double r[2];                                                                         \
        lanes_sums_##SUFFIX<2>(v, r);                                                        \
        *out = r[0];                                                                         \
        *cnt = r[1];                                                                         \
        return k;                                                                            \
    }                                                                                        \
    /* sumprod (traits/twosum.hpp SumProd): elements [0, n) (n a multiple of                 \
       16) of the contiguous sources into 16 lanes (s, c) (element j in lane                 \
       j % 16, whatever the vector width), read from and written back to                     \
       s[0..16), c[0..16): each product split exactly (TwoProduct: an explicit               \
       fused multiply-subtract at AVX2, AVX-512 and NEON, Dekker's product of                \
       Veltkamp halves in the SSE2 baseline), p added to s by TwoSum (p kept in a                 \
       register: never fused into the sum) and both errors to c -- exact                     \
       operations, so every level gives the traits' scalar lanes' bits.                      \
       false (the lanes then partly written) where a factor is beyond Dekker's               \
       split (SSE2 baseline only: the caller steps instead) */                                    \
    template <class T>                                                                       \
    ATTR inline bool sum_prod_##SUFFIX(const T *x, const T *y, long long n, double *s, double *c) { \
        constexpr int L = BYTES / 8, V = 16 / L;                                             \
        vd_##SUFFIX sv[V], cv[V], big = {};                                                  \
        for (int v = 0; v < V; v++) {                                                        \
            std::memcpy(&sv[v], s + v * L, BYTES);                                           \
            std::memcpy(&cv[v], c + v * L, BYTES);                                           \
        }                                                                                    \
        for (long long j = 0; j < n; j += 16) {                                              \
            _Pragma("GCC unroll 8") for (int v = 0; v < V; v++) {                            \
                const vd_##SUFFIX a = load_##SUFFIX(x + j + v * L), b = load_##SUFFIX(y + j + v * L); \
                vd_##SUFFIX p = a * b;                                                       \
                NR_IN_REGISTER(p);                                                           \
                vd_##SUFFIX e;                                                               \
                if constexpr (BYTES == 64) {                                                 \
                    NR_X86_ONLY(e = fmsub_512<T>(a, b, p);)                                  \
                } else if constexpr (BYTES == 32) {                                          \
                    NR_X86_ONLY(e = fmsub_256<T>(a, b, p);)                                  \
                } else if constexpr (BASE_HAS_FMA) { /* aarch64: fmsub lane by lane */      \
                    for (int l = 0; l < L; l++) e[l] = __builtin_fma(a[l], b[l], -p[l]);     \
                } else {                                                                     \
                    const vd_##SUFFIX ca = a * 134217729.0, cb = b * 134217729.0; /* 2^27 + 1 */ \
                    const vd_##SUFFIX ah = ca - (ca - a), al = a - ah, bh = cb - (cb - b), bl = b - bh; \
                    e = ((ah * bh - p) + ah * bl + al * bh) + al * bl;                       \
                    const vd_##SUFFIX aa = a < 0.0 ? -a : a, ab = b < 0.0 ? -b : b;          \
                    big = aa > big ? aa : big;                                               \
                    big = ab > big ? ab : big;                                               \
                    big = a != a ? a : big;                                                  \
                    big = b != b ? b : big;                                                  \
                }                                                                            \
                const vd_##SUFFIX t = sv[v] + p, bp = t - sv[v];                             \
                cv[v] += ((sv[v] - (t - bp)) + (p - bp)) + e;                                \
                sv[v] = t;                                                                   \
            }                                                                                \
        }                                                                                    \
        for (int v = 0; v < V; v++) {                                                        \
            std::memcpy(s + v * L, &sv[v], BYTES);                                           \
            std::memcpy(c + v * L, &cv[v], BYTES);                                           \
        }                                                                                    \
        if (BYTES == 16 && !BASE_HAS_FMA) {                                                  \
            for (int l = 0; l < L; l++)                                                      \
                if (!(big[l] < 0x1p995)) return false;                                       \
        }                                                                                    \
        return true;                                                                         \
    }                                                                                        \
    /* L lanes of A from p: T = A as it is, float16 widened to float32, */              \
    /* integers (bool) and float32 to float64 by load_ (as to_real converts) */          \
    template <class T, class A>                                                          \
    ATTR inline auto two_sum_load_##SUFFIX(const T *p) {                                 \
        typedef A vt __attribute__((vector_size(BYTES)));                                \
        if constexpr (std::is_same<T, A>::value) {                                       \
            vt v;                                                                        \
            std::memcpy(&v, p, BYTES);                                                   \
            return v;                                                                    \
        } else if constexpr (std::is_same<T, half16>::value) {                           \
            static_assert(std::is_same<A, float>::value, "float32 lanes");               \
            return half_lanes_f32_##SUFFIX(p);                                           \
        } else {                                                                         \
            static_assert(std::is_same<A, double>::value, "float64 lanes");              \
            return load_##SUFFIX(p);                                                     \
        }                                                                                \
    }                                                                                    \
    /* common.hpp's two_sum lane by lane, without its fix: t = fl(a + b), */             \
    /* e its error, exact unless s - a overflowed inside (t finite, e not: */            \
    /* those lanes set in bad, for the caller to redo them) */                           \
    template <class A, class vt, class vm>                                               \
    ATTR inline __attribute__((always_inline)) void two_sum_v_##SUFFIX(vt a, vt b, vt &t, vt &e, vm &bad) { \
        t = a + b;                                                                       \
        const vt bp = t - a;                                                             \
        e = (a - (t - bp)) + (b - bp);                                                   \
        bad |= (t - t == (A)0) & (e - e != (A)0);                                        \
    }                                                                                    \
    /* common.hpp's two_sum lane by lane: t = fl(a + b), e its exact error */            \
    /* (Dekker's FastTwoSum where s - a overflowed, a select) */                         \
    template <class A, class vt>                                                         \
    ATTR inline __attribute__((always_inline)) void two_sum_v_##SUFFIX(vt a, vt b, vt &t, vt &e) { \
        decltype(a == a) fix{};                                                          \
        two_sum_v_##SUFFIX<A>(a, b, t, e, fix);                                          \
        const vt aa = a < (A)0 ? -a : a, ab = b < (A)0 ? -b : b;                         \
        const vt fast = aa >= ab ? b - (t - a) : a - (t - b);                            \
        e = fix ? fast : e;                                                              \
    }                                                                                    \
    /* Lanes (sa, ca) and (sb, cb) merged lane by lane into (sa, ca), by */              \
    /* combine()'s arithmetic (TwoSum; the error 0 where the sum is not */               \
    /* finite); with a mask `bad`, the TwoSum without its fix, the lanes */              \
    /* that needed it set in bad (two_sum_v) */                                          \
    template <class A, class vt, class... Bad>                                           \
    ATTR inline __attribute__((always_inline)) void two_sum_merge_##SUFFIX(vt &sa, vt sb, vt &ca, vt cb, Bad &...bad) { \
        vt t, e;                                                                         \
        two_sum_v_##SUFFIX<A>(sa, sb, t, e, bad...);                                     \
        ca = t - t == (A)0 ? (ca + cb) + e : vt{};                                       \
        sa = t;                                                                          \
    }                                                                                    \
    /* lanes j and j + W (W = VB / sizeof(A)) of (s, c) into lane j */                   \
    /* (two_sum_merge), then the halves again while more than two lanes */               \
    /* are left */                                                                       \
    template <class A, int VB>                                                           \
    ATTR inline __attribute__((always_inline)) void two_sum_fold_##SUFFIX(A *s, A *c) {  \
        constexpr int W = VB / (int)sizeof(A);                                           \
        typedef A vt __attribute__((vector_size(VB)));                                   \
        vt sa, sb, ca, cb;                                                               \
        std::memcpy(&sa, s, VB);                                                         \
        std::memcpy(&sb, s + W, VB);                                                     \
        std::memcpy(&ca, c, VB);                                                         \
        std::memcpy(&cb, c + W, VB);                                                     \
        two_sum_merge_##SUFFIX<A>(sa, sb, ca, cb);                                       \
        std::memcpy(s, &sa, VB);                                                         \
        std::memcpy(c, &ca, VB);                                                         \
        if constexpr (W > 2) two_sum_fold_##SUFFIX<A, VB / 2>(s, c);                     \
    }                                                                                    \
    /* One TwoSum step of two vectors of lanes (s0, c0), (s1, c1) with the */            \
    /* elements v0, v1: three of its adds on the FMA pipes (opaque_one) */               \
    template <class vt>                                                                  \
    ATTR inline __attribute__((always_inline)) void two_sum_step_##SUFFIX(vt &s0, vt &s1, vt &c0, vt &c1, vt v0, vt v1, vt one, vt mone) { \
        two_sum_vec_##SUFFIX(s0, c0, v0, one, mone);                                     \
        two_sum_vec_##SUFFIX(s1, c1, v1, one, mone);                                     \
    }                                                                                    \
    /* Lanes [0, m) of v (0 < m <= its lanes) set to M's map of p[0..m), by */            \
    /* a masked load (nothing past p + m is read); the other lanes as they */               \
    /* are (-0.0: the padding).  The same values as the scalar M::one(p[j]) */             \
    /* (float32 / float64 data in their own lanes; the map's products */                   \
    /* rounded each on its own, vmap) */                                                   \
    template <class M, class A, class vt>                                                \
    ATTR inline __attribute__((always_inline)) void tail_lanes_##SUFFIX(const A *p, long long m, vt &v) { \
        constexpr int L = BYTES / (int)sizeof(A);                                        \
        static_assert(sizeof(A) == 4 || sizeof(A) == 8, "float32 / float64 lanes");      \
        typedef typename std::conditional<sizeof(A) == 4, int, long long>::type I;       \
        typedef I vi __attribute__((vector_size(BYTES)));                                \
        vi lane;                                                                         \
        for (int j = 0; j < L; j++) lane[j] = (I)j;                                      \
        const vi keep = lane < (I)m; /* the lanes of p[0..m) */                          \
        vt w;                                                                            \
        NR_X86_ONLY(                                                                     \
        if constexpr (BYTES == 64 && sizeof(A) == 4) {                                   \
            w = (vt)_mm512_maskz_loadu_ps((__mmask16)((1u << m) - 1), p);                \
        } else if constexpr (BYTES == 64) {                                              \
            w = (vt)_mm512_maskz_loadu_pd((__mmask8)((1u << m) - 1), p);                 \
        } else if constexpr (sizeof(A) == 4) {                                           \
            w = (vt)_mm256_maskload_ps(p, (__m256i)keep);                                \
        } else {                                                                         \
            w = (vt)_mm256_maskload_pd(p, (__m256i)keep);                                \
        })                                                                               \
        v = keep ? vmap_##SUFFIX<M>(w) : v;                                              \
    }                                                                                    \
    /* The 2 L lanes (s0, c0 | s1, c1) of x[0..n), n >= 2 L: TwoSum steps */             \
    /* of 2 L elements, the last partial step padded with -0.0 (s + -0.0 */              \
    /* is s exactly, with error 0); c collects every error while its */                  \
    /* lane's s is finite (once s is inf or NaN it stays so: c is set to 0 */            \
    /* at the end instead of at each step); one, mone: 1 and -1 in every */             \
    /* lane (opaque_one: the caller's, once for all its rows).  The loads */             \
    /* prefetched `ahead` (two_sum_ahead) while that lies below x + reach */             \
    /* (reach >= (R - 1) ld + n; beyond: the caller's rows that follow, for */           \
    /* rows shorter than the distance).  R rows at once (row i at x + i */               \
    /* ld, into s0[i] ...), their steps interleaved: each row's arithmetic */            \
    /* exactly its own (the same bits as R = 1), the rows' dependency */                 \
    /* chains side by side (two_sum_rows_at_once: faster on some CPUs) */                \
    /* one step of 2 L elements of each of R rows (row i at x + i ld) */                 \
    template <int R, class T, class A, class M, class vt>                                \
    ATTR inline __attribute__((always_inline)) void two_sum_steps_##SUFFIX(const T *x, long long ld, \
                                                                          vt (&s0)[R], vt (&s1)[R], vt (&c0)[R], vt (&c1)[R], \
                                                                          const vt one, const vt mone) { \
        constexpr int L = BYTES / (int)sizeof(A);                                        \
        for (int i = 0; i < R; i++)                                                      \
            two_sum_step_##SUFFIX(s0[i], s1[i], c0[i], c1[i], vmap_##SUFFIX<M>(two_sum_load_##SUFFIX<T, A>(x + i * ld)), \
                                  vmap_##SUFFIX<M>(two_sum_load_##SUFFIX<T, A>(x + i * ld + L)), one, mone); \
    }                                                                                    \
    template <int R, class T, class A, class M, class vt>                                \
    ATTR inline __attribute__((always_inline)) void two_sum_lanes_##SUFFIX(const T *x, long long ld, long long n, long long reach, \
                                                                          vt (&s0)[R], vt (&s1)[R], vt (&c0)[R], vt (&c1)[R], \
                                                                          const vt one, const vt mone) { \
        constexpr int L = BYTES / (int)sizeof(A);                                        \
        for (int i = 0; i < R; i++) {                                                    \
            s0[i] = s1[i] = vt{} * (A)-1; /* sum([-0.0]) = -0.0 */                       \
            c0[i] = c1[i] = vt{};                                                        \
        }                                                                                \
        const long long ahead = two_sum_ahead<T>();                                      \
        const long long pf_end = reach - (R - 1) * ld - ahead; /* k below it */         \
        long long k = 0;                                                                 \
        if constexpr (narrow_i64_##SUFFIX<T>) {                                          \
            /* chunks of 64-bit integers by the narrow conversion, a chunk */            \
            /* redone by load_ where one of its elements lies outside */                 \
            constexpr long long CH = 512;                                                \
            for (; k + CH <= n; k += CH) {                                               \
                vt s0k[R], s1k[R], c0k[R], c1k[R];                                       \
                for (int i = 0; i < R; i++) s0k[i] = s0[i], s1k[i] = s1[i], c0k[i] = c0[i], c1k[i] = c1[i]; \
                vu_##SUFFIX bad = {};                                                    \
                for (long long j = k; j < k + CH; j += 2 * L)                            \
                    for (int i = 0; i < R; i++) {                                        \
                        const T *xi = x + i * ld;                                        \
                        if (j < pf_end) prefetch_lines<2 * L * sizeof(T)>(xi + j + ahead); \
                        two_sum_step_##SUFFIX(s0[i], s1[i], c0[i], c1[i], vmap_##SUFFIX<M>(narrow_##SUFFIX(xi + j, bad)), \
                                              vmap_##SUFFIX<M>(narrow_##SUFFIX(xi + j + L, bad)), one, mone); \
                    }                                                                    \
                if (!narrow_ok_##SUFFIX(bad)) {                                          \
                    for (int i = 0; i < R; i++) s0[i] = s0k[i], s1[i] = s1k[i], c0[i] = c0k[i], c1[i] = c1k[i]; \
                    for (long long j = k; j < k + CH; j += 2 * L)                        \
                        for (int i = 0; i < R; i++)                                      \
                            two_sum_step_##SUFFIX(s0[i], s1[i], c0[i], c1[i], vmap_##SUFFIX<M>(load_##SUFFIX(x + i * ld + j)), \
                                                  vmap_##SUFFIX<M>(load_##SUFFIX(x + i * ld + j + L)), one, mone); \
                }                                                                        \
            }                                                                            \
        }                                                                                \
        /* the steps prefetched ahead (see two_sum_ahead), then those whose */          \
        /* prefetch would pass x + reach without the test */                            \
        for (; k + 2 * L <= n && k < pf_end; k += 2 * L) {                               \
            for (int i = 0; i < R; i++) prefetch_lines<2 * L * sizeof(T)>(x + i * ld + k + ahead); \
            two_sum_steps_##SUFFIX<R, T, A, M>(x + k, ld, s0, s1, c0, c1, one, mone);    \
        }                                                                                \
        _Pragma("GCC unroll 2")                                                          \
        for (; k + 2 * L <= n; k += 2 * L) two_sum_steps_##SUFFIX<R, T, A, M>(x + k, ld, s0, s1, c0, c1, one, mone); \
        if (k < n) { /* the rest, padded with -0.0 */                                   \
            const long long rem = n - k;                                                 \
            for (int i = 0; i < R; i++) {                                                \
                const T *xi = x + i * ld;                                                \
                vt v0 = vt{} * (A)-1, v1 = v0;                                           \
                if constexpr (std::is_same<T, A>::value && BYTES >= 32) {                \
                    /* masked loads (the lanes past n neither read nor mapped) */        \
                    tail_lanes_##SUFFIX<M>(xi + k, rem < L ? rem : L, v0);               \
                    if (rem > L) tail_lanes_##SUFFIX<M>(xi + k + L, rem - L, v1);        \
                } else { /* lanes set in registers (a buffer's scalar stores */          \
                    /* would stall the vector load) */                                   \
                    _Pragma("GCC unroll 32") for (int j = 0; j < L; j++) if (j < rem) v0[j] = M::one(to_real<A>(xi[k + j])); \
                    _Pragma("GCC unroll 32") for (int j = 0; j < L; j++) if (L + j < rem) v1[j] = M::one(to_real<A>(xi[k + L + j])); \
                }                                                                        \
                /* (a rest of at most L: the lanes 1 would step on -0.0 */               \
                /* alone, which leaves s1 as it is and adds +0.0 to c1 -- */             \
                /* never -0.0: from +0.0, a sum is -0.0 only of two -0.0 -- */           \
                /* or, s1 not finite, NaN to a c1 the end sets to 0) */                  \
                if (rem > L) two_sum_step_##SUFFIX(s0[i], s1[i], c0[i], c1[i], v0, v1, one, mone); \
                else two_sum_vec_##SUFFIX(s0[i], c0[i], v0, one, mone);                  \
            }                                                                            \
        }                                                                                \
    }                                                                                    \
    /* The lanes whose TwoSum overflowed inside (finite s, non-finite */                 \
    /* error: a partial sum and an element near the largest value of */                  \
    /* opposite signs), the errors of non-finite lanes set to 0; */                      \
    /* overflowed: whether any lane did */                                               \
    template <class A, class vt>                                                         \
    ATTR inline __attribute__((always_inline)) auto two_sum_overflow_mask_##SUFFIX(vt s0, vt s1, vt &c0, vt &c1) { \
        const auto bad = two_sum_bad_##SUFFIX<A>(s0, c0) | two_sum_bad_##SUFFIX<A>(s1, c1); \
        static_assert(sizeof(bad) == BYTES, "one mask lane per lane");                   \
        return bad;                                                                      \
    }                                                                                    \
    template <class A, class vt>                                                         \
    ATTR inline __attribute__((always_inline)) bool two_sum_overflowed_##SUFFIX(vt s0, vt s1, vt &c0, vt &c1) { \
        return any_lane_##SUFFIX(two_sum_overflow_mask_##SUFFIX<A>(s0, s1, c0, c1));     \
    }                                                                                    \
    /* Whether two_sum of T into A lanes has the exact integer path below */             \
    template <class T, class A, class M>                                                 \
    static constexpr bool exact_i64_##SUFFIX = sizeof(T) == 8 && std::is_integral<T>::value && \
                                               std::is_same<A, double>::value &&         \
                                               std::is_same<M, id_map>::value;           \
    /* two_sum's (s, c) of 64-bit integers, all in [-2**51, 2**51) (unsigned: */         \
    /* [0, 2**52)), n <= 2**26: the exact sum S in integer lanes (each chunk */          \
    /* of 512 in int64, the chunks in __int128), then (fl(S), S - fl(S)) -- */           \
    /* the very bits of the float64 lanes there: every converted value is */             \
    /* exact, every partial sum an integer below n 2**52 = 2**78, so every */            \
    /* TwoSum error an integer of at most 2**25 and their sum (c, and the */             \
    /* merges' c_a + c_b + e) an integer below n 2**25 <= 2**51: all exact, so */        \
    /* the renormalised pair is S's, whatever the lane order.  false (nothing */         \
    /* written) where an element lies outside or n is larger: the lanes then. */        \
    template <class T>                                                                   \
    ATTR inline bool two_sum_exact_##SUFFIX(const T *x, long long n, double *s_out, double *c_out) { \
        constexpr int L = BYTES / 8;                                                     \
        constexpr long long CH = 512;                                                    \
        constexpr unsigned long long BIAS = std::is_signed<T>::value ? 1ull << 51 : 0;   \
        if (n > (1LL << 26)) return false;                                               \
        __int128 S = 0;                                                                  \
        unsigned long long tail_bad = 0;                                                 \
        long long k = 0;                                                                 \
        const long long ahead = two_sum_ahead<T>();                                      \
        for (; k + CH <= n; k += CH) {                                                   \
            vu_##SUFFIX a0 = {}, a1 = {}, bad = {};                                      \
            for (long long j = k; j < k + CH; j += 2 * L) {                              \
                if (j + ahead < n) prefetch_lines<2 * BYTES>(x + j + ahead);                 \
                vu_##SUFFIX u0, u1;                                                      \
                std::memcpy(&u0, x + j, BYTES);                                          \
                std::memcpy(&u1, x + j + L, BYTES);                                      \
                a0 += u0;                                                                \
                a1 += u1;                                                                \
                bad |= (u0 + BIAS) | (u1 + BIAS);                                        \
            }                                                                            \
            if (!narrow_ok_##SUFFIX(bad)) return false;                                  \
            a0 += a1; /* (wrapping adds: the chunk's exact sum, below 2**61, mod 2**64) */ \
            long long sum = 0;                                                           \
            for (int l = 0; l < L; l++) sum += (long long)a0[l];                         \
            S += sum;                                                                    \
        }                                                                                \
        for (; k < n; k++) {                                                             \
            tail_bad |= (unsigned long long)x[k] + BIAS;                                 \
            S += (__int128)x[k];                                                         \
        }                                                                                \
        if (tail_bad >> 52) return false;                                                \
        const double hi = (double)S; /* correctly rounded (to nearest, ties to even) */  \
        *s_out = hi;                                                                     \
        *c_out = (double)(S - (__int128)hi); /* below ulp(hi) / 2 <= 2**25: exact */     \
        return true;                                                                     \
    }                                                                                    \
    /* compensated sum of x[0..n) in A's lanes (float64 or float32 data in */            \
    /* their own, float16 in float32 lanes, integers in float64 lanes, */                \
    /* converted exactly as to_real does): two_sum_lanes, then the lanes */              \
    /* merged pairwise (two_sum_fold) into (*s, *c) -- a log2(2 L) deep tree */          \
    /* of vector merges, not 2 L merges in a row -- and (s, c) renormalised */           \
    /* (s = fl(s + c), c its error, where c != 0 and that is finite: the */              \
    /* same sum s + c).  false (nothing written) for n < 2 L, or where a */              \
    /* lane's TwoSum overflowed inside: the caller then sums in order with */            \
    /* the scalar two_sum, which handles that */                                         \
    template <class T, class A = T, class M = id_map>                                    \
    ATTR inline bool two_sum_##SUFFIX(const T *x, long long n, A *s_out, A *c_out) {     \
        constexpr int L = BYTES / (int)sizeof(A);                                        \
        typedef A vt __attribute__((vector_size(BYTES)));                                \
        if (n < 2 * L) return false;                                                     \
        if constexpr (exact_i64_##SUFFIX<T, A, M>) {                                     \
            if (two_sum_exact_##SUFFIX(x, n, s_out, c_out)) return true;                 \
        }                                                                                \
        vt s0a[1], s1a[1], c0a[1], c1a[1];                                               \
        const vt one = vt{} + opaque_one<A>(), mone = -one;                              \
        two_sum_lanes_##SUFFIX<1, T, A, M>(x, 0, n, n, s0a, s1a, c0a, c1a, one, mone);      \
        vt s0 = s0a[0], s1 = s1a[0], c0 = c0a[0], c1 = c1a[0];                           \
        if (two_sum_overflowed_##SUFFIX<A>(s0, s1, c0, c1)) return false;                \
        A s[2 * L], c[2 * L];                                                            \
        std::memcpy(s, &s0, BYTES);                                                      \
        std::memcpy(s + L, &s1, BYTES);                                                  \
        std::memcpy(c, &c0, BYTES);                                                      \
        std::memcpy(c + L, &c1, BYTES);                                                  \
        two_sum_fold_##SUFFIX<A, BYTES>(s, c);                                           \
        A t, e;                                                                          \
        nr::two_sum(s[0], s[1], t, e);                                                   \
        A cs = t - t == (A)0 ? (c[0] + c[1]) + e : (A)0;                                 \
        if (cs != (A)0) {                                                                \
            A t2, e2;                                                                    \
            nr::two_sum(t, cs, t2, e2);                                                  \
            if (t2 - t2 == (A)0) {                                                       \
                t = t2;                                                                  \
                cs = e2;                                                                 \
            }                                                                            \
        }                                                                                \
        *s_out = t;                                                                      \
        *c_out = cs;                                                                     \
        return true;                                                                     \
    }                                                                                    \
    /* RR rows (row j at x + j ld) of two_sum_rows' block: their lanes */                \
    /* stepped together, each row's lanes j, j + L merged into S[j], C[j], */            \
    /* overflows and merges to redo flagged in bad.  (The lanes in locals: */           \
    /* S[j] / C[j] by reference kept the running sums on the stack, every */            \
    /* step's chain through a store and a reload -- Zen 4, AVX-512, rows of */           \
    /* 1250 float64: 2.6 ms against the 1-d stream's 2.1 for 1e7) */                    \
    template <int RR, class T, class A, class M, class vt, class mt>                      \
    ATTR inline __attribute__((always_inline)) void two_sum_row_group_##SUFFIX(const T *x, long long ld, long long n, \
                                                                              long long reach, vt *S, vt *C, mt &bad, \
                                                                              const vt one, const vt mone) { \
        vt s0[RR], s1[RR], c0[RR], c1[RR];                                               \
        two_sum_lanes_##SUFFIX<RR, T, A, M>(x, ld, n, reach, s0, s1, c0, c1, one, mone); \
        for (int j = 0; j < RR; j++) {                                                   \
            bad |= two_sum_overflow_mask_##SUFFIX<A>(s0[j], s1[j], c0[j], c1[j]);        \
            two_sum_merge_##SUFFIX<A>(s0[j], s1[j], c0[j], c1[j], bad); /* lanes j, j + L */ \
            S[j] = s0[j];                                                                \
            C[j] = c0[j];                                                                \
        }                                                                                \
    }                                                                                    \
    /* two_sum of each of `rows` rows of n elements (row r at x + r ld) into */          \
    /* s[r], c[r], ok[r] = 1; ok[r] = 0 where two_sum returns false for that */          \
    /* row (s[r], c[r] then meaningless).  Blocks of L rows end together: */             \
    /* their lanes transposed (lane j of every row in one vector), so that */            \
    /* the fold's merges and the final TwoSum run once per block, in the */              \
    /* same lanes pairs as two_sum's (the same bits), not once per row on */             \
    /* ever narrower vectors and scalars */                                              \
    template <class T, class A = T, class M = id_map>                                    \
    ATTR inline void two_sum_rows_##SUFFIX(const T *x, long long ld, long long rows, long long n, A *s, A *c, unsigned char *ok, \
                                           bool far) {                                   \
        constexpr int L = BYTES / (int)sizeof(A);                                        \
        static_assert(L % 2 == 0, "whole row groups a block");                          \
        typedef A vt __attribute__((vector_size(BYTES)));                                \
        long long r = 0;                                                                 \
        const vt one = vt{} + opaque_one<A>(), mone = -one;                              \
        const int rr = two_sum_rows_at_once(); /* 1 or 2 */                              \
        if (n >= 2 * L) {                                                                \
            for (; r + L <= rows; r += L) {                                              \
                vt S[L], C[L];                                                           \
                decltype(S[0] == S[0]) bad{}; /* lanes overflowed, merges to redo */     \
                for (int i = 0; i < L; i += rr) {                                        \
                    /* far (the rows likely from memory, ld = n: the block read in */    \
                    /* memory order): the prefetch runs on into the rows that */         \
                    /* follow, up to the block's end; else within its rows (from */      \
                    /* cache: Intel SPR class, rows of 100 float64 from the L2, 28.2 */  \
                    /* ns a row with it against 24.8) */                                 \
                    const long long reach = far && ld == n ? (rows - r - i) * ld : (rr - 1) * ld + n; \
                    if (rr == 2)                                                         \
                        two_sum_row_group_##SUFFIX<2, T, A, M>(x + (r + i) * ld, ld, n, reach, S + i, C + i, bad, one, mone); \
                    else                                                                 \
                        two_sum_row_group_##SUFFIX<1, T, A, M>(x + (r + i) * ld, ld, n, reach, S + i, C + i, bad, one, mone); \
                }                                                                        \
                /* transpose: S[j] = lane j of every row (swap the off-diagonal */       \
                /* blocks of sizes 1, 2, ..., L / 2) */                                  \
                transpose_lanes<1, L>(S);                                                \
                transpose_lanes<1, L>(C);                                                \
                for (int w = L / 2; w >= 2; w /= 2) /* lanes j, j + w (w > 1) */         \
                    for (int j = 0; j < w; j++) two_sum_merge_##SUFFIX<A>(S[j], S[j + w], C[j], C[j + w], bad); \
                two_sum_merge_##SUFFIX<A>(S[0], S[1], C[0], C[1], bad); /* the final TwoSum */ \
                vt t2, e2; /* renormalised, as two_sum does it */                        \
                two_sum_v_##SUFFIX<A>(S[0], C[0], t2, e2, bad);                          \
                /* a lane overflowed, or a merge needed TwoSum's fix (rare): the */      \
                /* block's rows one by one (the same bits, ok[] as two_sum says) */      \
                if (any_lane_##SUFFIX(bad)) {                                            \
                    for (int i = 0; i < L; i++)                                          \
                        ok[r + i] = two_sum_##SUFFIX<T, A, M>(x + (r + i) * ld, n, s + r + i, c + r + i); \
                    continue;                                                            \
                }                                                                        \
                std::memset(ok + r, 1, L);                                               \
                const auto use = (C[0] != (A)0) & (t2 - t2 == (A)0);                     \
                const vt t = use ? t2 : S[0], cs = use ? e2 : C[0];                      \
                std::memcpy(s + r, &t, BYTES);                                           \
                std::memcpy(c + r, &cs, BYTES);                                          \
            }                                                                            \
            for (; r < rows; r++) ok[r] = two_sum_##SUFFIX<T, A, M>(x + r * ld, n, s + r, c + r); \
        }                                                                                \
        for (; r < rows; r++) ok[r] = 0;                                                 \
    }

#define NR_STREAM_KERNEL(SUFFIX, BYTES, ATTR)                                           \
    /* U vectors of columns [c0, c0 + U W) of a row-major block (rows x */               \
    /* cols, rows `stride` elements apart) summed down the rows into their */           \
    /* states (s_acc, c_acc), held in registers while the rows stream past: */          \
    /* per column in row order, exactly step()'s arithmetic (TwoSum; its */             \
    /* error 0 where the sum is not finite, applied at the end: once inf or */          \
    /* NaN, a sum stays so).  A tile whose TwoSum overflowed inside (finite */          \
    /* sum, non-finite error) is redone column by column with the scalar */             \
    /* two_sum (step() itself) */                                                      \
    /* pf: prefetch each row's columns 512 bytes past the tile (the tile */             \
    /* after next; only where they lie inside the row): a tile reads a */                \
    /* short piece of each of its rows, too short for the hardware */                    \
    /* prefetchers alone (about 1.4x faster at 4000 x 4000 float64) */                   \
    /* one row of a tile: U vectors stepped into (s, c) */                               \
    template <int U, class A, class M, class vt>                                         \
    ATTR inline __attribute__((always_inline)) void two_sum_tile_row_##SUFFIX(vt (&s)[U], vt (&c)[U], const A *xr, \
                                                                              vt one, vt mone) { \
        constexpr int W = BYTES / (int)sizeof(A);                                        \
        for (int u = 0; u < U; u++) {                                                    \
            vt v;                                                                        \
            std::memcpy(&v, xr + u * W, BYTES);                                          \
            two_sum_vec_##SUFFIX(s[u], c[u], vmap_##SUFFIX<M>(v), one, mone);            \
        }                                                                                \
    }                                                                                    \
    template <int U, class A, class M = id_map>                                          \
    ATTR inline void two_sum_tile_##SUFFIX(A *s_acc, A *c_acc, const A *x, long long rows, \
                                           long long stride, long long c0, int keep = 0,  \
                                           bool pf = false) {                            \
        constexpr int W = BYTES / (int)sizeof(A);                                        \
        constexpr long long PF = 512 / (long long)sizeof(A);                             \
        typedef A vt __attribute__((vector_size(BYTES)));                                \
        vt s[U], c[U];                                                                   \
        const vt one = vt{} + opaque_one<A>(), mone = -one;                              \
        for (int u = 0; u < U; u++) {                                                    \
            std::memcpy(&s[u], s_acc + c0 + u * W, BYTES);                               \
            std::memcpy(&c[u], c_acc + c0 + u * W, BYTES);                               \
        }                                                                                \
        if (pf) {                                                                        \
            _Pragma("GCC unroll 2")                                                      \
            for (long long r = 0; r < rows; r++) {                                       \
                const A *xr = x + r * stride + c0;                                       \
                for (int u = 0; u < U; u++)                                              \
                    if ((u * BYTES) % 64 == 0) __builtin_prefetch(xr + PF + u * W);      \
                two_sum_tile_row_##SUFFIX<U, A, M>(s, c, xr, one, mone);                \
            }                                                                            \
        } else {                                                                         \
            _Pragma("GCC unroll 2")                                                      \
            for (long long r = 0; r < rows; r++)                                         \
                two_sum_tile_row_##SUFFIX<U, A, M>(s, c, x + r * stride + c0, one, mone); \
        }                                                                                \
        /* (the lanes' overflow tests ORed in a vector and tested once, not */          \
        /* lane by lane: 32 extracts a tile of four 64-byte vectors) */                  \
        decltype(s[0] == s[0]) any{};                                                    \
        for (int u = 0; u < U; u++) any |= two_sum_bad_##SUFFIX<A>(s[u], c[u]);          \
        for (int j = 0; j < keep; j++) any[j] = 0;                                       \
        if (any_lane_##SUFFIX(any)) {                                                    \
            for (long long j = c0 + keep; j < c0 + U * W; j++) {                         \
                A sj = s_acc[j], cj = c_acc[j];                                          \
                for (long long r = 0; r < rows; r++) {                                   \
                    A t, e;                                                              \
                    nr::two_sum(sj, M::one(x[r * stride + j]), t, e);                    \
                    cj = t - t == (A)0 ? cj + e : (A)0;                                  \
                    sj = t;                                                              \
                }                                                                        \
                s_acc[j] = sj;                                                           \
                c_acc[j] = cj;                                                           \
            }                                                                            \
            return;                                                                      \
        }                                                                                \
        if (keep > 0) { /* the lanes of columns another tile did stay as they are */    \
            for (int j = keep; j < W; j++) {                                             \
                s_acc[c0 + j] = s[0][j];                                                 \
                c_acc[c0 + j] = c[0][j];                                                 \
            }                                                                            \
            return;                                                                      \
        }                                                                                \
        for (int u = 0; u < U; u++) {                                                    \
            std::memcpy(s_acc + c0 + u * W, &s[u], BYTES);                               \
            std::memcpy(c_acc + c0 + u * W, &c[u], BYTES);                               \
        }                                                                                \
    }                                                                                    \
    /* the columns of the block in tiles of 4 vectors, then of one, then */              \
    /* (cols >= W) the last W columns as one tile of which only the lanes of */          \
    /* the columns not yet done are kept (the others, already summed, are */             \
    /* stepped again on a copy and dropped, their overflow ignored); returns */          \
    /* the number of leading columns done (the caller steps the rest) */                 \
    template <class A, class M = id_map>                                                 \
    ATTR inline long long two_sum_cols_##SUFFIX(A *s_acc, A *c_acc, const A *x, long long rows, \
                                                long long cols, long long stride) {      \
        constexpr int W = BYTES / (int)sizeof(A);                                        \
        long long c0 = 0;                                                                \
        constexpr long long PF = 512 / (long long)sizeof(A);                             \
        for (; c0 + 4 * W <= cols; c0 += 4 * W)                                          \
            two_sum_tile_##SUFFIX<4, A, M>(s_acc, c_acc, x, rows, stride, c0, 0, c0 + PF + 4 * W <= cols); \
        for (; c0 + W <= cols; c0 += W) two_sum_tile_##SUFFIX<1, A, M>(s_acc, c_acc, x, rows, stride, c0); \
        if (c0 < cols && cols >= W) {                                                    \
            two_sum_tile_##SUFFIX<1, A, M>(s_acc, c_acc, x, rows, stride, cols - W, (int)(c0 - (cols - W))); \
            c0 = cols;                                                                   \
        }                                                                                \
        return c0;                                                                       \
    }                                                                                    \
    /* The rows of a block summed down into (s_acc, c_acc) with the */                  \
    /* accumulator rows in memory (L1: the caller streams only rows whose */            \
    /* accumulators fit, row_stream_bytes) and the data read in memory */                \
    /* order (row_stream): per column in row order, the tiles' TwoSum */                \
    /* arithmetic.  The error is left as the arithmetic gives it: the caller */         \
    /* zeroes it where the sum is not finite and redoes a column whose TwoSum */        \
    /* overflowed inside (a finite sum with a non-finite error) with step(), */         \
    /* as the tiles do.  Returns cols, or 0 (nothing touched) where cols is */          \
    /* narrower than one vector */                                                       \
    template <class M>                                                                   \
    struct two_sum_into_##SUFFIX {                                                       \
        template <class V>                                                               \
        ATTR __attribute__((always_inline)) static void step(const V (&k)[2], V &s, V &c, V v) { \
            two_sum_vec_##SUFFIX(s, c, vmap_##SUFFIX<M>(v), k[0], k[1]);                 \
        }                                                                                \
    };                                                                                   \
    template <class A, class M = id_map>                                                 \
    ATTR inline long long two_sum_stream_##SUFFIX(A *s_acc, A *c_acc, const A *x, long long rows, \
                                                  long long cols, long long stride) {    \
        typedef A vt __attribute__((vector_size(BYTES)));                                \
        const vt one = vt{} + opaque_one<A>();                                           \
        const vt k[2] = {one, -one};                                                     \
        return row_stream_##SUFFIX<two_sum_into_##SUFFIX<M>>(s_acc, c_acc, x, rows, cols, stride, k); \
    }

// The memory-streaming kernels (mem_level), in every variant and in
// NR_SIMD_MEM_VARIANTS' one more (which only the min/max family of elements
// wider than 2 bytes runs: NR_MEM_Y; the others are declared there for the
// dispatchers' discarded branches); the others in the variants.
#define NR_SIMD_MEM_INSTANTIATE(SUFFIX, BYTES, ATTR) \
    NR_MINMAX_STEP(SUFFIX, BYTES, ATTR)              \
    NR_MINMAX_KERNEL(SUFFIX, BYTES, ATTR)            \
    NR_COLS_KERNEL(SUFFIX, BYTES, ATTR)              \
    NR_ROWS_KERNEL(SUFFIX, BYTES, ATTR)              \
    NR_FIND_KERNEL(SUFFIX, BYTES, ATTR)              \
    NR_STREAM_KERNEL(SUFFIX, BYTES, ATTR)
#define NR_SIMD_INSTANTIATE(SUFFIX, BYTES, ATTR) \
    NR_SIMD_MEM_INSTANTIATE(SUFFIX, BYTES, ATTR) \
    NR_ARG_KERNEL(SUFFIX, BYTES, ATTR)           \
    NR_F64_KERNELS(SUFFIX, BYTES, ATTR)
NR_SIMD_VARIANTS(NR_SIMD_INSTANTIATE)
#if defined(NR_SIMD_X86)
NR_SIMD_MEM_VARIANTS(NR_SIMD_MEM_INSTANTIATE)
#endif
#undef NR_SIMD_INSTANTIATE
#undef NR_SIMD_MEM_INSTANTIATE
#undef NR_STREAM_KERNEL
#undef NR_MINMAX_STEP
#undef NR_MINMAX_KERNEL
#undef NR_COLS_KERNEL
#undef NR_ROWS_KERNEL
#undef NR_FIND_KERNEL
#undef NR_ARG_KERNEL
#undef NR_F64_KERNELS
#undef NR_HALF_LANES

// The dispatchers: the variant of simd_level(), or of mem_level() for the
// memory-streaming kernels (NR_DISPATCH_MEM).
#if defined(NR_SIMD_X86)
#define NR_DISPATCH(TEMPLATE, NAME, ARGS, CALL)                                  \
    TEMPLATE inline auto NAME ARGS {                                             \
        switch (simd_level()) {                                                  \
            case 2: return NAME##_avx512 CALL;                                   \
            case 1: return NAME##_avx2 CALL;                                     \
            default: return NAME##_base CALL;                                    \
        }                                                                        \
    }
// (the memory-streaming kernels: mem_level(); its 32-byte AVX-512 level
// runs the avx512y variant where NR_MEM_Y, a constant expression of the
// call, says so, else AVX2's code at the same width)
#define NR_DISPATCH_MEM(TEMPLATE, NAME, ARGS, CALL)                              \
    TEMPLATE inline auto NAME ARGS {                                             \
        switch (mem_level()) {                                                   \
            case 3:                                                              \
                if constexpr (NR_MEM_Y) return NAME##_avx512y CALL;              \
                else return NAME##_avx2 CALL;                                    \
            case 2: return NAME##_avx512 CALL;                                   \
            case 1: return NAME##_avx2 CALL;                                     \
            default: return NAME##_base CALL;                                    \
        }                                                                        \
    }
// (NR_DISPATCH, but the AVX-512 variant only where WIDE, an expression of
// the call's arguments -- a rule by length, the same on every CPU, so that
// a level's bits depend on the data's length alone -- else AVX2's)
#define NR_DISPATCH_LEN(TEMPLATE, NAME, ARGS, CALL, WIDE)                        \
    TEMPLATE inline auto NAME ARGS {                                             \
        switch (simd_level()) {                                                  \
            case 2:                                                              \
                if (WIDE) return NAME##_avx512 CALL;                             \
                return NAME##_avx2 CALL;                                         \
            case 1: return NAME##_avx2 CALL;                                     \
            default: return NAME##_base CALL;                                    \
        }                                                                        \
    }
#else  // one variant
#define NR_DISPATCH(TEMPLATE, NAME, ARGS, CALL) \
    TEMPLATE inline auto NAME ARGS { return NAME##_base CALL; }
#define NR_DISPATCH_MEM NR_DISPATCH
// (written out, not forwarded to NR_DISPATCH: a function-like macro's
// arguments are expanded before they are passed on, and a TEMPLATE with
// NR_COMMA would reach NR_DISPATCH as more arguments -- the aarch64 build)
#define NR_DISPATCH_LEN(TEMPLATE, NAME, ARGS, CALL, WIDE) \
    TEMPLATE inline auto NAME ARGS { return NAME##_base CALL; }
#endif
#define NR_COMMA ,
// The min/max family at 32 bytes under AVX-512: AVX-512VL's code (64-bit
// integer min/max in one instruction; from L2 on Zen 4 1e5 int64 8.5 us
// against AVX2's 12.4, float64 9.6 against 11.1), but AVX2's for 1- and
// 2-byte elements (1e5 int16 2.0 us against 2.4; each kernel's data is x)
#define NR_MEM_Y (sizeof(*x) > 2)
NR_DISPATCH_MEM(template <class T NR_COMMA bool SKIP>, minmax,
                (const T *x, long long n, typename minmax_lane<T>::type *lo,
                 typename minmax_lane<T>::type *hi, typename minmax_lane<T>::type *nan),
                <T NR_COMMA SKIP>(x, n, lo, hi, nan))
NR_DISPATCH_MEM(template <class T NR_COMMA bool SKIP = false>, minmax_cols,
                (T *lo, T *hi, const T *x, long long rows, long long cols, long long stride),
                <T NR_COMMA SKIP>(lo, hi, x, rows, cols, stride))
NR_DISPATCH_MEM(template <class T NR_COMMA bool NE = false>, find_eq, (const T *x, long long n, T v),
                <T NR_COMMA NE>(x, n, v))
#undef NR_MEM_Y
// The TwoSum kernels and the min/max row streams at 32 bytes: AVX2's code
// (Zen 4: a (4000, 4000) float64 fsum over axis 0 4.6 ms against 5.2 with
// AVX-512VL's; minmax over the middle axis of (200, 200, 250) float64 3.1
// against 3.7 -- the row streams' NaN-aware selects became mask-register
// operations)
#define NR_MEM_Y false
NR_DISPATCH_MEM(template <class T NR_COMMA bool SKIP = false>, minmax_rows,
                (T *lo, T *hi, const T *x, long long rows, long long cols, long long stride),
                <T NR_COMMA SKIP>(lo, hi, x, rows, cols, stride))
NR_DISPATCH_MEM(template <class A NR_COMMA class M = id_map>, two_sum_cols,
                (A *s, A *c, const A *x, long long rows, long long cols, long long stride),
                <A NR_COMMA M>(s, c, x, rows, cols, stride))
NR_DISPATCH_MEM(template <class A NR_COMMA class M = id_map>, two_sum_stream,
                (A *s, A *c, const A *x, long long rows, long long cols, long long stride),
                <A NR_COMMA M>(s, c, x, rows, cols, stride))
// The axis-0 TwoSum tiles of data from the L2 (far: larger, see
// rows_from_memory): compute-bound there, so simd_level()'s width rather
// than mem_level()'s, unless NUMREDUCE_STREAM_WIDTH sets it.  Zen 4, one
// thread, fsum over axis 0, us at 64 bytes against 32: (100, 1000) float64
// 19.1 against 32.0 (np.sum 16.2), float32 10.3 against 16.6, (1000, 100)
// float64 21.2 against 31.5, (300, 300) 18.3 against 27.3; from memory 32
// stays faster for float64 ((4000, 4000) 5.5-5.7 ms against 6.7-7.0).
template <class A, class M = id_map>
inline long long two_sum_cols_at(bool far, A *s, A *c, const A *x, long long rows, long long cols,
                                 long long stride) {
#if defined(NR_SIMD_X86)
    if (!far && simd_level() == 2 && !mem_level_set()) return two_sum_cols_avx512<A, M>(s, c, x, rows, cols, stride);
#endif
    (void)far;
    return two_sum_cols<A, M>(s, c, x, rows, cols, stride);
}
// The float64 kernels read float64, float32, float16 or integers (load_*:
// converted as to_real does); f64_lanes<T> says which.
// The moments' blocks (shift_store, dev_sums; Summary's shift_minmax,
// dev_sums4): AVX2's lanes under AVX-512 for blocks of fewer than
// MOMENTS_WIDE elements (whatever the input type: float32 data and the
// same values as float64 keep the same bits).  A short block's time is its
// fixed cost -- the lanes' folds, the counts' (nanmeanvar), the merge --
// which ran slower at 64 bytes (Intel SPR class, cpuid model a7h, rows of
// n float64, one thread, ns an element, AVX-512 against AVX2: nanmeanvar
// n = 32 2.32 against 1.64, 64 1.24 against 0.91, 128 0.78 against 0.64,
// 192 0.55 against 0.62, 512 0.36 against 0.44; meanvar 16 3.05 against
// 2.70, 64 0.94 against 0.90, 128 0.60 against 0.64, 384 0.39 against
// 0.45; describe 16 5.4 against 4.8, 64 2.01 against 1.93, 128 1.42
// against 1.46).  Not measured on Zen 4, which runs 64-byte vectors as
// two halves.
constexpr long long MOMENTS_WIDE = 128;
NR_DISPATCH_LEN(template <class T NR_COMMA bool SKIP = false>, shift_store,
                (const T *x, long long n, double K, double *y, double *o, double *c),
                <T NR_COMMA SKIP>(x, n, K, y, o, c), n >= MOMENTS_WIDE)
NR_DISPATCH_LEN(template <bool SKIP = false>, dev_sums,
                (const double *y, long long n, double m, double *a, double *b), <SKIP>(y, n, m, a, b),
                n >= MOMENTS_WIDE)
NR_DISPATCH_LEN(template <class T NR_COMMA bool SKIP = false>, shift_minmax,
                (const T *x, long long n, double K, double *y, double *o, double *c, double *lo,
                 double *hi),
                <T NR_COMMA SKIP>(x, n, K, y, o, c, lo, hi), n >= MOMENTS_WIDE)
NR_DISPATCH_LEN(template <bool SKIP = false>, dev_sums4, (const double *y, long long n, double m, double *s),
                <SKIP>(y, n, m, s), n >= MOMENTS_WIDE)
// argminmax's one pass: simd_level(), but AVX2's variant under AVX-512 for
// rows shorter than argminmax_wide_bytes(): on short rows the lanes' fold
// (value and index) is the cost, twice as many lanes at 64 bytes.  With the
// fold in vectors (arg_fold) the crossover depends on the core, so the
// rule is by CPU; every level gives the same indices, so the choice is
// speed alone.  1e7 elements (4e6 for Intel) in rows of n, one thread:
//  - AMD family 19h (Zen 4), with the scalar fold, AVX-512 against AVX2:
//    n = 64 float32 11.2 ms against 6.3, 200 float64 3.5 against 3.1, 1000
//    float32 1.56 against 1.43; from 500 float64 / 2000 float32 on AVX-512
//    as fast or faster (4000 float64 2.26 against 2.47): 4 KiB.
//  - Intel (a Sapphire Rapids class Xeon, cpuid model a7h under KVM), the
//    vector fold, ns an element: float32 n = 16 1.8-2.1 against 1.7, 32
//    0.90-0.95 against 0.88-0.95, 64 0.54-0.57 against 0.57, 100 0.40
//    against 0.47-0.50, 256 0.24 against 0.35-0.40; float64 n = 16 2.2
//    against 1.8-2.5, 32 0.95-1.16 against 1.12-1.39, 100 0.48-0.52 against
//    0.75-0.78, 200 0.44 against 0.81-0.90: 256 bytes.  Other CPUs (not
//    measured: Zen 5, whose AVX-512 datapath is 512 bits wide, and other
//    Intel cores) take Intel's rule.
struct arg_width_choice {
    long long bytes;
    const char *why;
};
inline arg_width_choice choose_argminmax_width() {
    if (cpu().amd_19h()) {
        return {4096, "AMD family 19h: its 64-byte lanes' fold was slower on shorter rows"};
    }
    return {256, "the crossover measured on Intel Sapphire Rapids"};
}
inline long long argminmax_wide_bytes() {
    static const long long b = choose_argminmax_width().bytes;
    return b;
}
#if defined(NR_SIMD_X86)
template <class T, bool SKIP = false>
inline bool argminmax(const T *x, long long n, long long *lo, long long *hi) {
    const int level = simd_level();
    if (level == 2 && n * (long long)sizeof(T) >= argminmax_wide_bytes()) {
        return argminmax_avx512<T, SKIP>(x, n, lo, hi);
    }
    if (level >= 1) return argminmax_avx2<T, SKIP>(x, n, lo, hi);
    return argminmax_base<T, SKIP>(x, n, lo, hi);
}
#else
NR_DISPATCH(template <class T NR_COMMA bool SKIP = false>, argminmax,
            (const T *x, long long n, long long *lo, long long *hi), <T NR_COMMA SKIP>(x, n, lo, hi))
#endif
NR_DISPATCH(template <class T NR_COMMA bool SKIP NR_COMMA class O>, argminmax_cols,
            (const T *x, long long rows, long long cols, long long stride, O *lo, O *hi),
            <T NR_COMMA SKIP NR_COMMA O>(x, rows, cols, stride, lo, hi))
NR_DISPATCH(template <class T>, max, (const T *x, long long n, double *o), <T>(x, n, o))
NR_DISPATCH(template <class T>, sum_exp, (const T *x, long long n, double mx, double *o, double *c),
            <T>(x, n, mx, o, c))
NR_DISPATCH(template <class T>, lse_cols,
            (const T *x, long long rows, long long cols, long long stride, double *M, double *Tt,
             double *Ec, double *bm, double *bt, double *be, long long ahead),
            <T>(x, rows, cols, stride, M, Tt, Ec, bm, bt, be, ahead))
NR_DISPATCH(template <class T>, max_b, (const T *x, const T *b, long long n, double *mx, int *f),
            <T>(x, b, n, mx, f))
NR_DISPATCH(template <class T>, sum_exp_b,
            (const T *x, const T *b, long long n, double mx, double *o, double *c),
            <T>(x, b, n, mx, o, c))
NR_DISPATCH(template <class T>, sum_prod, (const T *x, const T *y, long long n, double *s, double *c),
            <T>(x, y, n, s, c))
NR_DISPATCH(template <class T NR_COMMA bool SKIP>, wsums,
            (const T *x, const T *w, long long n, double K, double *s0, double *s1, double *s2),
            <T NR_COMMA SKIP>(x, w, n, K, s0, s1, s2))
NR_DISPATCH(template <class T>, cosums,
            (const T *x, const T *y, long long n, double Kx, double Ky, double *const *s),
            <T>(x, y, n, Kx, Ky, s))
// The TwoSum lanes: simd_level(), but AVX2's 32-byte lanes for streams of
// fewer than 1 KiB of lanes (n elements of A) under AVX-512, the 1-D
// kernel and the rows kernel alike (a row and the same values as a 1-D
// array keep the same bits): a short stream's time is its lanes' folds and
// its last, padded step, twice as wide at 64 bytes (Zen 4, rows of n, 4e6
// elements, one thread, ns an element, AVX-512 against AVX2: float32 n =
// 96 0.264 against 0.230, 144 0.215 against 0.185, 192 0.172 against
// 0.163; float64 n = 40 0.64 against 0.53, 80 0.40 against 0.38; from 1 KiB
// on as fast or faster: float32 n = 256 0.147 against 0.145, 1000 0.097
// against 0.116, float64 n = 128 0.32 against 0.32).  The bits of a level
// then depend on the stream's length, not on the CPU.
constexpr long long TWO_SUM_WIDE_BYTES = 1024;
NR_DISPATCH_LEN(template <class T NR_COMMA class A = T NR_COMMA class M = id_map>, two_sum,
                (const T *x, long long n, A *s, A *c), <T NR_COMMA A NR_COMMA M>(x, n, s, c),
                n * (long long)sizeof(A) >= TWO_SUM_WIDE_BYTES)
NR_DISPATCH_LEN(template <class T NR_COMMA class A = T NR_COMMA class M = id_map>, two_sum_rows,
                (const T *x, long long ld, long long rows, long long n, A *s, A *c, unsigned char *ok,
                 bool far),
                <T NR_COMMA A NR_COMMA M>(x, ld, rows, n, s, c, ok, far),
                n * (long long)sizeof(A) >= TWO_SUM_WIDE_BYTES)
#undef NR_COMMA
#undef NR_MEM_Y
#undef NR_DISPATCH_MEM
#undef NR_DISPATCH

}  // namespace simd
}  // namespace nr
#endif
