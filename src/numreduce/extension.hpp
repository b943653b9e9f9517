// numreduce's public C++ API: write your own multi-output reduction.
//
// Installed as <numreduce/extension.hpp> under numreduce.get_include().  A
// third-party extension module writes one traits struct (the concept below;
// numreduce's own traits/*.hpp are examples), turns it into loops with
// nr::make_loop<Traits>(in_type, out_type) and registers the ufunc with one
// nr::register_ufunc(...) call in its module init.  numreduce's engine then
// runs reduce, merge, accumulate, reduceat, segmented_reduce,
// reduce_by_group and at for that ufunc on every NumPy >= 2.0, threads and
// all, and ufunc.reduce runs natively where NumPy has the multi-output
// reduction slots.  numreduce registers its own six ufuncs through the same
// function (the C API table below), so there is one registration route.
//
//     // In the translation unit with the module init, before any include:
//     #define NR_IMPORT_NUMPY_HERE
//     #include <numreduce/extension.hpp>
//     #include "sumsq.hpp"
//
//     PyMODINIT_FUNC PyInit__mymod(void) {
//         if (nr::import_numreduce() < 0) return nullptr;  // NumPy's C API too
//         PyObject *m = PyModule_Create(&moddef);
//         if (m == nullptr) return nullptr;
//         if (nr::register_ufunc(m, "sumsq", doc, {
//                 nr::make_loop<SumSq<double>>(NPY_DOUBLE, NPY_DOUBLE),
//                 nr::make_loop<SumSq<float>>(NPY_FLOAT, NPY_DOUBLE)}) < 0) {
//             Py_DECREF(m);
//             return nullptr;
//         }
//         return m;
//     }
//
// Other translation units of the same extension include the header without
// NR_IMPORT_NUMPY_HERE.  The header includes Python.h and NumPy's headers
// (numpy_api.hpp: NPY_TARGET_VERSION 2.0 unless the build sets it, and
// PY_ARRAY_UNIQUE_SYMBOL numreduce_ARRAY_API unless the build defines its
// own), so the extension needs numpy.get_include() and
// numreduce.get_include() on its include path and C++17.
//
// The traits concept (static_assert'ed by make_loop with readable
// messages; see check_traits below):
//
//     struct Tr {
//         using in_t = ...;                  // element type of the stream
//         using out_t = ...;                 // type of every output
//         static constexpr int nout = N;     // 1 <= N <= NR_MAX_NOUT
//         struct acc_t { out_t v[N]; };      // the state: exactly the outputs
//         static acc_t lift(in_t x);               // the state of one element
//         static acc_t step(acc_t a, in_t x);      // a, then x
//         static acc_t combine(acc_t a, acc_t b);  // a, then b (associative)
//         // The state of an empty reduction (empty = true) and the seed of a
//         // non-empty one (empty = false); return false where there is none
//         // (the reduction then starts from its first element, as
//         // np.minimum.reduce does, and an empty reduction is an error).
//         static bool initials(acc_t &a, bool empty);
//     };
//
// Reductions of several sources (C API 1.1): a traits struct with
// `static constexpr int nsrc = K;` (2 <= K <= 4) and
// `using in_t = nr::sources<T, K>;` reduces K broadcast arrays of T
// together -- lift(s) / step(a, s) read s.v[0] .. s.v[K-1] (a weighted sum
// of squares: step(a, {x, w}) adds w x^2).  Its ufunc has K inputs (the
// forward call is lift: the state of one element); register each loop
// under T's dtype.  numreduce.reduce(ufunc, (x_0, ..., x_{K-1}), ...) and
// the other methods take the K arrays as a tuple.
//
// Optional members speed up contiguous streams (block_reduce(acc, x, n)),
// row blocks over axis 0 (rows_reduce) or carry a working frame (the
// moments' shift); loops.hpp documents them.  The functions must be
// deterministic and must not throw or touch Python: they run with the GIL
// released, on several threads at once.
//
// Versioning: NUMREDUCE_API_VERSION_MAJOR changes whenever LoopEntry, UFuncSpec,
// CApi or the loop templates' calling conventions change incompatibly; within
// one major version the API only grows (a newer MINOR adds members at the end
// of CApi and of LoopEntry).  import_numreduce() refuses a numreduce whose
// major version differs, or whose minor version is older than the headers
// the extension was built with, with an ImportError that says to rebuild.
// A newer numreduce keeps taking the registrations of older minor versions:
// 1.2 added LoopEntry::scatter_sources (K sources scattered in place) and
// CApi::loop_entry_size; an extension built with 1.0 or 1.1 headers still
// imports (CApi::entry_size stays 1.1's LoopEntry size) and registers its
// shorter entries, whose grouped reductions then pack their K sources.
#pragma once

