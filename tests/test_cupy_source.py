"""The CuPy mirror without a GPU: the generated kernel source (unit tests of
the strings; tests/test_nvrtc.py compiles them), the import errors, the
dispatch of CuPy arrays and the refusal of mixed NumPy/CuPy inputs."""

from __future__ import annotations

import ast
import inspect
import os
import subprocess
import sys

import numpy as np
import pytest

import numreduce as nr
from numreduce import _cupy_source as src

CUPY_PY = os.path.join(os.path.dirname(nr.__file__), "cupy.py")


def test_import_numreduce_does_not_import_cupy():
    code = "import sys, numreduce; print('cupy' in sys.modules, 'numreduce.cupy' in sys.modules)"
    out = subprocess.run([sys.executable, "-P", "-c", code], capture_output=True, text=True,
                         check=True, cwd="/").stdout.split()
    assert out == ["False", "False"]


def test_import_without_cupy_says_what_is_missing():
    code = ("import sys; sys.modules['cupy'] = None\n"
            "try:\n    import numreduce.cupy\nexcept ImportError as e:\n    print('IE', e)\n")
    out = subprocess.run([sys.executable, "-P", "-c", code], capture_output=True, text=True,
                         check=True, cwd="/").stdout
    assert out.startswith("IE numreduce.cupy needs CuPy, which is not installed"), out


def _has_gpu():
    try:
        import cupy
        return cupy.cuda.runtime.getDeviceCount() > 0
    except Exception:
        return False


@pytest.mark.skipif(_has_gpu(), reason="a CUDA device is present (this checks its absence)")
def test_import_without_gpu_says_what_is_missing():
    with pytest.raises(ImportError, match=r"numreduce.cupy needs (CuPy|a CUDA device)"):
        import numreduce.cupy  # noqa: F401


def test_traits_table_matches_the_cpu_loops():
    # the accumulator types the CPU registers (ufuncs.cpp): float32 data
    # accumulate moments / log-sum-exp in float64, twosum in float32; float16
    # twosum in float32; integers in float64
    want = {
        ("minimummaximum", "f"): "nr::MinMax<float>",
        ("minimummaximum", "e"): "nr::MinMax<nr::half16>",
        ("minimummaximum", "F"): "nr::MinMax<nr::cplx<float>>",
        ("fminfmax", "q"): "nr::FMinFMax<long long>",
        ("moments", "f"): "nr::Moments<float, double, false>",
        ("moments", "i"): "nr::Moments<int, double, false>",
        ("nanmoments", "e"): "nr::Moments<nr::half16, double, true>",
        ("maxsumexp", "f"): "nr::MaxSumExp<float, double>",
        ("maxsumexp", "?"): "nr::MaxSumExp<bool, double>",
        ("twosum", "f"): "nr::TwoSum<float, float>",
        ("twosum", "e"): "nr::TwoSum<nr::half16, float>",
        ("twosum", "q"): "nr::TwoSum<long long, double>",
    }
    for (name, c), struct in want.items():
        oc = src.loop_types(name)[c]
        assert src._struct(src.TRAITS[name][0], c, oc) == struct
        assert f"typedef {struct} nr_tr;" in src.preamble(name, c)
    # only the CPU's loops (no nanmoments for integers, no moments for complex)
    assert "i" not in src.loop_types("nanmoments")
    assert "F" not in src.loop_types("moments")
    assert set(src.loop_types("minimummaximum")) == set(src.DEVICE_TYPES)
    # ... and those read from the CPU ufunc itself
    for name in src.TRAITS:
        u = getattr(nr, name)
        for c, oc in src.loop_types(name).items():
            dt = np.dtype(c)
            assert u.resolve_dtypes((dt, dt) + (None,) * u.nout)[-1] == np.dtype(oc)


def test_generated_elementwise_source():
    p = src.elementwise_parts("moments", "f")
    assert p["in_params"] == "float32 x1, float32 x2"
    assert p["out_params"] == "float64 o0, float64 o1, float64 o2"
    assert "nr_tr::combine(nr_tr::lift(nr_in(x1)), nr_tr::lift(nr_in(x2)))" in p["operation"]
    for k in range(3):
        assert f"o{k} = nr_out(a.v[{k}]);" in p["operation"]
    assert p["preamble"].startswith('#include "numreduce/traits/moments.hpp"\n')
    assert p["options"] == ("-I" + src.include_dir(),)
    assert os.path.isfile(os.path.join(src.include_dir(), "numreduce", "traits", "moments.hpp"))
    h = src.elementwise_parts("minimummaximum", "e")
    assert h["in_params"] == "float16 x1, float16 x2" and "typedef float16 nr_cin;" in h["preamble"]


