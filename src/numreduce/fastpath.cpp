// The C fast path of the user functions (numreduce.minmax, ..., fsum).
//
// Each public function is a FastFunction: a callable with tp_vectorcall that
// recognises the common call -- one plain np.ndarray (exact type, native byte
// order, aligned, a dtype with a loop), `axis` None or an int, no out/where/
// initial/dtype, keepdims False, ddof an int or float -- and computes it with
// the engine's own iterator-free kernels (reduce_all_array, reduce_rows_array,
// reduce_trailing_array, find_arg_loop: the very functions the general path
// selects for the same call, so both give the same bits; short whole-array
// min/max and moments of float32/float64 call the function those run, the
// traits' stream, directly: small_minmax, small_moments).  Everything else,
// and every result that needs a warning or an error (an all-NaN slice, an
// empty input, ddof >= n, a cast that overflows), calls the general Python
// function (the @public_function entry) unchanged: the semantics have one
// source of truth, and a rare fallback simply recomputes.
//
// The object carries a __dict__ (the general function's __name__, __doc__,
// __wrapped__, __signature__, _implementation ..., copied by
// numreduce/_fastpath.py) and pickles by name.
#include <cmath>
#include <cstring>

#include "engine.hpp"
#include "loops.hpp"  // the traits' streams (small_minmax, small_moments below)
#include "traits/minmax.hpp"

#include <numpy/arrayscalars.h>