#include <cstddef>
#include <initializer_list>
#include <type_traits>
#include <utility>
#include <vector>

#include "loops.hpp"

#define NUMREDUCE_API_VERSION_MAJOR 1
#define NUMREDUCE_API_VERSION_MINOR 2
#define NUMREDUCE_API_VERSION (NUMREDUCE_API_VERSION_MAJOR * 1000 + NUMREDUCE_API_VERSION_MINOR)
// The capsule numreduce._core exports its C API table under.
#define NUMREDUCE_CAPSULE_NAME "numreduce._core._C_API"
// The most outputs a ufunc may have (the engine's operand arrays) and the
// largest output type (clongdouble).
#define NR_MAX_NOUT 8
#define NR_MAX_OUT_BYTES 32

namespace nr {

// ---------------------------------------------------------------------------
// The traits concept, checked.
// ---------------------------------------------------------------------------
namespace concept_check {

template <class T, class = void>
struct has_in_t : std::false_type {};
template <class T>
struct has_in_t<T, std::void_t<typename T::in_t>> : std::true_type {};
template <class T, class = void>
struct has_out_t : std::false_type {};
template <class T>
struct has_out_t<T, std::void_t<typename T::out_t>> : std::true_type {};
template <class T, class = void>
struct has_acc_t : std::false_type {};
template <class T>
struct has_acc_t<T, std::void_t<typename T::acc_t>> : std::true_type {};
template <class T, class = void>
struct has_nout : std::false_type {};
template <class T>
struct has_nout<T, std::enable_if_t<std::is_integral<std::decay_t<decltype(T::nout)>>::value>>
    : std::true_type {};

template <class T, class = void>
struct nout_of : std::integral_constant<int, 0> {};
template <class T>
struct nout_of<T, std::enable_if_t<has_nout<T>::value>> : std::integral_constant<int, int(T::nout)> {};

// acc_t::v is out_t[nout]
template <class T, class = void>
struct acc_layout_ok : std::false_type {};
template <class T>
struct acc_layout_ok<T, std::void_t<typename T::acc_t, typename T::out_t,
                                    decltype(std::declval<typename T::acc_t &>().v)>>
    : std::integral_constant<
          bool, std::is_same<std::remove_extent_t<decltype(T::acc_t::v)>,
                             typename T::out_t>::value &&
                    std::extent<decltype(T::acc_t::v)>::value == std::size_t(nout_of<T>::value) &&
                    std::rank<decltype(T::acc_t::v)>::value == 1> {};

template <class T, class = void>
struct has_lift : std::false_type {};
template <class T>
struct has_lift<T, std::enable_if_t<std::is_same<
                       decltype(T::lift(std::declval<typename T::in_t>())), typename T::acc_t>::value>>
    : std::true_type {};
template <class T, class = void>
struct has_step : std::false_type {};
template <class T>
struct has_step<T, std::enable_if_t<std::is_same<
                       decltype(T::step(std::declval<typename T::acc_t>(),
                                        std::declval<typename T::in_t>())),
                       typename T::acc_t>::value>> : std::true_type {};
template <class T, class = void>
struct has_combine : std::false_type {};
template <class T>
struct has_combine<T, std::enable_if_t<std::is_same<
                          decltype(T::combine(std::declval<typename T::acc_t>(),
                                              std::declval<typename T::acc_t>())),
                          typename T::acc_t>::value>> : std::true_type {};
template <class T, class = void>
struct has_initials : std::false_type {};
template <class T>
struct has_initials<T, std::enable_if_t<std::is_same<
                           decltype(T::initials(std::declval<typename T::acc_t &>(), true)),
                           bool>::value>> : std::true_type {};

template <class T, class = void>
struct plain_types : std::false_type {};
template <class T>
struct plain_types<T, std::void_t<typename T::in_t, typename T::out_t>>
    : std::integral_constant<bool, std::is_trivially_copyable<typename T::in_t>::value &&
                                       std::is_trivially_copyable<typename T::out_t>::value &&
                                       sizeof(typename T::out_t) <= NR_MAX_OUT_BYTES> {};

}  // namespace concept_check

// true where Tr models the traits concept; every failed requirement is a
// static_assert with the requirement spelled out.
template <class Tr>
constexpr bool check_traits() {
    namespace c = concept_check;
    static_assert(c::has_in_t<Tr>::value,
                  "numreduce traits: missing `using in_t = ...;` (the element type of the "
                  "reduced stream)");
    static_assert(c::has_out_t<Tr>::value,
                  "numreduce traits: missing `using out_t = ...;` (the type of every output)");
    static_assert(c::has_nout<Tr>::value,
                  "numreduce traits: missing `static constexpr int nout = ...;` (the number of "
                  "outputs)");
    static_assert(c::nout_of<Tr>::value >= 1 && c::nout_of<Tr>::value <= NR_MAX_NOUT,
                  "numreduce traits: nout must be between 1 and NR_MAX_NOUT (8)");
    static_assert(c::has_acc_t<Tr>::value,
                  "numreduce traits: missing `struct acc_t { out_t v[nout]; };` (the state)");
    static_assert(c::acc_layout_ok<Tr>::value,
                  "numreduce traits: acc_t must hold exactly the outputs, as a member "
                  "`out_t v[nout];` (nout does not match the outputs, or v is not of out_t)");
    static_assert(c::plain_types<Tr>::value,
                  "numreduce traits: in_t and out_t must be trivially copyable, out_t at most "
                  "NR_MAX_OUT_BYTES (32) bytes");
    static_assert(nsrc_of<Tr>::value >= 1 && nsrc_of<Tr>::value <= 4,
                  "numreduce traits: nsrc must be between 1 and 4");
    static_assert(nsrc_of<Tr>::value == 1 ||
                      std::is_same<typename Tr::in_t,
                                   sources<source_of<Tr>, nsrc_of<Tr>::value>>::value,
                  "numreduce traits: with nsrc = K > 1, in_t must be nr::sources<T, K>");
    static_assert(c::has_lift<Tr>::value,
                  "numreduce traits: missing `static acc_t lift(in_t x)` (the state of one "
                  "element)");
    static_assert(c::has_step<Tr>::value,
                  "numreduce traits: missing `static acc_t step(acc_t a, in_t x)` (the state "
                  "a followed by the element x)");
    static_assert(c::has_combine<Tr>::value,
                  "numreduce traits: missing `static acc_t combine(acc_t a, acc_t b)` (the "
                  "state a followed by the state b; the engine's threads, merge and the "
                  "elementwise ufunc use it)");
    static_assert(c::has_initials<Tr>::value,
                  "numreduce traits: missing `static bool initials(acc_t &a, bool empty)` "
                  "(return false where the reduction has no initial values)");
    return c::has_in_t<Tr>::value && c::has_out_t<Tr>::value && c::has_nout<Tr>::value &&
           c::nout_of<Tr>::value >= 1 && c::nout_of<Tr>::value <= NR_MAX_NOUT &&
           c::has_acc_t<Tr>::value && c::acc_layout_ok<Tr>::value &&
           c::plain_types<Tr>::value && c::has_lift<Tr>::value && c::has_step<Tr>::value &&
           c::has_combine<Tr>::value && c::has_initials<Tr>::value;
}

// ---------------------------------------------------------------------------
// Loops from traits.
// ---------------------------------------------------------------------------

// The NumPy kind of a storage type ('b' bool, 'i' signed and 'u' unsigned
// integers, 'f' floating, 'c' complex, 'M' datetime, 'm' timedelta), or 0
// for another type (a user struct: registration checks its size only).
template <class T>
constexpr char kind_of() {
    if constexpr (std::is_same<T, bool>::value) {
        return 'b';
    } else if constexpr (std::is_same<T, half16>::value || std::is_floating_point<T>::value) {
        return 'f';
    } else if constexpr (std::is_same<T, cplx<float>>::value ||
                         std::is_same<T, cplx<double>>::value ||
                         std::is_same<T, cplx<long double>>::value) {
        return 'c';
    } else if constexpr (std::is_same<T, datetime64>::value) {
        return 'M';
    } else if constexpr (std::is_same<T, timedelta64>::value) {
        return 'm';
    } else if constexpr (std::is_integral<T>::value) {
        return std::is_signed<T>::value ? 'i' : 'u';  // npy_bool is unsigned char: 'u' or 'b'
    } else {
        return 0;
    }
}

namespace detail {

// resolve_descriptors for datetime64/timedelta64 (parametric in the unit):
// every operand takes the common (finest) unit, in native byte order, like
// np.minimum does.
template <int NARGS>
NPY_CASTING resolve_common_descr(struct PyArrayMethodObject_tag *, PyArray_DTypeMeta *const *,
                                 PyArray_Descr *const *given, PyArray_Descr **loop,
                                 npy_intp *) {
    PyArray_Descr *common = PyArray_PromoteTypes(given[0], given[1]);
    if (common == nullptr) return (NPY_CASTING)-1;
    if (!PyArray_ISNBO(common->byteorder)) {
        PyArray_Descr *native = PyArray_DescrNewByteorder(common, NPY_NATIVE);
        Py_DECREF(common);
        if (native == nullptr) return (NPY_CASTING)-1;
        common = native;
    }
    for (int i = 0; i < NARGS; i++) {
        Py_INCREF(common);
        loop[i] = common;
    }
    Py_DECREF(common);
    return NPY_NO_CASTING;
}

template <class Tr>
LoopEntry make_loop_checked(int in_type, int out_type) {
    typename Tr::acc_t probe;
    const bool has_initials = Tr::initials(probe, false) || Tr::initials(probe, true);
    const bool parametric = in_type == NPY_DATETIME || in_type == NPY_TIMEDELTA;
    LoopEntry e{in_type, out_type, &forward_loop<Tr>, &reduce_loop<Tr>,
                &get_reduction_loop<Tr>, has_initials ? &get_initials<Tr> : nullptr,
                parametric ? &resolve_common_descr<2 + Tr::nout> : nullptr,
                &combine_buffers<Tr>, frame_hooks<Tr>(), rows_fn<Tr>(),
                &merge_loop<Tr>, &scan_block<Tr>, &segment_block<Tr>, &scatter_block<Tr>,
                Tr::nout, int(sizeof(source_of<Tr>)), int(sizeof(typename Tr::out_t)),
                kind_of<source_of<Tr>>(), kind_of<typename Tr::out_t>(),
                char(nsrc_of<Tr>::value),
                scatter_sources_of<Tr>()};
    return e;
}

}  // namespace detail

// The loop of traits Tr for input dtype `in_type` and output dtype
// `out_type` (NumPy type numbers: NPY_DOUBLE, ...).  Every output has
// out_type; both forward inputs and the reduced stream have in_type.
// Registration checks that the dtypes' sizes and kinds match in_t/out_t.
// 1.1's LoopEntry::nsrc lives in 1.0's padding: 1.1's layout is 1.0's,
// and 1.2's is 1.1's with scatter_sources after it.
static_assert(offsetof(LoopEntry, nsrc) == offsetof(LoopEntry, out_kind) + 1 &&
                  kLoopEntrySize_1_1 == (offsetof(LoopEntry, out_kind) + alignof(LoopEntry)) /
                                            alignof(LoopEntry) * alignof(LoopEntry) &&
                  sizeof(LoopEntry) == kLoopEntrySize_1_1 + sizeof(LoopEntry::scatter_sources),
              "LoopEntry::nsrc must sit in the padding after out_kind (1.0's size), and "
              "scatter_sources (1.2) right after 1.1's entry");

template <class Tr>
LoopEntry make_loop(int in_type, int out_type) {
    if constexpr (check_traits<Tr>()) {
        return detail::make_loop_checked<Tr>(in_type, out_type);
    } else {
        return LoopEntry{};  // unreachable: check_traits has failed to compile
    }
}

// ---------------------------------------------------------------------------
// Registration across extension modules: the C API table.
// ---------------------------------------------------------------------------

// One ufunc to register.  numreduce copies everything it needs (the name,
// the doc and the loop entries); the loops' code stays in the extension
// module, which Python never unloads.
struct UFuncSpec {
    int api_version;         // NUMREDUCE_API_VERSION of the caller's headers
    int entry_size;          // sizeof(LoopEntry) of the caller's headers
    const char *name;        // the ufunc's __name__ and its attribute in `module`
    const char *doc;         // its __doc__ (may be nullptr)
    int nout;                // number of outputs; every loop's traits must agree
    int nloops;
    const LoopEntry *loops;  // one per input dtype, no dtype twice
};

// The table numreduce._core exports in the capsule NUMREDUCE_CAPSULE_NAME.
struct CApi {
    int api_version;  // NUMREDUCE_API_VERSION of the running numreduce
    // kLoopEntrySize_1_1 (what 1.0 / 1.1 headers check at import; the
    // running numreduce's own size is loop_entry_size)
    int entry_size;
    // Validate `spec`, build the ufunc (2 inputs, spec->nout outputs, the
    // loops, numreduce's promoter; the reduction-loop and initials slots
    // where NumPy has them), make it known to the engine and add it to
    // `module` as spec->name.  An input dtype without a loop of its own goes
    // to the first loop, in spec->loops order, that it casts to safely.  A
    // new reference to the ufunc, or nullptr with a Python exception
    // (ValueError/TypeError naming what is wrong).
    PyObject *(*register_ufunc)(PyObject *module, const UFuncSpec *spec);
    // 1 where ufunc.reduce runs the registered reduction loops natively.
    int (*native_reduce)(void);
    // C API 1.2: sizeof(LoopEntry) of the running numreduce.
    int loop_entry_size;
};

// The C API of the running numreduce (one per extension module), set by
// import_numreduce().
inline const CApi *&capi() {
    static const CApi *api = nullptr;
    return api;
}

// Import numreduce's C API (and, in the translation unit that defines
// NR_IMPORT_NUMPY_HERE, NumPy's array and ufunc C APIs).  0, or -1 with an
// ImportError set.  Call it first in the module init.
static inline int import_numreduce() {
#if defined(NR_IMPORT_NUMPY_HERE)
    if (PyArray_ImportNumPyAPI() < 0 || _import_umath() < 0) return -1;
#endif
    if (capi() != nullptr) return 0;
    const CApi *api = static_cast<const CApi *>(PyCapsule_Import(NUMREDUCE_CAPSULE_NAME, 0));
    if (api == nullptr) return -1;
    const int major = api->api_version / 1000, minor = api->api_version % 1000;
    if (major != NUMREDUCE_API_VERSION_MAJOR || minor < NUMREDUCE_API_VERSION_MINOR ||
        api->entry_size != int(kLoopEntrySize_1_1) ||
        api->loop_entry_size != int(sizeof(LoopEntry))) {
        PyErr_Format(PyExc_ImportError,
                     "this extension was built against numreduce C API %d.%d, but the "
                     "installed numreduce provides C API %d.%d: rebuild the extension against "
                     "the installed numreduce",
                     NUMREDUCE_API_VERSION_MAJOR, NUMREDUCE_API_VERSION_MINOR, major, minor);
        return -1;
    }
    capi() = api;
    return 0;
}

// Register the ufunc `name` with `loops` and add it to `module` (see
// CApi::register_ufunc).  0, or -1 with a Python exception.  nout is taken
// from the loops (make_loop records each traits' nout).
inline int register_ufunc(PyObject *module, const char *name, const char *doc,
                          const std::vector<LoopEntry> &loops) {
    if (capi() == nullptr) {
        PyErr_SetString(PyExc_RuntimeError,
                        "numreduce: call nr::import_numreduce() in the module init before "
                        "nr::register_ufunc()");
        return -1;
    }
    UFuncSpec spec{NUMREDUCE_API_VERSION, int(sizeof(LoopEntry)), name, doc,
                   loops.empty() ? 0 : loops[0].nout, int(loops.size()), loops.data()};
    PyObject *ufunc = capi()->register_ufunc(module, &spec);
    if (ufunc == nullptr) return -1;
    Py_DECREF(ufunc);  // the module holds it
    return 0;
}

}  // namespace nr