def test_generated_reduction_source():
    p = src.reduction_parts("minimummaximum", "d")
    assert p["in_params"] == "float64 x, int32 nr_mode, float64 i0, float64 i1"
    assert p["out_params"] == "float64 o0, float64 o1"
    assert p["map_expr"] == "nr_map(x)" and p["reduce_expr"] == "nr_reduce(a, b)"
    assert p["identity"] == "nr_empty()" and p["reduce_type"] == "nr_state"
    # CuPy wraps POST_MAP's argument in parentheses: one expression
    assert p["post_map_expr"] == "nr_post(a, nr_mode, i0, i1, o0, o1)"
    assert "void nr_post(const nr_state &s, int mode, nr_cout i0, nr_cout i1, nr_cout &o0, " \
           "nr_cout &o1)" in p["preamble"]
    w = src.reduction_parts("twosum", "f", where=True)
    assert w["in_params"].startswith("float32 x, bool w, int32 nr_mode")
    assert w["map_expr"] == "nr_map_where(x, w)" and w["name"].endswith("_w")
    a = src.arg_reduction_parts("nanargminmax", "f")
    assert a["map_expr"] == "nr_arg_map(x, _J)" and a["out_params"] == "int64 o0, int64 o1"
    assert "nr::ArgMinMax<float, true>" in a["preamble"]
    # kernel names are C identifiers
    for name in src.TRAITS:
        for c in src.loop_types(name):
            assert src.reduction_parts(name, c)["name"].isidentifier()
            assert src.elementwise_parts(name, c)["name"].isidentifier()


def test_device_functions_have_the_cpu_signatures():
    tree = ast.parse(open(CUPY_PY).read())
    defs = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
    for name in ("minmax", "nanminmax", "argminmax", "nanargminmax", "meanvar", "meanstd",
                 "nanmeanvar", "logsumexp", "fsum", "reduce", "accumulate", "merge",
                 "reduceat", "segmented_reduce", "reduce_by_group", "at", "group_minmax",
                 "group_meanvar", "group_logsumexp", "group_fsum"):
        cpu = list(inspect.signature(getattr(nr, name)).parameters)
        dev = [a.arg for a in defs[name].args.args + defs[name].args.kwonlyargs]
        assert dev == cpu, name


class _FakeCupyArray:
    """A stand-in with a CuPy module name (the dispatch looks only at that)."""
    __module__ = "cupy._core.core"
    shape, ndim, dtype = (3,), 1, np.dtype(np.float32)


def test_cupy_arrays_route_to_the_mirror():
    if _has_gpu():
        pytest.skip("a CUDA device is present: tests/test_cupy.py runs the mirror")
    for call in (lambda: nr.minmax(_FakeCupyArray()), lambda: nr.meanvar(_FakeCupyArray()),
                 lambda: nr.reduce(nr.minimummaximum, _FakeCupyArray())):
        with pytest.raises(ImportError, match="numreduce.cupy needs"):
            call()


def test_mixed_numpy_and_cupy_raise_typeerror():
    x = np.zeros(3, np.float32)
    with pytest.raises(TypeError, match=r"numreduce.minmax: mixed CuPy and non-CuPy arrays "
                                        r"\(ndarray\)"):
        nr.minmax(_FakeCupyArray(), out=(x[0:1].reshape(()), None))
    with pytest.raises(TypeError, match="mixed CuPy and non-CuPy"):
        nr.minmax(x, out=(_FakeCupyArray(), None))
    with pytest.raises(TypeError, match="mixed CuPy and non-CuPy"):
        nr.reduce(nr.moments, x, out=(_FakeCupyArray(), None, None))


def test_stub_names_match_the_module():
    stub = ast.parse(open(os.path.join(os.path.dirname(nr.__file__), "cupy.pyi")).read())
    names = set()
    for node in stub.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.AnnAssign):
            names.add(node.target.id)
    mod = ast.parse(open(CUPY_PY).read())
    defined = {n.name for n in mod.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))
               and not n.name.startswith("_")}
    defined |= set(src.TRAITS) | set(src.SOURCE_TRAITS) | {"FUNCTIONS"}
    assert names == defined


