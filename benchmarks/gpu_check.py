"""GPU check of the CuPy mirror: the differential suite (CPU path vs GPU path
on the same inputs) and the benchmarks of issue 13, in one run of a few
minutes, results written to OUTDIR/gpu_check.json and OUTDIR/gpu_check.txt.

    python benchmarks/gpu_check.py OUTDIR [--quick]

Differential: every numreduce ufunc's reduce over device dtypes, shapes
(empty ones too), axes, keepdims, out=, initial=, where=, NaN-laden data,
accumulate along each axis, merge of two partial states, plus the user
functions (minmax ... fsum) through numreduce's dispatch.
min/max/argminmax and the min/max ufuncs must agree exactly (NaN positions
included); moments, logsumexp and fsum within a float tolerance (with NaN
positions identical); the same exception type where the CPU raises.

Benchmarks (CUDA events, best of repeats after a warm-up; compile time of the
first call reported apart):
  minmax 1e8 float32 vs cp.min + cp.max; 4000^2 float32 axis 0 / 1;
  meanvar 1e8 float32 vs cp.mean + cp.var (and both errors against a
  float64 two-pass); logsumexp 1e8 float32 vs CuPy's two-pass;
  minmax vs cp.sum's bandwidth on the same array.
"""

from __future__ import annotations

import itertools
import json
import os
import sys
import time
import traceback
import warnings

import numpy as np


def main(outdir, quick=False):
    os.makedirs(outdir, exist_ok=True)
    report = {"started": time.strftime("%Y-%m-%d %H:%M:%S %Z"), "quick": quick}
    lines = []

    def log(msg):
        print(msg, flush=True)
        lines.append(msg)

    def flush():
        with open(os.path.join(outdir, "gpu_check.json"), "w") as f:
            json.dump(report, f, indent=1, default=str)
        with open(os.path.join(outdir, "gpu_check.txt"), "w") as f:
            f.write("\n".join(lines) + "\n")

    try:
        import cupy as cp
        import numreduce as nr
        import numreduce.cupy as nrc
        dev = cp.cuda.Device()
        props = cp.cuda.runtime.getDeviceProperties(dev.id)
        report["device"] = props["name"].decode() if isinstance(props["name"], bytes) \
            else props["name"]
        report["cupy"] = cp.__version__
        report["numpy"] = np.__version__
        log(f"device {report['device']}, CuPy {cp.__version__}, NumPy {np.__version__}")
    except Exception as e:
        report["fatal"] = f"{type(e).__name__}: {e}"
        log("FATAL " + report["fatal"])
        flush()
        return 2
    flush()
    t0 = time.perf_counter()
    report["differential"] = differential(cp, nr, nrc, log, quick)
    report["differential_seconds"] = time.perf_counter() - t0
    flush()
    try:
        report["benchmarks"] = benchmarks(cp, nr, nrc, log, quick)
    except Exception as e:
        report["benchmarks_error"] = traceback.format_exc()
        log("benchmarks failed: " + repr(e))
    report["finished"] = time.strftime("%Y-%m-%d %H:%M:%S %Z")
    flush()
    d = report["differential"]
    return 0 if d["failed"] == 0 else 1


# ---------------------------------------------------------------------------
# Differential suite
# ---------------------------------------------------------------------------

EXACT = {"minimummaximum", "fminfmax", "minmax", "nanminmax", "argminmax", "nanargminmax"}


