"""The public C++ extension API (src/numreduce/extension.hpp, docs/extending.md).

Compiled here with the machine's C++ compiler against the *installed*
headers (numreduce.get_include()):
- the installed header set is the public one, and each public header
  compiles on its own;
- broken traits fail at compile time with the concept's static_assert text;
- a registration with mismatched dtypes (or nout, duplicate dtypes, a
  foreign API version) fails at import / registration with a clear Python
  exception, and a good registration gives a ufunc every engine method runs.
The example package (examples/sumsq) has its own suite, run by CI.
"""

import importlib.machinery
import importlib.util
import os
import shutil
import subprocess
import sys
import sysconfig

import numpy as np
import pytest

import numreduce as nr

PUBLIC = {"extension.hpp", "loop_entry.hpp", "loops.hpp", "host_traits.hpp", "simd.hpp",
          "numpy_api.hpp"}
INTERNAL = {"engine.hpp", "ufuncs.hpp", "fastpath.cpp", "engine.cpp", "module.cpp"}


def _compiler():
    for cand in (os.environ.get("CXX"), sysconfig.get_config_var("CXX"), "c++", "g++"):
        if cand and shutil.which(cand.split()[0]):
            return cand.split()
    return None


CXX = _compiler()
needs_cxx = pytest.mark.skipif(CXX is None, reason="no C++ compiler on this machine")


def _flags():
    return ["-std=c++17", f"-I{nr.get_include()}", f"-I{np.get_include()}",
            f"-I{sysconfig.get_paths()['include']}"]


def _compile(tmp_path, source, *extra, name="t.cpp"):
    src = tmp_path / name
    src.write_text(source)
    proc = subprocess.run([*CXX, *_flags(), *extra, str(src)], capture_output=True, text=True,
                          cwd=tmp_path, timeout=600)
    return proc


def test_installed_headers_are_the_public_set():
    inc = os.path.join(nr.get_include(), "numreduce")
    files = {f for f in os.listdir(inc) if os.path.isfile(os.path.join(inc, f))}
    assert files == PUBLIC
    assert not files & INTERNAL
    traits = set(os.listdir(os.path.join(inc, "traits")))
    assert {"common.hpp", "minmax.hpp", "moments.hpp", "twosum.hpp"} <= traits
    assert nr.C_API_VERSION == (1, 2)
    assert nr._core._C_API_VERSION == 1002


@needs_cxx
@pytest.mark.parametrize("header", sorted(PUBLIC))
def test_each_public_header_compiles_alone(tmp_path, header):
    proc = _compile(tmp_path, f"#include <numreduce/{header}>\nint main() {{ return 0; }}\n",
                    "-fsyntax-only")
    assert proc.returncode == 0, proc.stderr[-3000:]


GOOD_TRAITS = """
struct Good {
    using in_t = double; using out_t = double; static constexpr int nout = 2;
    struct acc_t { double v[2]; };
    static acc_t lift(double x) { return {{x, x * x}}; }
    static acc_t step(acc_t a, double x) { return {{a.v[0] + x, a.v[1] + x * x}}; }
    static acc_t combine(acc_t a, acc_t b) { return {{a.v[0] + b.v[0], a.v[1] + b.v[1]}}; }
    static bool initials(acc_t &a, bool) { a = acc_t{{0.0, 0.0}}; return true; }
};
"""