def test_generated_accumulate_and_merge_source():
    code, kname = src.accumulate_source("moments", "f")
    assert kname == "nr_moments_accumulate_float32"
    assert f'extern "C" __global__ void {kname}(const nr_cin *x, nr_cout *o0, nr_cout *o1, ' \
           "nr_cout *o2, long long n, long long cols)" in code
    assert "a = nr_tr::step(a, nr_load(x, i))" in code and "typedef double nr_cout;" in code
    m = src.merge_parts("twosum", "f")
    assert m["in_params"] == "float32 a0, float32 a1, float32 b0, float32 b1"
    assert "const nr_acc r = nr_tr::combine(A, B);" in m["operation"]
    assert "nr::TwoSum<float, float>" in m["preamble"]


def test_generated_segments_source():
    code, kname = src.segments_source("moments", "f")
    assert kname == "nr_moments_segments_float32"
    assert (f'extern "C" __global__ void {kname}(const nr_cin *x, const bool *w, '
            "const long long *perm, const long long *starts, const long long *stops, "
            "nr_cout *o0, nr_cout *o1, nr_cout *o2, const nr_cout *s0, const nr_cout *s1, "
            "const nr_cout *s2, int mode, nr_cout i0, nr_cout i1, nr_cout i2, "
            "unsigned int flags, long long outer, long long n, long long inner, "
            "long long nseg)") in code
    # the CPU segment loop's start: step from the seed, else lift the first
    assert "a = (any || have) ? nr_tr::step(a, v) : nr_tr::lift(v);" in code
    assert "seed.v[2] = nr_back(s2[t]);" in code and "seed.v[0] = nr_back(i0);" in code
    assert "typedef double nr_cout;" in code and "nr::Moments<float, double, false>" in code
    assert src.SEG_WHERE | src.SEG_PERM | src.SEG_EMPTY_UNSEEN == 7
    # RawKernels bring CuPy's headers for its element classes (CuPy adds them
    # only to its Elementwise/ReductionKernels), guarded for stand-in harnesses
    assert "#include" not in src.raw_prologue("d", "f")
    h, _ = src.segments_source("minimummaximum", "e")
    assert h.startswith("#ifndef NR_STANDALONE_TYPES\n#include <cupy/float16.cuh>\n#endif\n")
    c, _ = src.accumulate_source("minimummaximum", "D")
    assert c.startswith("#ifndef NR_STANDALONE_TYPES\n#include <cupy/complex.cuh>\n#endif\n")
    for name in src.TRAITS:
        for ch in src.loop_types(name):
            assert src.segments_source(name, ch)[1].isidentifier()


def _gpu_check_module():
    import importlib.util
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "benchmarks",
                        "gpu_check.py")
    spec = importlib.util.spec_from_file_location("gpu_check", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_gpu_check_dry_run_writes_every_result(tmp_path):
    # the prepared GPU run, dry (the CPU path on both sides, NumPy timings):
    # the case list builds and runs, the files are written, the budget is kept
    import json
    script = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "benchmarks",
                          "gpu_check.py")
    r = subprocess.run([sys.executable, "-P", script, str(tmp_path), "--dry-run", "--quick",
                        "--budget", "4"], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
    lines = [json.loads(line) for line in open(tmp_path / "gpu_check.jsonl")]
    kinds = {rec["kind"] for rec in lines}
    assert {"environment", "case", "benchmark", "first_call", "summary"} <= kinds
    summary = json.load(open(tmp_path / "gpu_check.json"))
    d = summary["differential"]
    assert d["failed"] == 0 and d["passed"] > 100
    assert d["passed"] + d["not_run"] == d["cases"]
    assert sum(rec["kind"] == "case" for rec in lines) == d["passed"]
    names = {rec["name"] for rec in lines if rec["kind"] == "case"}
    # the interleaving gives every method coverage early
    for n in ("minimummaximum", "moments.accumulate", "twosum.merge", "minimummaximum.reduceat",
              "moments.segmented_reduce", "maxsumexp.reduce_by_group", "moments.at",
              "group_meanvar", "meanvar", "nanargminmax"):
        assert n in names, n
    assert summary["environment"]["dry_run"] is True
    assert (tmp_path / "gpu_check.txt").read_text().startswith("environment: ")


def test_gpu_check_never_stops_at_a_failure(tmp_path, monkeypatch):
    gc = _gpu_check_module()

    def cases(cp, nr, nrc, quick):
        x = np.arange(5.0)
        ok = (1, "minmax", "fine", lambda: nr.minmax(x), lambda: nr.minmax(x), True, 0)
        wrong = (1, "minmax", "wrong", lambda: nr.minmax(x), lambda: (x.min(), x.max() + 1),
                 True, 0)
        raises = (1, "minmax", "raises", lambda: nr.minmax(x),
                  lambda: nr.minmax(x, axis=5), True, 0)
        return [ok, wrong, raises, ok, (2, "meanvar", "tier 2", lambda: nr.meanvar(x),
                                        lambda: nr.meanvar(x), False, 1e-12)]
    monkeypatch.setattr(gc, "build_cases", cases)
    assert gc.main(str(tmp_path), quick=True, budget=30, dry=True) == 1
    import json
    d = json.load(open(tmp_path / "gpu_check.json"))["differential"]
    assert (d["passed"], d["failed"], d["not_run"]) == (3, 2, 0)
    assert any("output 1" in f for f in d["failures"])
    assert any("CPU raised None, GPU AxisError" in f for f in d["failures"])


@pytest.mark.skipif(_has_gpu(), reason="a CUDA device is present (this checks its absence)")
def test_gpu_check_without_a_gpu_records_why(tmp_path):
    import json
    script = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "benchmarks",
                          "gpu_check.py")
    r = subprocess.run([sys.executable, "-P", script, str(tmp_path)], capture_output=True,
                       text=True, timeout=300)
    assert r.returncode == 2, r.stdout + r.stderr
    summary = json.load(open(tmp_path / "gpu_check.json"))
    assert ("numreduce.cupy needs" in summary["fatal"]
            or "No module named 'cupy'" in summary["fatal"]), summary["fatal"]
    kinds = [json.loads(line)["kind"] for line in open(tmp_path / "gpu_check.jsonl")]
    assert kinds[-1] == "fatal"
    if "numreduce.cupy needs" in summary["fatal"]:  # CuPy imports: its facts are recorded
        assert kinds[0] == "environment" and summary["environment"]["cupy"]