namespace nr {
namespace {

enum Kind {
    K_MINMAX,
    K_NANMINMAX,
    K_ARGMINMAX,
    K_NANARGMINMAX,
    K_MEANVAR,
    K_MEANSTD,
    K_NANMEANVAR,
    K_LOGSUMEXP,
    K_FSUM,
    K_COUNT
};

// Parameter slots (the functions' own parameter names, in their order).
enum Slot { S_A, S_AXIS, S_OUT, S_KEEPDIMS, S_INITIAL, S_WHERE, S_DTYPE, S_DDOF, S_NSLOTS };

struct KindDef {
    const char *name;
    int nparams;
    Slot params[S_NSLOTS];
};

const KindDef kKinds[K_COUNT] = {
    {"minmax", 6, {S_A, S_AXIS, S_OUT, S_KEEPDIMS, S_INITIAL, S_WHERE}},
    {"nanminmax", 6, {S_A, S_AXIS, S_OUT, S_KEEPDIMS, S_INITIAL, S_WHERE}},
    {"argminmax", 4, {S_A, S_AXIS, S_KEEPDIMS, S_OUT}},
    {"nanargminmax", 4, {S_A, S_AXIS, S_KEEPDIMS, S_OUT}},
    {"meanvar", 6, {S_A, S_AXIS, S_DTYPE, S_OUT, S_DDOF, S_KEEPDIMS}},
    {"meanstd", 6, {S_A, S_AXIS, S_DTYPE, S_OUT, S_DDOF, S_KEEPDIMS}},
    {"nanmeanvar", 6, {S_A, S_AXIS, S_DTYPE, S_OUT, S_DDOF, S_KEEPDIMS}},
    {"logsumexp", 2, {S_A, S_AXIS}},  // (a, axis, b, keepdims, ...): b and keepdims: general
    {"fsum", 7, {S_A, S_AXIS, S_DTYPE, S_OUT, S_KEEPDIMS, S_INITIAL, S_WHERE}},  // np.sum's
};

const char *const kSlotNames[S_NSLOTS] = {"a", "axis", "out", "keepdims", "initial", "where",
                                          "dtype", "ddof"};
PyObject *g_slot_names[S_NSLOTS];  // interned

struct FastFunction {
    PyObject_HEAD
    vectorcallfunc vectorcall;
    PyObject *dict;
    PyObject *general;  // the @public_function entry (the general path)
    PyObject *ufunc;    // the reduction (None for argminmax)
    PyObject *nan_ufunc;  // nanmeanvar: nanmoments for float data (else None)
    int kind;
};

// ---------------------------------------------------------------------------
// small helpers
// ---------------------------------------------------------------------------

inline bool is_float_type(int t) {
    return t == NPY_HALF || t == NPY_FLOAT || t == NPY_DOUBLE || t == NPY_LONGDOUBLE;
}
inline bool is_int_or_bool(int t) { return PyTypeNum_ISBOOL(t) || PyTypeNum_ISINTEGER(t); }

// Any NaN among n elements of a real float type at p (stride in bytes).
bool any_nan(const char *p, npy_intp n, npy_intp stride, int type) {
    for (npy_intp i = 0; i < n; i++, p += stride) {
        switch (type) {
            case NPY_HALF: {
                npy_half h;
                std::memcpy(&h, p, sizeof h);
                if ((h & 0x7c00u) == 0x7c00u && (h & 0x03ffu) != 0) return true;
                break;
            }
            case NPY_FLOAT: if (std::isnan(*(const float *)p)) return true; break;
            case NPY_DOUBLE: if (std::isnan(*(const double *)p)) return true; break;
            case NPY_LONGDOUBLE: if (std::isnan(*(const long double *)p)) return true; break;
            default: return false;
        }
    }
    return false;
}

// Store double `v` as `type` (float64 / float32) at p; false where the cast
// overflows (NumPy's cast would warn: the general path decides).
inline bool store(char *p, int type, double v) {
    if (type == NPY_DOUBLE) {
        *(double *)p = v;
        return true;
    }
    const float f = (float)v;
    *(float *)p = f;
    return !(std::isinf(f) && !std::isinf(v));
}

// A NumPy scalar of a builtin numeric type (PyArray_Scalar's result, without
// its descriptor lookups for the common types).
template <class C>
inline PyObject *new_scalar(PyTypeObject *type, const void *value) {
    PyObject *s = type->tp_alloc(type, 0);
    if (s != nullptr) std::memcpy(&((C *)s)->obval, value, sizeof(((C *)s)->obval));
    return s;
}

PyObject *scalar_of(int type, const void *value) {
    switch (type) {
        case NPY_DOUBLE: return new_scalar<PyDoubleScalarObject>(&PyDoubleArrType_Type, value);
        case NPY_FLOAT: return new_scalar<PyFloatScalarObject>(&PyFloatArrType_Type, value);
        case NPY_LONG: return new_scalar<PyLongScalarObject>(&PyLongArrType_Type, value);
        case NPY_LONGLONG:
            return new_scalar<PyLongLongScalarObject>(&PyLongLongArrType_Type, value);
        default: break;
    }
    PyArray_Descr *d = PyArray_DescrFromType(type);
    if (d == nullptr) return nullptr;
    PyObject *s = PyArray_Scalar(const_cast<void *>(value), d, nullptr);
    Py_DECREF(d);
    return s;
}

// The scalar of descriptor d (scalar_of for the builtin numeric types; a
// datetime keeps its unit through PyArray_Scalar).
PyObject *scalar_in(PyArray_Descr *d, const void *value) {
    if (PyTypeNum_ISNUMBER(d->type_num) && PyArray_ISNBO(d->byteorder)) {
        return scalar_of(d->type_num, value);
    }
    return PyArray_Scalar(const_cast<void *>(value), d, nullptr);
}

PyObject *new_1d(int type, npy_intp n) { return PyArray_SimpleNew(1, &n, type); }

// ---------------------------------------------------------------------------
// the kernels' selection, as the general path makes it
// ---------------------------------------------------------------------------

// The reduce-based functions (minmax, nanminmax, logsumexp, fsum): what
// numreduce.reduce's option-free branch runs -- _reduce_all for a full
// reduction, _reduce_rows / _reduce_trailing for axis 0 / 1 of C-contiguous
// 2-D data.  A new tuple, Py_None (new reference: not this path) or nullptr.
PyObject *engine_call(PyObject *ufunc, PyArrayObject *a, bool full, int axis) {
    if (full) return reduce_all_array(ufunc, a);
    if (PyArray_NDIM(a) == 2 && PyArray_IS_C_CONTIGUOUS(a)) {
        return axis == 0 ? reduce_rows_array(ufunc, a) : reduce_trailing_array(ufunc, a);
    }
    Py_RETURN_NONE;
}

// ---------------------------------------------------------------------------
// the functions
// ---------------------------------------------------------------------------

// The whole-array min/max of a short contiguous array straight through
// the traits' stream function: what reduce_all_raw's small-array case runs
// for minimummaximum's / fminfmax's loops of these dtypes (MinMaxOf, no
// initials: the state starts as a copy of the first element; one call of
// the loop, which hands aligned unit-stride data to reduce_stream, i.e.
// MinMaxOf::block_reduce), so the same bits, without the loop lookup and
// the loop call: 175 -> 125 ns a call of nanminmax on 100 float32 (Intel
// SPR class, one thread; bottleneck's nanmin 175 ns).  The bound is that
// case's (one chunk, no threads).  false: not this case.
template <class T, bool SKIP>
bool small_minmax_t(PyArrayObject *a, npy_intp n, char (*v)[32]) {
    using Tr = MinMaxOf<T, SKIP>;
    const T *x = reinterpret_cast<const T *>(PyArray_DATA(a));
    typename Tr::acc_t acc{{x[0], x[0]}};
    if (n > 1) acc = reduce_stream<Tr>(acc, x + 1, n - 1);
    std::memcpy(v[0], &acc.v[0], sizeof(T));
    std::memcpy(v[1], &acc.v[1], sizeof(T));
    return true;
}
// The case of the short whole-array calls (small_minmax, small_moments):
// 1 to 50,000 elements (one chunk: no threads), contiguous in C order (or,
// any_order, in F order too: min/max do not depend on the order), aligned,
// native byte order.  Returns the element count, or 0: not this case.
npy_intp small_case(PyArrayObject *a, bool any_order) {
    const npy_intp n = PyArray_SIZE(a);
    const bool contiguous = PyArray_IS_C_CONTIGUOUS(a) || (any_order && PyArray_IS_F_CONTIGUOUS(a));
    if (n <= 0 || n > 50000 || n > kChunk || !contiguous || !PyArray_ISALIGNED(a) ||
        !PyArray_ISNBO(PyArray_DESCR(a)->byteorder)) {
        return 0;
    }
    return n;
}
bool small_minmax(PyArrayObject *a, int t, bool skip, char (*v)[32]) {
    const npy_intp n = small_case(a, true);
    if (n == 0) return false;
    switch (t) {
        case NPY_FLOAT: return skip ? small_minmax_t<npy_float, true>(a, n, v) : small_minmax_t<npy_float, false>(a, n, v);
        case NPY_DOUBLE: return skip ? small_minmax_t<npy_double, true>(a, n, v) : small_minmax_t<npy_double, false>(a, n, v);
        default: return false;
    }
}

// Returns a new reference; Py_None (new reference) means "take the general
// path"; nullptr an error.
PyObject *do_minmax(FastFunction *f, PyArrayObject *a, bool full, int axis) {
    const int t = PyArray_DESCR(a)->type_num;
    if (f->kind == K_NANMINMAX && !(is_float_type(t) || is_int_or_bool(t))) Py_RETURN_NONE;
    if (full) {
        alignas(16) char v[NPY_MAXARGS][32];
        int ot = t;
        const int ok = small_minmax(a, t, f->kind == K_NANMINMAX, v) ? 1 : reduce_all_raw(f->ufunc, a, v, &ot);
        if (ok <= 0) {
            if (ok < 0) return nullptr;
            Py_RETURN_NONE;
        }
        if (ot != t) Py_RETURN_NONE;  // (an order reduction keeps the type)
        if (f->kind == K_NANMINMAX && (any_nan(v[0], 1, 0, t) || any_nan(v[1], 1, 0, t))) {
            Py_RETURN_NONE;
        }
        PyArray_Descr *d = PyArray_DESCR(a);
        PyObject *lo = scalar_in(d, v[0]), *hi = scalar_in(d, v[1]);
        PyObject *ret = lo != nullptr && hi != nullptr ? PyTuple_Pack(2, lo, hi) : nullptr;
        Py_XDECREF(lo);
        Py_XDECREF(hi);
        return ret;
    }
    PyObject *res = engine_call(f->ufunc, a, full, axis);
    if (res == nullptr || res == Py_None || f->kind != K_NANMINMAX || !is_float_type(t)) return res;
    // nanminmax: NaN only where a slice was all NaN -- the general path warns.
    for (int i = 0; i < 2; i++) {
        PyObject *r = PyTuple_GET_ITEM(res, i);
        bool nan;
        if (PyArray_Check(r)) {
            PyArrayObject *ra = (PyArrayObject *)r;
            nan = any_nan(PyArray_BYTES(ra), PyArray_SIZE(ra), PyArray_DESCR(ra)->elsize, t);
        } else {
            alignas(16) char buf[32];
            PyArray_ScalarAsCtype(r, buf);
            nan = any_nan(buf, 1, 0, t);
        }
        if (nan) {
            Py_DECREF(res);
            Py_RETURN_NONE;
        }
    }
    return res;
}

PyObject *do_argminmax(FastFunction *f, PyArrayObject *a, bool full, int axis) {
    PyArray_Descr *descr = PyArray_DESCR(a);
    const bool skip = f->kind == K_NANARGMINMAX && (PyTypeNum_ISFLOAT(descr->type_num) || PyTypeNum_ISCOMPLEX(descr->type_num));
    ArgRowsFn *fn = find_arg_loop(descr->type_num, skip);
    if (fn == nullptr || PyArray_SIZE(a) == 0) Py_RETURN_NONE;
    const npy_intp isize = descr->elsize;
    npy_intp nrows, ncols, srow, scol;
    if (full) {
        // axis None: a.reshape(1, -1), a view for contiguous data; 1-D:
        // its own stride.
        if (PyArray_NDIM(a) == 1) {
            scol = PyArray_STRIDE(a, 0);
        } else if (PyArray_IS_C_CONTIGUOUS(a)) {
            scol = isize;
        } else {
            Py_RETURN_NONE;
        }
        nrows = 1;
        ncols = PyArray_SIZE(a);
        srow = 0;
    } else {
        nrows = PyArray_DIM(a, 1 - axis);
        ncols = PyArray_DIM(a, axis);
        srow = PyArray_STRIDE(a, 1 - axis);
        scol = PyArray_STRIDE(a, axis);
    }
    const char *data = PyArray_BYTES(a);
    PyObject *ret = nullptr;
    if (full) {
        npy_intp lo, hi;
        fn(data, 1, ncols, srow, scol, &lo, &hi);
        if (skip && (lo < 0 || hi < 0)) Py_RETURN_NONE;
        PyObject *l = scalar_of(NPY_INTP, &lo), *h = scalar_of(NPY_INTP, &hi);
        if (l != nullptr && h != nullptr) ret = PyTuple_Pack(2, l, h);
        Py_XDECREF(l);
        Py_XDECREF(h);
    } else {
        PyObject *l = new_1d(NPY_INTP, nrows), *h = new_1d(NPY_INTP, nrows);
        if (l != nullptr && h != nullptr) {
            npy_intp *lo = (npy_intp *)PyArray_DATA((PyArrayObject *)l);
            npy_intp *hi = (npy_intp *)PyArray_DATA((PyArrayObject *)h);
            if (nrows * ncols > 20000) {
                Py_BEGIN_ALLOW_THREADS;
                fn(data, nrows, ncols, srow, scol, lo, hi);
                Py_END_ALLOW_THREADS;
            } else {
                fn(data, nrows, ncols, srow, scol, lo, hi);
            }
            bool bad = false;
            for (npy_intp i = 0; skip && !bad && i < nrows; i++) bad = lo[i] < 0 || hi[i] < 0;
            if (bad) {
                ret = Py_None;
                Py_INCREF(ret);
            } else {
                ret = PyTuple_Pack(2, l, h);
            }
        }
        Py_XDECREF(l);
        Py_XDECREF(h);
    }
    return ret;
}

// (mean, var or std) of a full reduction's (count, mean, M2), or Py_None
// where the general path must warn (count 0, dof <= 0, a cast overflow).
PyObject *finish_meanvar_full(double count, double mean, double m2, double ddof, int mean_t,
                              bool std_) {
    const double dof = count - ddof;
    if (!(count > 0) || !(dof > 0)) Py_RETURN_NONE;
    double var = m2 / dof;
    if (std_) var = std::sqrt(var);
    alignas(8) char mb[8], vb[8];
    if (!store(mb, mean_t, mean) || !store(vb, mean_t, var)) Py_RETURN_NONE;
    PyObject *ms = scalar_of(mean_t, mb), *vs = scalar_of(mean_t, vb);
    PyObject *ret = ms != nullptr && vs != nullptr ? PyTuple_Pack(2, ms, vs) : nullptr;
    Py_XDECREF(ms);
    Py_XDECREF(vs);
    return ret;
}

// The whole-array moments of short contiguous float data straight through
// the traits' stream function: what reduce_all_raw's small-array case runs
// for the moments/nanmoments loop of these dtypes (initials (0, 0, 0), one
// call of the loop, which hands aligned unit-stride data to reduce_stream,
// i.e. Moments::block_reduce), so the same bits, without the loop lookup
// and the loop call -- a third of a call's fixed cost at n = 100.  The
// bound is that case's (one chunk, no threads).  false: not this case.
template <class T, bool SKIP>
bool small_moments_t(PyArrayObject *a, npy_intp n, double *r) {
    using Tr = Moments<T, double, SKIP>;
    static_assert(std::is_same<typename Tr::out_t, double>::value, "float64 accumulators");
    const typename Tr::acc_t acc = reduce_stream<Tr>({{0.0, 0.0, 0.0}},
                                                     reinterpret_cast<const T *>(PyArray_DATA(a)), n);
    r[0] = acc.v[0];
    r[1] = acc.v[1];
    r[2] = acc.v[2];
    return true;
}
bool small_moments(PyArrayObject *a, int t, bool skip, double *r) {
    const npy_intp n = small_case(a, false);
    if (n == 0) return false;
    if (t == NPY_DOUBLE) return skip ? small_moments_t<double, true>(a, n, r) : small_moments_t<double, false>(a, n, r);
    if (t == NPY_FLOAT) return skip ? small_moments_t<float, true>(a, n, r) : small_moments_t<float, false>(a, n, r);
    return false;
}

// meanvar, meanstd, nanmeanvar: the moments reduction as _api._moments runs
// it (C-contiguous data; a strided 1-D array is copied first, as np.require
// does there), then _finish_meanvar's arithmetic in float64, cast to the
// result dtype.
PyObject *do_meanvar(FastFunction *f, PyArrayObject *a, bool full, int axis, double ddof) {
    const int t = PyArray_DESCR(a)->type_num;
    int mean_t;
    if (t == NPY_FLOAT || t == NPY_DOUBLE) {
        mean_t = t;
    } else if (is_int_or_bool(t)) {
        mean_t = NPY_DOUBLE;
    } else {
        Py_RETURN_NONE;
    }
    const bool nan = f->kind == K_NANMEANVAR && (t == NPY_FLOAT || t == NPY_DOUBLE);
    PyObject *ufunc = nan ? f->nan_ufunc : f->ufunc;
    PyObject *copy = nullptr;
    PyObject *res;
    if (full) {
        double r[3];
        if (small_moments(a, t, nan, r)) {
            return finish_meanvar_full(r[0], r[1], r[2], ddof, mean_t, f->kind == K_MEANSTD);
        }
        if (!PyArray_IS_C_CONTIGUOUS(a)) {
            if (PyArray_NDIM(a) != 1) Py_RETURN_NONE;
            copy = PyArray_NewCopy(a, NPY_CORDER);
            if (copy == nullptr) return nullptr;
            a = (PyArrayObject *)copy;
        }
        alignas(16) char v[NPY_MAXARGS][32];
        int ot;
        const int ok = reduce_all_raw(ufunc, a, v, &ot);
        Py_XDECREF(copy);
        if (ok <= 0) {
            if (ok < 0) return nullptr;
            Py_RETURN_NONE;
        }
        if (ot != NPY_DOUBLE) Py_RETURN_NONE;
        return finish_meanvar_full(*(const double *)v[0], *(const double *)v[1],
                                   *(const double *)v[2], ddof, mean_t, f->kind == K_MEANSTD);
    }
    res = engine_call(ufunc, a, false, axis);
    if (res == nullptr || res == Py_None) return res;
    const bool std_ = f->kind == K_MEANSTD;
    PyObject *ret = nullptr;
    PyArrayObject *c = (PyArrayObject *)PyTuple_GET_ITEM(res, 0);
    PyArrayObject *m = (PyArrayObject *)PyTuple_GET_ITEM(res, 1);
    PyArrayObject *q = (PyArrayObject *)PyTuple_GET_ITEM(res, 2);
    const npy_intp n = PyArray_SIZE(c);
    const double *cp = (const double *)PyArray_DATA(c);
    const double *mp = (const double *)PyArray_DATA(m);
    double *qp = (double *)PyArray_DATA(q);
    for (npy_intp i = 0; i < n; i++) {
        if (!(cp[i] > 0) || !(cp[i] - ddof > 0)) {
            Py_DECREF(res);
            Py_RETURN_NONE;
        }
    }
    PyObject *mean_out, *var_out;
    if (mean_t == NPY_DOUBLE) {  // in place: the engine's arrays are new
        for (npy_intp i = 0; i < n; i++) {
            const double v = qp[i] / (cp[i] - ddof);
            qp[i] = std_ ? std::sqrt(v) : v;
        }
        mean_out = (PyObject *)m;
        var_out = (PyObject *)q;
        Py_INCREF(mean_out);
        Py_INCREF(var_out);
    } else {
        mean_out = new_1d(mean_t, n);
        var_out = new_1d(mean_t, n);
        if (mean_out == nullptr || var_out == nullptr) {
            Py_XDECREF(mean_out);
            Py_XDECREF(var_out);
            Py_DECREF(res);
            return nullptr;
        }
        char *mo = PyArray_BYTES((PyArrayObject *)mean_out);
        char *vo = PyArray_BYTES((PyArrayObject *)var_out);
        bool ok = true;
        for (npy_intp i = 0; i < n; i++) {
            double v = qp[i] / (cp[i] - ddof);
            if (std_) v = std::sqrt(v);
            ok &= store(mo + 4 * i, mean_t, mp[i]);
            ok &= store(vo + 4 * i, mean_t, v);
        }
        if (!ok) {
            Py_DECREF(mean_out);
            Py_DECREF(var_out);
            Py_DECREF(res);
            Py_RETURN_NONE;
        }
    }
    Py_DECREF(res);
    ret = PyTuple_Pack(2, mean_out, var_out);
    Py_DECREF(mean_out);
    Py_DECREF(var_out);
    return ret;
}

// np.log1p's own float64 loop (the general path's np.log1p), found once.
PyUFuncGenericFunction g_log1p = nullptr;
void *g_log1p_data = nullptr;

bool find_log1p() {
    if (g_log1p != nullptr) return true;
    PyObject *np = PyImport_ImportModule("numpy");
    if (np == nullptr) return false;
    PyObject *u = PyObject_GetAttrString(np, "log1p");
    Py_DECREF(np);
    if (u == nullptr) return false;
    if (PyObject_TypeCheck(u, &PyUFunc_Type)) {
        PyUFuncObject *uf = (PyUFuncObject *)u;
        for (int i = 0; uf->functions != nullptr && i < uf->ntypes; i++) {
            if (uf->types[2 * i] == NPY_DOUBLE && uf->types[2 * i + 1] == NPY_DOUBLE) {
                g_log1p = uf->functions[i];
                g_log1p_data = uf->data != nullptr ? uf->data[i] : nullptr;
                break;
            }
        }
    }
    Py_DECREF(u);  // np.log1p lives as long as NumPy
    return g_log1p != nullptr;
}

// out[i] = log1p(t[i]) with np.log1p's loop, n doubles.
inline void log1p_n(const double *t, double *out, npy_intp n) {
    char *args[2] = {(char *)t, (char *)out};
    npy_intp dims[1] = {n}, steps[2] = {sizeof(double), sizeof(double)};
    g_log1p(args, dims, steps, g_log1p_data);
}

// logsumexp: (mx, t) from the maxsumexp reduction, mx + log1p(t) in float64,
// then SciPy's result dtype (the input float type, float64 for integers).
PyObject *do_logsumexp(FastFunction *f, PyArrayObject *a, bool full, int axis) {
    const int t = PyArray_DESCR(a)->type_num;
    int rt;
    if (t == NPY_FLOAT || t == NPY_DOUBLE) {
        rt = t;
    } else if (is_int_or_bool(t)) {
        rt = NPY_DOUBLE;
    } else {
        Py_RETURN_NONE;
    }
    if (!find_log1p()) {
        PyErr_Clear();
        Py_RETURN_NONE;
    }
    if (full) {
        alignas(16) char v[NPY_MAXARGS][32];
        int ot;
        const int ok = reduce_all_raw(f->ufunc, a, v, &ot);
        if (ok <= 0) {
            if (ok < 0) return nullptr;
            Py_RETURN_NONE;
        }
        if (ot != NPY_DOUBLE) Py_RETURN_NONE;
        const double mx = *(const double *)v[0], tt = *(const double *)v[1];
        double l;
        log1p_n(&tt, &l, 1);
        alignas(8) char b[8];
        if (!store(b, rt, mx + l)) Py_RETURN_NONE;
        return scalar_of(rt, b);
    }
    PyObject *res = engine_call(f->ufunc, a, full, axis);
    if (res == nullptr || res == Py_None) return res;
    PyObject *ret = nullptr;
    PyArrayObject *m = (PyArrayObject *)PyTuple_GET_ITEM(res, 0);
    PyArrayObject *q = (PyArrayObject *)PyTuple_GET_ITEM(res, 1);
    const npy_intp n = PyArray_SIZE(m);
    const double *mp = (const double *)PyArray_DATA(m);
    // np.log1p(t) into a new array (not in place: NumPy's vector loops take
    // their scalar path for overlapping operands), then mx + log1p(t).
    PyObject *lg = new_1d(NPY_DOUBLE, n);
    if (lg == nullptr) {
        Py_DECREF(res);
        return nullptr;
    }
    double *qp = (double *)PyArray_DATA((PyArrayObject *)lg);
    log1p_n((const double *)PyArray_DATA(q), qp, n);
    if (rt == NPY_DOUBLE) {
        for (npy_intp i = 0; i < n; i++) qp[i] = mp[i] + qp[i];
        ret = lg;
        Py_INCREF(ret);
    } else {
        ret = new_1d(rt, n);
        if (ret != nullptr) {
            char *o = PyArray_BYTES((PyArrayObject *)ret);
            bool ok = true;
            for (npy_intp i = 0; i < n; i++) ok &= store(o + 4 * i, rt, mp[i] + qp[i]);
            if (!ok) {
                Py_DECREF(ret);
                ret = Py_None;
                Py_INCREF(ret);
            }
        }
    }
    Py_DECREF(lg);
    Py_DECREF(res);
    return ret;
}

// fsum: (s, e) from the twosum reduction; s + e where s is finite and e != 0
// (_api._fsum_finish), in the accumulator's type.
template <class T>
inline T fsum_finish(T s, T e) {
    return std::isfinite(s) && e != 0 ? s + e : s;
}

PyObject *do_fsum(FastFunction *f, PyArrayObject *a, bool full, int axis) {
    const int t = PyArray_DESCR(a)->type_num;
    if (!(is_float_type(t) || is_int_or_bool(t)) || t == NPY_LONGDOUBLE) Py_RETURN_NONE;
    if (full) {
        alignas(16) char v[NPY_MAXARGS][32];
        int ot;
        const int ok = reduce_all_raw(f->ufunc, a, v, &ot);
        if (ok <= 0) {
            if (ok < 0) return nullptr;
            Py_RETURN_NONE;
        }
        if (ot == NPY_DOUBLE) {
            const double r = fsum_finish(*(const double *)v[0], *(const double *)v[1]);
            return scalar_of(NPY_DOUBLE, &r);
        }
        if (ot == NPY_FLOAT) {
            const float r = fsum_finish(*(const float *)v[0], *(const float *)v[1]);
            return scalar_of(NPY_FLOAT, &r);
        }
        Py_RETURN_NONE;
    }
    PyObject *res = engine_call(f->ufunc, a, full, axis);
    if (res == nullptr || res == Py_None) return res;
    PyObject *s = PyTuple_GET_ITEM(res, 0), *e = PyTuple_GET_ITEM(res, 1);
    PyObject *ret = nullptr;
    PyArrayObject *sa = (PyArrayObject *)s, *ea = (PyArrayObject *)e;
    const npy_intp n = PyArray_SIZE(sa);
    const int ot = PyArray_DESCR(sa)->type_num;
    if (ot == NPY_DOUBLE) {
        double *sp = (double *)PyArray_DATA(sa);
        const double *ep = (const double *)PyArray_DATA(ea);
        for (npy_intp i = 0; i < n; i++) sp[i] = fsum_finish(sp[i], ep[i]);
    } else if (ot == NPY_FLOAT) {
        float *sp = (float *)PyArray_DATA(sa);
        const float *ep = (const float *)PyArray_DATA(ea);
        for (npy_intp i = 0; i < n; i++) sp[i] = fsum_finish(sp[i], ep[i]);
    } else {
        Py_DECREF(res);
        Py_RETURN_NONE;
    }
    ret = s;
    Py_INCREF(ret);
    Py_DECREF(res);
    return ret;
}

// ---------------------------------------------------------------------------
// the callable
// ---------------------------------------------------------------------------

inline PyObject *general(FastFunction *f, PyObject *const *args, size_t nargsf, PyObject *kwnames) {
    return PyObject_Vectorcall(f->general, args, nargsf, kwnames);
}

int slot_of(PyObject *name) {
    for (int s = 0; s < S_NSLOTS; s++) {
        if (name == g_slot_names[s]) return s;
    }
    for (int s = 0; s < S_NSLOTS; s++) {
        if (PyUnicode_Compare(name, g_slot_names[s]) == 0) return s;
    }
    PyErr_Clear();
    return -1;
}

PyObject *fast_vectorcall(PyObject *self, PyObject *const *args, size_t nargsf, PyObject *kwnames) {
    FastFunction *f = (FastFunction *)self;
    const KindDef &def = kKinds[f->kind];
    const Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
    if (nargs < 1 || nargs > def.nparams) return general(f, args, nargsf, kwnames);
    PyObject *slots[S_NSLOTS] = {};
    for (Py_ssize_t i = 0; i < nargs; i++) slots[def.params[i]] = args[i];
    if (kwnames != nullptr) {
        const Py_ssize_t nkw = PyTuple_GET_SIZE(kwnames);
        for (Py_ssize_t k = 0; k < nkw; k++) {
            const int s = slot_of(PyTuple_GET_ITEM(kwnames, k));
            bool known = false;
            for (int p = 0; p < def.nparams; p++) known |= def.params[p] == s;
            if (s < 0 || !known || slots[s] != nullptr) return general(f, args, nargsf, kwnames);
            slots[s] = args[nargs + k];
        }
    }
    PyObject *obj = slots[S_A];
    if (obj == nullptr || Py_TYPE(obj) != &PyArray_Type) return general(f, args, nargsf, kwnames);
    PyArrayObject *a = (PyArrayObject *)obj;
    // Options that only the general path handles.
    if ((slots[S_OUT] != nullptr && slots[S_OUT] != Py_None) || slots[S_INITIAL] != nullptr ||
        (slots[S_WHERE] != nullptr && slots[S_WHERE] != Py_True) ||
        (slots[S_DTYPE] != nullptr && slots[S_DTYPE] != Py_None) ||
        (slots[S_KEEPDIMS] != nullptr && slots[S_KEEPDIMS] != Py_False)) {
        return general(f, args, nargsf, kwnames);
    }
    double ddof = 0.0;
    if (PyObject *d = slots[S_DDOF]) {
        if (PyLong_CheckExact(d)) {
            int overflow = 0;
            const long long v = PyLong_AsLongLongAndOverflow(d, &overflow);
            if (overflow != 0 || v > (1LL << 52) || v < -(1LL << 52)) {
                return general(f, args, nargsf, kwnames);
            }
            ddof = (double)v;
        } else if (PyFloat_CheckExact(d)) {
            ddof = PyFloat_AS_DOUBLE(d);
        } else {
            return general(f, args, nargsf, kwnames);
        }
    }
    PyArray_Descr *descr = PyArray_DESCR(a);
    const int ndim = PyArray_NDIM(a);
    if (ndim == 0 || !PyArray_ISNBO(descr->byteorder) || !PyArray_ISALIGNED(a)) {
        return general(f, args, nargsf, kwnames);
    }
    bool full = true;
    int axis = 0;
    PyObject *ax = slots[S_AXIS];
    if (ax != nullptr && ax != Py_None) {
        if (!PyLong_CheckExact(ax)) return general(f, args, nargsf, kwnames);
        const long v = PyLong_AsLong(ax);
        if (v == -1 && PyErr_Occurred()) {
            PyErr_Clear();
            return general(f, args, nargsf, kwnames);
        }
        if (v < -ndim || v >= ndim || ndim > 2) return general(f, args, nargsf, kwnames);
        axis = (int)(v < 0 ? v + ndim : v);
        full = ndim == 1;
    }
    PyObject *res;
    switch (f->kind) {
        case K_MINMAX:
        case K_NANMINMAX: res = do_minmax(f, a, full, axis); break;
        case K_ARGMINMAX:
        case K_NANARGMINMAX: res = do_argminmax(f, a, full, axis); break;
        case K_MEANVAR:
        case K_MEANSTD:
        case K_NANMEANVAR: res = do_meanvar(f, a, full, axis, ddof); break;
        case K_LOGSUMEXP: res = do_logsumexp(f, a, full, axis); break;
        case K_FSUM: res = do_fsum(f, a, full, axis); break;
        default: res = Py_None; Py_INCREF(res);
    }
    if (res != Py_None) return res;
    Py_DECREF(res);
    return general(f, args, nargsf, kwnames);
}

PyObject *fast_call(PyObject *self, PyObject *args, PyObject *kwargs) {
    return PyVectorcall_Call(self, args, kwargs);
}

int fast_traverse(PyObject *self, visitproc visit, void *arg) {
    FastFunction *f = (FastFunction *)self;
    Py_VISIT(f->dict);
    Py_VISIT(f->general);
    Py_VISIT(f->ufunc);
    Py_VISIT(f->nan_ufunc);
    return 0;
}

int fast_clear(PyObject *self) {
    FastFunction *f = (FastFunction *)self;
    Py_CLEAR(f->dict);
    Py_CLEAR(f->general);
    Py_CLEAR(f->ufunc);
    Py_CLEAR(f->nan_ufunc);
    return 0;
}

void fast_dealloc(PyObject *self) {
    PyObject_GC_UnTrack(self);
    fast_clear(self);
    Py_TYPE(self)->tp_free(self);
}

PyObject *fast_repr(PyObject *self) {
    FastFunction *f = (FastFunction *)self;
    return PyUnicode_FromFormat("<function numreduce.%s>", kKinds[f->kind].name);
}

// Pickled (and copied) by name, as a function: numreduce.<name>.
PyObject *fast_reduce(PyObject *self, PyObject *) {
    return PyUnicode_FromString(kKinds[((FastFunction *)self)->kind].name);
}

// A plain function's descriptor behaviour: a method when set on a class.
PyObject *fast_descr_get(PyObject *self, PyObject *obj, PyObject *) {
    if (obj == nullptr || obj == Py_None) {
        Py_INCREF(self);
        return self;
    }
    return PyMethod_New(self, obj);
}

PyMethodDef fast_methods[] = {
    {"__reduce__", (PyCFunction)fast_reduce, METH_NOARGS, nullptr},
    {nullptr, nullptr, 0, nullptr},
};

PyGetSetDef fast_getset[] = {
    {"__dict__", PyObject_GenericGetDict, PyObject_GenericSetDict, nullptr, nullptr},
    {nullptr, nullptr, nullptr, nullptr, nullptr},
};

PyTypeObject FastFunctionType = {
    PyVarObject_HEAD_INIT(nullptr, 0)
};

bool init_type() {
    static bool ready = false;
    if (ready) return true;
    PyTypeObject &t = FastFunctionType;
    t.tp_name = "numreduce._core.fast_function";
    t.tp_doc = "A numreduce user function with a C fast path (see numreduce._fastpath).";
    t.tp_basicsize = sizeof(FastFunction);
    t.tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL;
    t.tp_vectorcall_offset = offsetof(FastFunction, vectorcall);
    t.tp_call = fast_call;
    t.tp_dictoffset = offsetof(FastFunction, dict);
    t.tp_traverse = fast_traverse;
    t.tp_clear = fast_clear;
    t.tp_dealloc = fast_dealloc;
    t.tp_repr = fast_repr;
    t.tp_methods = fast_methods;
    t.tp_getset = fast_getset;
    t.tp_descr_get = fast_descr_get;
    if (PyType_Ready(&t) < 0) return false;
    for (int s = 0; s < S_NSLOTS; s++) {
        g_slot_names[s] = PyUnicode_InternFromString(kSlotNames[s]);
        if (g_slot_names[s] == nullptr) return false;
    }
    ready = true;
    return true;
}

}  // namespace

// _fast_function(name, general, ufunc, nan_ufunc) -> the C callable for the
// user function `name`, falling back to `general`.
PyObject *fast_function_new(PyObject *, PyObject *args) {
    const char *name;
    PyObject *gen, *ufunc, *nan_ufunc;
    if (!PyArg_ParseTuple(args, "sOOO", &name, &gen, &ufunc, &nan_ufunc)) return nullptr;
    if (!init_type()) return nullptr;
    int kind = -1;
    for (int k = 0; k < K_COUNT; k++) {
        if (std::strcmp(kKinds[k].name, name) == 0) kind = k;
    }
    if (kind < 0) {
        PyErr_Format(PyExc_ValueError, "numreduce: no fast path for %s", name);
        return nullptr;
    }
    if (!PyCallable_Check(gen)) {
        PyErr_SetString(PyExc_TypeError, "numreduce: the general path must be callable");
        return nullptr;
    }
    FastFunction *f = PyObject_GC_New(FastFunction, &FastFunctionType);
    if (f == nullptr) return nullptr;
    f->vectorcall = fast_vectorcall;
    f->dict = nullptr;
    f->kind = kind;
    Py_INCREF(gen);
    Py_INCREF(ufunc);
    Py_INCREF(nan_ufunc);
    f->general = gen;
    f->ufunc = ufunc;
    f->nan_ufunc = nan_ufunc;
    PyObject_GC_Track((PyObject *)f);
    return (PyObject *)f;
}

}  // namespace nr