BROKEN = {
    "nout_mismatch": (GOOD_TRAITS.replace("nout = 2", "nout = 3").replace("Good", "Bad"),
                      "nout does not match the outputs"),
    "missing_combine": (GOOD_TRAITS.replace("static acc_t combine", "static acc_t merge")
                        .replace("Good", "Bad"), "missing `static acc_t combine(acc_t a, acc_t b)`"),
    "missing_initials": (GOOD_TRAITS.replace("static bool initials", "static bool seeds")
                         .replace("Good", "Bad"), "missing `static bool initials"),
    "step_wrong_type": (GOOD_TRAITS.replace("static acc_t step(acc_t a, double x)",
                                            "static double step(acc_t a, double x)")
                        .replace("{{a.v[0] + x, a.v[1] + x * x}}; }\n    static acc_t combine",
                                 "a.v[0] + x; }\n    static acc_t combine")
                        .replace("Good", "Bad"), "missing `static acc_t step(acc_t a, in_t x)`"),
    "acc_of_wrong_type": (GOOD_TRAITS.replace("struct acc_t { double v[2]; }",
                                              "struct acc_t { float v[2]; }")
                          .replace("Good", "Bad"), "acc_t must hold exactly the outputs"),
    "no_nout": (GOOD_TRAITS.replace("static constexpr int nout = 2;", "").replace("Good", "Bad"),
                "missing `static constexpr int nout"),
}


@needs_cxx
def test_good_traits_compile(tmp_path):
    src = ("#include <numreduce/extension.hpp>\n" + GOOD_TRAITS +
           "nr::LoopEntry e = nr::make_loop<Good>(NPY_DOUBLE, NPY_DOUBLE);\n")
    proc = _compile(tmp_path, src, "-fsyntax-only")
    assert proc.returncode == 0, proc.stderr[-3000:]


@needs_cxx
@pytest.mark.parametrize("case", sorted(BROKEN))
def test_broken_traits_fail_to_compile_with_a_readable_message(tmp_path, case):
    traits, message = BROKEN[case]
    src = ("#include <numreduce/extension.hpp>\n" + traits +
           "nr::LoopEntry e = nr::make_loop<Bad>(NPY_DOUBLE, NPY_DOUBLE);\n")
    proc = _compile(tmp_path, src, "-fsyntax-only")
    assert proc.returncode != 0
    assert "static assert" in proc.stderr.lower() or "static_assert" in proc.stderr
    assert message in proc.stderr, proc.stderr[-3000:]