def test_generated_source_kernels_of_several_arrays():
    # the K-source reductions: K inputs, the map lifts one element's K values
    # into the state (nr::sources<T, K>), the loops the CPU ufunc registers
    assert set(src.SOURCE_TRAITS) == {u.__name__ for u in nr._core._MULTI_SOURCE}
    assert not set(src.SOURCE_TRAITS) & set(src.TRAITS)
    assert src.loop_types("comoments") == {"f": "d", "d": "d"}
    assert src.loop_types("twoprod") == {"f": "f", "d": "d"}
    p = src.reduction_parts("comoments", "f", where=True)
    assert p["in_params"] == ("float32 x0, float32 x1, bool w, int32 nr_mode, "
                              + ", ".join(f"float64 i{k}" for k in range(8)))
    assert p["map_expr"] == "nr_map_where(x0, x1, w)"
    assert p["out_params"] == ", ".join(f"float64 o{k}" for k in range(8))
    assert "typedef nr::CoMoments<float, double> nr_tr;" in p["preamble"]
    assert ("nr_tr::in_t nr_in(const nr_cin &x0, const nr_cin &x1)" in p["preamble"]
            and "s.v[1] = x1;" in p["preamble"])
    assert src.reduction_parts("wmoments", "d")["map_expr"] == "nr_map(x0, x1)"
    e = src.elementwise_parts("maxsumexpb", "d")
    assert e["in_params"] == "float64 x1, float64 x2"
    assert e["operation"].startswith("nr_acc a = nr_tr::lift(nr_in(x1, x2));")
    m = src.merge_parts("nanwmoments", "d")
    assert m["in_params"] == ", ".join([f"float64 a{k}" for k in range(4)]
                                       + [f"float64 b{k}" for k in range(4)])
    # one-source kernels keep their one input
    assert src.reduction_parts("moments", "d")["map_expr"] == "nr_map(x)"
    # the scan and segments RawKernels read element i as its K consecutive
    # values x[i * K .. i * K + K - 1] (the sources packed side by side)
    for name, (_, _, nout, k) in src.SOURCE_TRAITS.items():
        for make in (src.accumulate_source, src.segments_source):
            code, kname = make(name, "d")
            assert kname.isidentifier() and f"{name}_" in kname
            assert f"const nr_cin *p = x + i * {k};" in code
            assert f"return nr_in({', '.join(f'p[{j}]' for j in range(k))});" in code
            assert f"nr_cout *o{nout - 1}" in code and f"nr_cout *o{nout}" not in code
            assert "nr_in(x[" not in code  # every element read goes through nr_load
    code, _ = src.segments_source("moments", "d")
    assert "{ return nr_in(x[i]); }" in code and "nr_load(x, i)" in code