def _data(rng, dtype, shape, nan):
    dt = np.dtype(dtype)
    if dt.kind == "b":
        return rng.random(shape) < 0.5
    if dt.kind in "iu":
        info = np.iinfo(dt)
        lo, hi = max(info.min, -1000), min(info.max, 1000)
        return rng.integers(lo, hi, size=shape, endpoint=True).astype(dt)
    if dt.kind == "c":
        x = (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dt)
    else:
        x = (rng.standard_normal(shape) * 10 + 3).astype(dt)
    if nan and x.size:
        flat = x.reshape(-1)
        flat[rng.integers(0, x.size, size=max(1, x.size // 50))] = np.nan
    return x


def _same(cpu, gpu, exact, rtol):
    cpu = np.asarray(cpu)
    gpu = np.asarray(gpu)
    if cpu.shape != gpu.shape:
        return f"shape {gpu.shape} != {cpu.shape}"
    if cpu.dtype != gpu.dtype:
        return f"dtype {gpu.dtype} != {cpu.dtype}"
    if cpu.dtype.kind in "fc" and not np.array_equal(np.isnan(cpu), np.isnan(gpu)):
        return "NaN positions differ"
    if exact or cpu.dtype.kind not in "fc":
        if not np.array_equal(cpu, gpu, equal_nan=cpu.dtype.kind in "fc"):
            bad = np.argwhere(~((cpu == gpu) | (np.isnan(cpu) & np.isnan(gpu)))
                              if cpu.dtype.kind in "fc" else cpu != gpu)
            return f"not equal at {bad[:3].tolist()}"
        return None
    with np.errstate(invalid="ignore"):
        ok = np.isclose(gpu, cpu, rtol=rtol, atol=0, equal_nan=True) | (cpu == gpu)
    if not ok.all():
        i = tuple(np.argwhere(~ok)[0])
        return f"{gpu[i]!r} vs {cpu[i]!r} at {i} (rtol {rtol})"
    return None


def _run(fn):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return fn(), None
    except Exception as e:
        return None, e


def differential(cp, nr, nrc, log, quick):
    rng = np.random.default_rng(13)
    cases = []
    dtypes = ["bool", "int8", "uint8", "int16", "int32", "int64", "uint64", "float16",
              "float32", "float64", "complex64"]
    shapes = [((0,), [None, 0]), ((1,), [None, 0]), ((1001,), [None, 0, -1]),
              ((37, 53), [None, 0, 1, (0, 1)]), ((4, 0, 5), [None, 0, 1, (0, 2)]),
              ((3, 4, 5), [None, 0, 2, (0, 2), ()])]
    if not quick:
        shapes.append(((257, 1031), [None, 0, 1]))
    ufuncs = ["minimummaximum", "fminfmax", "moments", "nanmoments", "maxsumexp", "twosum"]

    def add(name, label, cpu_fn, gpu_fn, exact, rtol=1e-12):
        cases.append((name, label, cpu_fn, gpu_fn, exact, rtol))

    for uname, dtype, (shape, axes), nan in itertools.product(ufuncs, dtypes, shapes,
                                                              (False, True)):
        dt = np.dtype(dtype)
        if nan and dt.kind not in "fc":
            continue
        from numreduce import _cupy_source as src
        if dt.char not in src.loop_types(uname):
            continue
        x = _data(rng, dt, shape, nan)
        u = getattr(nr, uname)
        rtol = 1e-12 if dt != np.float16 else 1e-3
        rtol = 1e-5 if uname == "twosum" and dt.kind == "f" and dt.itemsize <= 4 else rtol
        exact = uname in EXACT
        for axis, keepdims in itertools.product(axes, (False, True)):
            opts = dict(axis=axis, keepdims=keepdims)
            add(uname, f"{dtype}{shape} nan={nan} {opts}",
                lambda x=x, o=opts, u=u: nr.reduce(u, x, **o),
                lambda x=x, o=opts, u=u: nr.reduce(u, cp.asarray(x), **o), exact, rtol)
        if len(shape) == 2 and shape[0] > 1:
            w = rng.random(shape) < 0.7
            init = {"minimummaximum": (100, -100), "fminfmax": (100, -100)}.get(uname)
            kw = {} if init is None else {"initial": init}
            add(uname, f"{dtype}{shape} where axis=0 {kw}",
                lambda x=x, w=w, u=u, kw=kw: nr.reduce(u, x, axis=0, where=w, **kw),
                lambda x=x, w=w, u=u, kw=kw: nr.reduce(u, cp.asarray(x), axis=0,
                                                       where=cp.asarray(w), **kw), exact, rtol)
            if uname in ("minimummaximum", "twosum"):
                add(uname, f"{dtype}{shape} initial=5 axis=1",
                    lambda x=x, u=u: nr.reduce(u, x, axis=1, initial=5),
                    lambda x=x, u=u: nr.reduce(u, cp.asarray(x), axis=1, initial=5), exact, rtol)
            cpu_res = _run(lambda x=x, u=u: nr.reduce(u, x, axis=1))[0]
            if cpu_res is not None:
                def with_out(x=x, u=u, cpu_res=cpu_res, device=False):
                    xp = cp if device else np
                    outs = tuple(xp.empty(np.shape(r), np.asarray(r).dtype) for r in cpu_res)
                    res = nr.reduce(u, xp.asarray(x), axis=1, out=outs)
                    assert all(r is o for r, o in zip(res, outs))
                    return res
                add(uname, f"{dtype}{shape} out= axis=1", with_out,
                    lambda f=with_out: f(device=True), exact, rtol)
        # accumulate along each axis; merge of two partial states
        if len(shape) >= 1 and shape[0] > 0:
            for ax in range(len(shape)):
                add(uname + ".accumulate", f"{dtype}{shape} nan={nan} axis={ax}",
                    lambda x=x, u=u, ax=ax: nr.accumulate(u, x, axis=ax),
                    lambda x=x, u=u, ax=ax: nr.accumulate(u, cp.asarray(x), axis=ax), exact,
                    max(rtol, 1e-10))
        if len(shape) == 2 and shape[0] > 1:
            half = shape[0] // 2

            def merged(x=x, u=u, half=half, device=False):
                xp = cp if device else np
                mod = nrc if device else nr
                sa = nr.reduce(u, xp.asarray(x[:half]), axis=0)
                sb = nr.reduce(u, xp.asarray(x[half:]), axis=0)
                return mod.merge(u, sa, sb)
            add(uname + ".merge", f"{dtype}{shape} nan={nan}", merged,
                lambda f=merged: f(device=True), exact, max(rtol, 1e-10))
        # the elementwise ufunc, broadcasting
        if len(shape) == 2 and not nan:
            y = _data(rng, dt, shape[1:], False)
            add(uname + "()", f"{dtype}{shape} x {shape[1:]}",
                lambda x=x, y=y, u=u: u(x, y),
                lambda x=x, y=y, un=uname: getattr(nrc, un)(cp.asarray(x), cp.asarray(y)),
                exact,
                rtol)

    funcs = [("minmax", {}), ("nanminmax", {}), ("argminmax", {}), ("nanargminmax", {}),
             ("meanvar", {}), ("meanstd", {"ddof": 1}), ("nanmeanvar", {}), ("logsumexp", {}),
             ("fsum", {})]
    for (fname, kw), dtype, (shape, axes), nan in itertools.product(
            funcs, ["int32", "int64", "float16", "float32", "float64"], shapes, (False, True)):
        dt = np.dtype(dtype)
        if nan and dt.kind != "f":
            continue
        x = _data(rng, dt, shape, nan)
        f = getattr(nr, fname)
        for axis in axes:
            if fname.endswith("argminmax") and isinstance(axis, tuple):
                continue
            rtol = 1e-3 if dt == np.float16 else (1e-5 if dt == np.float32 else 1e-10)
            add(fname, f"{dtype}{shape} nan={nan} axis={axis} {kw}",
                lambda x=x, f=f, a=axis, kw=kw: f(x, axis=a, **kw),
                lambda x=x, f=f, a=axis, kw=kw: f(cp.asarray(x), axis=a, **kw),
                fname in EXACT, rtol)

    passed = failed = 0
    failures = []
    for name, label, cpu_fn, gpu_fn, exact, rtol in cases:
        cpu, ce = _run(cpu_fn)
        gpu, ge = _run(gpu_fn)
        if ce is not None or ge is not None:
            if ce is not None and ge is not None and type(ce) is type(ge):
                passed += 1
                continue
            why = f"CPU raised {ce!r}, GPU {ge!r}"
        else:
            if not isinstance(cpu, tuple):
                cpu, gpu = (cpu,), (gpu,)
            gpu = tuple(g.get() if hasattr(g, "get") else g for g in gpu)
            why = None
            if len(cpu) != len(gpu):
                why = f"{len(gpu)} results, CPU {len(cpu)}"
            for k, (c, g) in enumerate(zip(cpu, gpu)):
                why = why or ((lambda r: r and f"output {k}: {r}")(_same(c, g, exact, rtol)))
        if why is None:
            passed += 1
        else:
            failed += 1
            failures.append(f"{name} {label}: {why}")
    log(f"differential: {passed} passed, {failed} failed of {len(cases)}")
    for f in failures[:200]:
        log("  FAIL " + f)
    return {"cases": len(cases), "passed": passed, "failed": failed, "failures": failures}


# ---------------------------------------------------------------------------
# Benchmarks
# ---------------------------------------------------------------------------

def _time(cp, fn, repeat):
    fn()
    cp.cuda.Device().synchronize()
    best = float("inf")
    for _ in range(repeat):
        start, stop = cp.cuda.Event(), cp.cuda.Event()
        start.record()
        fn()
        stop.record()
        stop.synchronize()
        best = min(best, cp.cuda.get_elapsed_time(start, stop) / 1e3)
    return best


def benchmarks(cp, nr, nrc, log, quick):
    out = {}
    rep = 5 if quick else 20
    n = 10**7 if quick else 10**8
    x = cp.random.standard_normal(n, dtype=cp.float32)
    m = cp.random.standard_normal((4000, 4000), dtype=cp.float32)

    def first_call(label, fn):
        t = time.perf_counter()
        fn()
        cp.cuda.Device().synchronize()
        out[f"first call {label} (s)"] = time.perf_counter() - t

    first_call("minmax float32 (compile or cache load)", lambda: nr.minmax(x))
    first_call("meanvar float32", lambda: nr.meanvar(x))
    first_call("logsumexp float32", lambda: nr.logsumexp(x))

    rows = []

    def row(label, ours, theirs, target):
        t_ours, t_theirs = _time(cp, ours, rep), _time(cp, theirs, rep)
        ratio = t_theirs / t_ours
        rows.append((label, t_ours, t_theirs, ratio, target))
        out[label] = {"numreduce_s": t_ours, "cupy_s": t_theirs, "speedup": ratio,
                      "target": target}
        log(f"{label:48s} numreduce {t_ours * 1e3:8.3f} ms  CuPy {t_theirs * 1e3:8.3f} ms  "
            f"{ratio:5.2f}x (target >= {target}x)")

    row(f"minmax {n:.0e} float32 vs cp.min+cp.max", lambda: nr.minmax(x),
        lambda: (cp.min(x), cp.max(x)), 1.8)
    row("minmax 4000^2 float32 axis=0", lambda: nr.minmax(m, axis=0),
        lambda: (cp.min(m, axis=0), cp.max(m, axis=0)), 1.8)
    row("minmax 4000^2 float32 axis=1", lambda: nr.minmax(m, axis=1),
        lambda: (cp.min(m, axis=1), cp.max(m, axis=1)), 1.8)
    row(f"meanvar {n:.0e} float32 vs cp.mean+cp.var", lambda: nr.meanvar(x),
        lambda: (cp.mean(x), cp.var(x)), 2.5)

    def cupy_lse():
        mx = x.max()
        return cp.log(cp.exp(x - mx).sum()) + mx
    row(f"logsumexp {n:.0e} float32 vs CuPy two-pass", lambda: nr.logsumexp(x), cupy_lse, 1.8)

    t_sum = _time(cp, lambda: cp.sum(x), rep)
    t_mm = _time(cp, lambda: nr.minmax(x), rep)
    bw_sum, bw_mm = x.nbytes / t_sum / 1e9, x.nbytes / t_mm / 1e9
    out["bandwidth"] = {"cp.sum GB/s": bw_sum, "minmax GB/s": bw_mm,
                        "fraction": bw_mm / bw_sum, "target": 0.8}
    log(f"bandwidth: minmax {bw_mm:.0f} GB/s, cp.sum {bw_sum:.0f} GB/s: "
        f"{100 * bw_mm / bw_sum:.0f} % (target >= 80 %)")

    # accuracy of meanvar vs CuPy's against a float64 two-pass on the device
    y = (x * 0.01 + 1000).astype(cp.float32)
    y64 = y.astype(cp.float64)
    mu = y64.mean()
    ref_var = float(((y64 - mu) ** 2).mean())
    ref_mean = float(mu)
    ours = [float(v) for v in nr.meanvar(y)]
    theirs = [float(cp.mean(y)), float(cp.var(y))]
    acc = {"ref": (ref_mean, ref_var),
           "numreduce rel err (mean, var)": (abs(ours[0] - ref_mean) / abs(ref_mean),
                                              abs(ours[1] - ref_var) / ref_var),
           "cupy rel err (mean, var)": (abs(theirs[0] - ref_mean) / abs(ref_mean),
                                        abs(theirs[1] - ref_var) / ref_var)}
    out["meanvar accuracy (x*0.01+1000, float32)"] = acc
    log(f"meanvar accuracy: numreduce {acc['numreduce rel err (mean, var)']}, "
        f"CuPy {acc['cupy rel err (mean, var)']}")
    for k, v in out.items():
        if k.startswith("first call"):
            log(f"{k}: {v:.2f}")
    return out


if __name__ == "__main__":
    if len(sys.argv) < 2:
        print(__doc__)
        sys.exit(2)
    sys.exit(main(sys.argv[1], quick="--quick" in sys.argv[2:]))