# One shared object, two module inits: _nr_ext_ok registers a good ufunc and
# exposes functions that try bad registrations; _nr_ext_bad registers float
# traits under float64 in its init (the import must fail).
MODULE = r"""
#define NR_IMPORT_NUMPY_HERE
#include <cstring>

#include <numreduce/extension.hpp>
#include <numreduce/traits/common.hpp>

template <class T>
struct SumSq {
    using in_t = T; using out_t = double; static constexpr int nout = 2;
    struct acc_t { double v[2]; };
    static acc_t lift(T x) { return {{double(x), double(x) * double(x)}}; }
    static acc_t step(acc_t a, T x) { return {{a.v[0] + double(x), a.v[1] + double(x) * double(x)}}; }
    static acc_t combine(acc_t a, acc_t b) { return {{a.v[0] + b.v[0], a.v[1] + b.v[1]}}; }
    static bool initials(acc_t &a, bool) { a = acc_t{{0.0, 0.0}}; return true; }
};
template <class T>
struct Triple {
    using in_t = T; using out_t = double; static constexpr int nout = 3;
    struct acc_t { double v[3]; };
    static acc_t lift(T x) { return {{1.0, double(x), double(x)}}; }
    static acc_t step(acc_t a, T x) { return combine(a, lift(x)); }
    static acc_t combine(acc_t a, acc_t b) { return {{a.v[0] + b.v[0], a.v[1] + b.v[1], a.v[2] + b.v[2]}}; }
    static bool initials(acc_t &a, bool) { a = acc_t{{0.0, 0.0, 0.0}}; return true; }
};

template <class T>
struct Prod3 {  // three sources: (sum(a b c), sum(a)), a K-source reduction
    static constexpr int nsrc = 3;
    using in_t = nr::sources<T, 3>; using out_t = double; static constexpr int nout = 2;
    struct acc_t { double v[2]; };
    static acc_t lift(in_t s) { return {{double(s.v[0]) * double(s.v[1]) * double(s.v[2]), double(s.v[0])}}; }
    static acc_t step(acc_t a, in_t s) { return combine(a, lift(s)); }
    static acc_t combine(acc_t a, acc_t b) { return {{a.v[0] + b.v[0], a.v[1] + b.v[1]}}; }
    static bool initials(acc_t &a, bool) { a = acc_t{{0.0, 0.0}}; return true; }
};

// A registration as an extension built with C API 1.`minor` headers (0 or
// 1) makes it: entries of 1.1's size (everything before scatter_sources),
// that many bytes apart.
static int register_old(PyObject *m, const char *name, int minor,
                        const std::vector<nr::LoopEntry> &loops, int size = -1) {
    const size_t sz = nr::kLoopEntrySize_1_1;
    std::vector<char> buf(sz * loops.size());
    for (size_t k = 0; k < loops.size(); k++) std::memcpy(buf.data() + k * sz, &loops[k], sz);
    nr::UFuncSpec spec{1000 + minor, size < 0 ? int(sz) : size, name, nullptr, loops[0].nout,
                       int(loops.size()), reinterpret_cast<const nr::LoopEntry *>(buf.data())};
    PyObject *u = nr::capi()->register_ufunc(m, &spec);
    Py_XDECREF(u);
    return u == nullptr ? -1 : 0;
}

struct Range {  // (min, max) of doubles without initials, as np.minimum.reduce
    using in_t = double; using out_t = double; static constexpr int nout = 2;
    struct acc_t { double v[2]; };
    static acc_t lift(double x) { return {{x, x}}; }
    static acc_t step(acc_t a, double x) { return combine(a, lift(x)); }
    static acc_t combine(acc_t a, acc_t b) {
        return {{a.v[0] < b.v[0] ? a.v[0] : b.v[0], a.v[1] > b.v[1] ? a.v[1] : b.v[1]}};
    }
    static bool initials(acc_t &, bool) { return false; }
};

static PyObject *bad(PyObject *self, PyObject *arg) {
    long which = PyLong_AsLong(arg);
    if (which == -1 && PyErr_Occurred()) return nullptr;
    int res = 0;
    switch (which) {
    case 0:  // float traits under int32: same size, other kind
        res = nr::register_ufunc(self, "bad_kind", nullptr,
                                 {nr::make_loop<SumSq<float>>(NPY_INT, NPY_DOUBLE)});
        break;
    case 1:  // two loops for one dtype
        res = nr::register_ufunc(self, "bad_dup", nullptr,
                                 {nr::make_loop<SumSq<double>>(NPY_DOUBLE, NPY_DOUBLE),
                                  nr::make_loop<SumSq<double>>(NPY_DOUBLE, NPY_DOUBLE)});
        break;
    case 2:  // loops of different nout in one ufunc
        res = nr::register_ufunc(self, "bad_nout", nullptr,
                                 {nr::make_loop<SumSq<double>>(NPY_DOUBLE, NPY_DOUBLE),
                                  nr::make_loop<Triple<float>>(NPY_FLOAT, NPY_DOUBLE)});
        break;
    case 3: {  // a spec from headers of another major version
        std::vector<nr::LoopEntry> loops = {nr::make_loop<SumSq<double>>(NPY_DOUBLE, NPY_DOUBLE)};
        nr::UFuncSpec spec{2000, int(sizeof(nr::LoopEntry)), "bad_version", nullptr, 2, 1,
                           loops.data()};
        PyObject *u = nr::capi()->register_ufunc(self, &spec);
        Py_XDECREF(u);
        res = u == nullptr ? -1 : 0;
        break;
    }
    case 4:  // no loops
        res = nr::register_ufunc(self, "bad_empty", nullptr, {});
        break;
    case 5:  // out dtype of the wrong size
        res = nr::register_ufunc(self, "bad_out", nullptr,
                                 {nr::make_loop<SumSq<double>>(NPY_DOUBLE, NPY_FLOAT)});
        break;
    case 6:  // not a type number
        res = nr::register_ufunc(self, "bad_type", nullptr,
                                 {nr::make_loop<SumSq<double>>(12345, NPY_DOUBLE)});
        break;
    case 7:  // a 1.2 registration with 1.1's entry size
        res = register_old(self, "bad_size", 2,
                           {nr::make_loop<SumSq<double>>(NPY_DOUBLE, NPY_DOUBLE)});
        break;
    default:
        PyErr_SetString(PyExc_ValueError, "no such case");
        return nullptr;
    }
    if (res < 0) return nullptr;
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {{"bad", bad, METH_O, nullptr}, {nullptr, nullptr, 0, nullptr}};
static PyModuleDef ok_def = {PyModuleDef_HEAD_INIT, "_nr_ext_ok", nullptr, -1, methods};
static PyModuleDef bad_def = {PyModuleDef_HEAD_INIT, "_nr_ext_bad", nullptr, -1, nullptr};

PyMODINIT_FUNC PyInit__nr_ext_ok(void) {
    if (nr::import_numreduce() < 0) return nullptr;
    PyObject *m = PyModule_Create(&ok_def);
    if (m == nullptr) return nullptr;
    if (nr::register_ufunc(m, "sumsq", "sumsq(x1, x2): (sum, sum of squares)",
                           {nr::make_loop<SumSq<double>>(NPY_DOUBLE, NPY_DOUBLE),
                            nr::make_loop<SumSq<float>>(NPY_FLOAT, NPY_DOUBLE),
                            nr::make_loop<SumSq<npy_int>>(NPY_INT, NPY_DOUBLE)}) < 0 ||
        nr::register_ufunc(m, "triple", nullptr,
                           {nr::make_loop<Triple<double>>(NPY_DOUBLE, NPY_DOUBLE)}) < 0 ||
        nr::register_ufunc(m, "range", nullptr,
                           {nr::make_loop<Range>(NPY_DOUBLE, NPY_DOUBLE)}) < 0 ||
        // a K-source reduction built with these headers (1.2) and as 1.1's
        // and 1.0's headers build entries (shorter, no scatter_sources)
        nr::register_ufunc(m, "prod3", nullptr,
                           {nr::make_loop<Prod3<double>>(NPY_DOUBLE, NPY_DOUBLE),
                            nr::make_loop<Prod3<float>>(NPY_FLOAT, NPY_DOUBLE)}) < 0 ||
        register_old(m, "prod3_v11", 1,
                     {nr::make_loop<Prod3<double>>(NPY_DOUBLE, NPY_DOUBLE),
                      nr::make_loop<Prod3<float>>(NPY_FLOAT, NPY_DOUBLE)}) < 0 ||
        register_old(m, "sumsq_v10", 0,
                     {nr::make_loop<SumSq<double>>(NPY_DOUBLE, NPY_DOUBLE)}) < 0 ||
        // the same reduction, its loops in two orders (promotion follows it)
        nr::register_ufunc(m, "floats_first", nullptr,
                           {nr::make_loop<SumSq<float>>(NPY_FLOAT, NPY_DOUBLE),
                            nr::make_loop<SumSq<double>>(NPY_DOUBLE, NPY_DOUBLE),
                            nr::make_loop<SumSq<npy_int>>(NPY_INT, NPY_DOUBLE),
                            nr::make_loop<SumSq<npy_longlong>>(NPY_LONGLONG, NPY_DOUBLE)}) < 0 ||
        nr::register_ufunc(m, "ints_first", nullptr,
                           {nr::make_loop<SumSq<npy_int>>(NPY_INT, NPY_DOUBLE),
                            nr::make_loop<SumSq<npy_longlong>>(NPY_LONGLONG, NPY_DOUBLE),
                            nr::make_loop<SumSq<float>>(NPY_FLOAT, NPY_DOUBLE),
                            nr::make_loop<SumSq<double>>(NPY_DOUBLE, NPY_DOUBLE)}) < 0) {
        Py_DECREF(m);
        return nullptr;
    }
    return m;
}

PyMODINIT_FUNC PyInit__nr_ext_bad(void) {
    if (nr::import_numreduce() < 0) return nullptr;
    PyObject *m = PyModule_Create(&bad_def);
    if (m == nullptr) return nullptr;
    if (nr::register_ufunc(m, "sumsq", nullptr,
                           {nr::make_loop<SumSq<float>>(NPY_DOUBLE, NPY_DOUBLE)}) < 0) {
        Py_DECREF(m);
        return nullptr;
    }
    return m;
}
"""


@pytest.fixture(scope="module")
def ext_so(tmp_path_factory):
    if CXX is None:
        pytest.skip("no C++ compiler on this machine")
    tmp = tmp_path_factory.mktemp("ext")
    so = tmp / ("_nr_ext" + importlib.machinery.EXTENSION_SUFFIXES[0])
    proc = _compile(tmp, MODULE, "-O1", "-shared", "-fPIC", "-o", str(so), name="ext.cpp")
    assert proc.returncode == 0, proc.stderr[-3000:]
    return so


def _load(so, name):
    spec = importlib.util.spec_from_file_location(name, so)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    sys.modules[name] = mod
    return mod


@pytest.fixture(scope="module")
def ext(ext_so):
    return _load(ext_so, "_nr_ext_ok")


def test_registration_with_mismatched_dtypes_fails_at_import(ext_so):
    with pytest.raises(TypeError, match=r"ufunc 'sumsq', loop 0: dtype dtype\('float64'\) does "
                                        r"not match the traits' in_t \(4 bytes, kind 'f'\)"):
        _load(ext_so, "_nr_ext_bad")
    assert "_nr_ext_bad" not in sys.modules


@pytest.mark.parametrize("case, exc, message", [
    (0, TypeError, r"'bad_kind', loop 0: dtype dtype\('int32'\) does not match the traits' "
                   r"in_t \(4 bytes, kind 'f'\)"),
    (1, ValueError, r"'bad_dup' has two loops for input type number"),
    (2, ValueError, r"'bad_nout', loop 1: its traits have nout = 3, the ufunc 2 outputs"),
    (3, ImportError, r"C API 2\.0 .* cannot register with numreduce C API 1\.2"),
    (4, ValueError, r"'bad_empty' must have between 1 and 8 outputs, not 0"),
    (5, TypeError, r"'bad_out', loop 0: dtype dtype\('float32'\) does not match the traits' "
                   r"out_t \(8 bytes"),
    (6, TypeError, r"'bad_type', loop 0: 12345 is not a NumPy type number"),
    (7, ImportError, r"C API 1\.2 \(LoopEntry of \d+ bytes\) cannot register"),
])
def test_bad_registrations_raise_clear_errors(ext, case, exc, message):
    before = dict(nr._core._MULTI_OUTPUT)
    with pytest.raises(exc, match=message):
        ext.bad(case)
    assert nr._core._MULTI_OUTPUT == before  # nothing half-registered
    assert not any(hasattr(ext, n) for n in ("bad_kind", "bad_dup", "bad_nout", "bad_version",
                                             "bad_empty", "bad_out", "bad_type", "bad_size"))


def test_registered_ufunc_runs_every_method(ext):
    sumsq, triple = ext.sumsq, ext.triple
    assert nr._core._MULTI_OUTPUT[sumsq] == 2 and nr._core._MULTI_OUTPUT[triple] == 3
    rng = np.random.default_rng(0)
    a = rng.standard_normal((6, 9))
    s, q = nr.reduce(sumsq, a, axis=1)
    np.testing.assert_allclose(s, a.sum(1), rtol=1e-13)
    np.testing.assert_allclose(q, (a * a).sum(1), rtol=1e-13)
    s, q = nr.reduce(sumsq, a.astype(np.float32), axis=None)
    assert s.dtype == np.float64
    np.testing.assert_allclose(s, a.astype(np.float32).astype(np.float64).sum(), rtol=1e-12)
    s, q = sumsq(np.arange(3, dtype=np.int32), np.arange(3, dtype=np.int32))
    np.testing.assert_array_equal(s, [0.0, 2.0, 4.0])
    np.testing.assert_array_equal(q, [0.0, 2.0, 8.0])
    np.testing.assert_allclose(nr.accumulate(sumsq, a, axis=1)[0], np.cumsum(a, 1), rtol=1e-13)
    np.testing.assert_allclose(nr.reduceat(sumsq, a, [0, 4], axis=1)[1],
                               np.add.reduceat(a * a, [0, 4], axis=1), rtol=1e-13)
    g = np.array([0, 1, 0, 2, 1, 0])
    np.testing.assert_allclose(nr.reduce_by_group(sumsq, a, g, 3, axis=0)[0],
                               np.stack([a[g == k].sum(0) for k in range(3)]), rtol=1e-13)
    halves = nr.merge(sumsq, nr.reduce(sumsq, a[:2], axis=0), nr.reduce(sumsq, a[2:], axis=0))
    np.testing.assert_allclose(halves[0], a.sum(0), rtol=1e-13)
    n, s1, s2 = nr.reduce(triple, a, axis=0)
    np.testing.assert_array_equal(n, np.full(9, 6.0))
    with pytest.raises(TypeError, match="did not contain a loop"):
        nr.reduce(sumsq, np.ones(3, dtype=np.complex128))   # no loop takes it safely
    if nr.HAVE_NATIVE_REDUCE:
        np.testing.assert_allclose(sumsq.reduce(a, axis=1)[0], a.sum(1), rtol=1e-13)


def test_registrations_of_older_minor_versions_are_accepted(ext):
    """Entries built with C API 1.1 headers (shorter: no scatter_sources)
    and 1.0's register with the 1.2 numreduce; the grouped reduction of the
    1.1 three-source loop packs its sources (no scatter_sources) and gives
    the bits of the 1.2 loop, which reads them in place."""
    f8, f4 = np.dtype(np.float64), np.dtype(np.float32)
    assert nr._core._MULTI_SOURCE[ext.prod3] == nr._core._MULTI_SOURCE[ext.prod3_v11] == 3
    assert nr._core._scatters_sources(ext.prod3, f8) and nr._core._scatters_sources(ext.prod3, f4)
    assert not nr._core._scatters_sources(ext.prod3_v11, f8)
    assert not nr._core._scatters_sources(ext.sumsq_v10, f8)
    assert ext.sumsq_v10 not in nr._core._MULTI_SOURCE
    rng = np.random.default_rng(7)
    n, g = 50_000, 300
    a, b, c = rng.standard_normal(n), rng.random(n), rng.integers(-3, 4, n)
    a[::101] = np.nan
    b[::7] = 0.0
    ids = rng.integers(0, g, n)
    new = nr.reduce_by_group(ext.prod3, (a, b, c), ids, g)
    old = nr.reduce_by_group(ext.prod3_v11, (a, b, c), ids, g)
    for u, v in zip(new, old):
        assert u.tobytes() == v.tobytes()
    for k in (0, 1, 5):
        sel = ids == k
        np.testing.assert_allclose(new[0][k], (a * b * c)[sel].sum(), rtol=1e-12)
    f = a.astype(np.float32)
    for u, v in zip(nr.reduce_by_group(ext.prod3, (f, f, f), ids, g),
                    nr.reduce_by_group(ext.prod3_v11, (f, f, f), ids, g)):
        assert u.tobytes() == v.tobytes()
    for u, v in zip(nr.reduce_by_group(ext.sumsq_v10, b, ids, g),
                    nr.reduce_by_group(ext.sumsq, b, ids, g)):
        assert u.tobytes() == v.tobytes()
    np.testing.assert_allclose(nr.reduce(ext.prod3_v11, (a, b, c))[1], np.sum(a))
    with pytest.raises(IndexError):
        nr.reduce_by_group(ext.prod3_v11, (a, b, c), ids, g - 1)


# Input without a loop of its own: the first loop, in registration order,
# that it casts to safely.
PROMOTED = {"floats_first": {"int16": "float32", "uint8": "float32", "bool": "float32",
                             "float16": "float32", "uint32": "float64", "int8": "float32",
                             "uint64": "float64"},
            "ints_first": {"int16": "int32", "uint8": "int32", "bool": "int32",
                           "float16": "float32", "uint32": "int64", "int8": "int32",
                           "uint64": "float64"}}


@pytest.mark.parametrize("name", sorted(PROMOTED))
@pytest.mark.parametrize("dtype", ["int16", "uint8", "bool", "float16", "uint32", "int8", "uint64"])
def test_registered_ufunc_promotes_to_the_first_safe_loop(ext, name, dtype):
    """A ufunc registered with float32/float64/int32/int64 loops takes
    int16, uint8, bool, float16, ... input through the first loop (in
    registration order) the input casts to safely, in every method; the
    results are those of the same values in float64."""
    u = getattr(ext, name)
    want = np.dtype(PROMOTED[name][dtype])
    dt = np.dtype(dtype)
    assert u.resolve_dtypes((dt, dt, None, None)) == (want, want, np.dtype("f8"), np.dtype("f8"))
    rng = np.random.default_rng(1)
    a = rng.integers(0, 2 if dtype == "bool" else 50, (4, 6)).astype(dt)
    x = a.astype(np.float64)
    close = lambda got, ref: [np.testing.assert_allclose(g, r, rtol=1e-12)  # noqa: E731
                              for g, r in zip(got, ref)]
    close(u(a, a[::-1]), (x + x[::-1], x * x + x[::-1] ** 2))
    close(nr.reduce(u, a, axis=1), (x.sum(1), (x * x).sum(1)))
    close(nr.reduce(u, a, axis=None), (x.sum(), (x * x).sum()))
    close(nr.accumulate(u, a, axis=1), (np.cumsum(x, 1), np.cumsum(x * x, 1)))
    close(nr.reduceat(u, a, [0, 3], axis=1),
          (np.add.reduceat(x, [0, 3], axis=1), np.add.reduceat(x * x, [0, 3], axis=1)))
    close(nr.segmented_reduce(u, a, [0, 2], [3, 6], axis=1),
          (np.stack([x[:, 0:3].sum(1), x[:, 2:6].sum(1)], 1),
           np.stack([(x * x)[:, 0:3].sum(1), (x * x)[:, 2:6].sum(1)], 1)))
    g = np.array([0, 1, 0, 1])
    close(nr.reduce_by_group(u, a, g, 2, axis=0),
          (np.stack([x[g == k].sum(0) for k in range(2)]),
           np.stack([(x * x)[g == k].sum(0) for k in range(2)])))
    close(nr.merge(u, nr.reduce(u, a[:2], axis=0), nr.reduce(u, a[2:], axis=0)),
          (x.sum(0), (x * x).sum(0)))
    outs = (np.zeros(3), np.zeros(3))
    nr.at(u, outs, [0, 2, 2], a[0, :3])
    close(outs, ([x[0, 0], 0, x[0, 1] + x[0, 2]], [x[0, 0] ** 2, 0, x[0, 1] ** 2 + x[0, 2] ** 2]))
    s, q = u.outer(a[0], a[1])
    close((s, q), (np.add.outer(x[0], x[1]), np.add.outer(x[0] ** 2, x[1] ** 2)))
    if nr.HAVE_NATIVE_REDUCE:
        close(u.reduce(a, axis=1), (x.sum(1), (x * x).sum(1)))


@pytest.mark.parametrize("dtype", ["complex128", "complex64", "m8[s]"])
def test_registered_ufunc_without_a_safe_loop_keeps_numpys_error(ext, dtype):
    """No registered loop takes complex or timedelta input safely: NumPy's
    TypeError, naming the types, in the elementwise call and the methods."""
    a = np.ones(3, dtype=dtype)
    for u in (ext.floats_first, ext.ints_first):
        with pytest.raises(TypeError, match="did not contain a loop"):
            u(a, a)
        with pytest.raises(TypeError, match="did not contain a loop"):
            nr.reduce(u, a)
        with pytest.raises(TypeError, match="did not contain a loop"):
            nr.accumulate(u, a)


def test_numreduces_own_ufuncs_keep_their_loops():
    """numreduce's own ufuncs do not take the first safe loop: nanmoments
    has no integer loops and refuses int16 (the statistics choose their
    stream dtypes themselves)."""
    dt = np.dtype("int16")
    with pytest.raises(TypeError, match="did not contain a loop"):
        nr.nanmoments.resolve_dtypes((dt, dt, None, None, None))


def test_registered_ufunc_without_initials_follows_reduce_rules(ext):
    a = np.array([[3.0, -1.0, 7.0], [2.0, 5.0, 0.5]])
    lo, hi = nr.reduce(ext.range, a, axis=1)
    np.testing.assert_array_equal(lo, a.min(1))
    np.testing.assert_array_equal(hi, a.max(1))
    assert not nr._dtypes.has_initials(ext.range, np.dtype(np.float64))
    assert nr._dtypes.has_initials(ext.sumsq, np.dtype(np.float64))
    with pytest.raises(ValueError, match="identity"):
        nr.reduce(ext.range, np.empty((0, 2)), axis=0)
    with pytest.raises(ValueError, match="identity"):
        nr.reduce(ext.range, a, axis=1, where=a > 1)
    lo, hi = nr.reduce(ext.range, a, axis=1, where=a > 1, initial=(np.inf, -np.inf))
    np.testing.assert_array_equal(lo, [3.0, 2.0])
    with pytest.raises(ValueError, match="identity"):
        nr.reduce_by_group(ext.range, a.ravel(), [0, 1, 0, 1, 0, 1], where=a.ravel() > 1)


def test_registered_ufuncs_on_dask(ext):
    da = pytest.importorskip("dask.array", reason="dask is not installed (the 'dask' extra)")
    import dask

    a = np.random.default_rng(1).standard_normal((40, 30))
    x = da.from_array(a, chunks=((10, 0, 30), (7, 23)))  # an empty chunk
    s, q = nr.reduce(ext.sumsq, x, axis=0)
    assert isinstance(s, da.Array)
    s, q = dask.compute(s, q, scheduler="sync")
    np.testing.assert_allclose(s, a.sum(0), rtol=1e-12)
    np.testing.assert_allclose(q, (a * a).sum(0), rtol=1e-12)
    lo, hi = dask.compute(*nr.reduce(ext.range, x, axis=None), scheduler="sync")
    assert lo == a.min() and hi == a.max()
    # accumulate too: the scan's blocks and carries with the registered loops
    # (a carry merged into a block sums in another order: to rounding)
    for got, ref in zip(dask.compute(*nr.accumulate(ext.sumsq, x, axis=0), scheduler="sync"),
                        nr.accumulate(ext.sumsq, a, axis=0)):
        np.testing.assert_allclose(got, ref, rtol=1e-12, atol=1e-12)
    with pytest.raises(ValueError, match="identity"):
        nr.reduce(ext.range, x, axis=0, where=x > 0)
    g = np.arange(40) % 3
    s, q = dask.compute(*nr.reduce_by_group(ext.sumsq, x, g, 3, axis=0), scheduler="threads")
    np.testing.assert_allclose(s, np.stack([a[g == k].sum(0) for k in range(3)]), rtol=1e-12)
    with pytest.raises(TypeError, match="range has no initial values"):
        nr.reduce_by_group(ext.range, x, g, 3, axis=0)
    lo, hi = dask.compute(*nr.reduce_by_group(ext.range, x, g, 3, axis=0,
                                              initial=(np.inf, -np.inf)), scheduler="sync")
    np.testing.assert_array_equal(lo, np.stack([a[g == k].min(0) for k in range(3)]))
