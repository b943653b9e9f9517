"""Digests of the SIMD kernels' results at every level the CPU has.

    python tests/simd_digest.py OUT.json              # write the digests
    python tests/simd_digest.py OUT.json --compare REF.json

For each SIMD level this CPU has (NUMREDUCE_SIMD caps it; a subprocess per
level, since the level is chosen once per process), the results of the
reductions whose hot loops are simd.hpp's kernels -- minmax, argminmax and
their NaN variants, fsum (TwoSum lanes, the fused square map), meanvar and
nanmeanvar, logsumexp with and without b=, weighted moments, covariance,
sumprod, the summary (describe) -- over a fixed battery of dtypes, sizes
and layouts, each hashed by its bytes (SHA-256).  Two builds of the same
sources (GCC and Clang, say) must give the same digests on the same CPU:
.ci/run's Clang environment compares its digests with the GCC
environment's.  --compare exits 1 and
lists the differing entries when any digest differs (entries for a level
that only one side has are reported, not counted).
"""

import json
import os
import platform
import subprocess
import sys

# None: no cap (the best level the CPU has); the x86 caps below it.
LEVELS = (None,) + (("baseline", "avx2", "avx512")
                    if platform.machine().lower() in ("x86_64", "amd64", "i686") else ())

BATTERY = r'''
import hashlib, json, sys
import numpy as np
import numreduce as nr
from numreduce import _config

out = {"simd_kernels": _config.config()["simd_kernels"]}
rng = np.random.default_rng(20261206)

def put(key, res):
    h = hashlib.sha256()
    for r in (res if isinstance(res, tuple) else (res,)):
        a = np.ascontiguousarray(np.asarray(r))
        h.update(str(a.dtype).encode() + str(a.shape).encode() + a.tobytes())
    out[key] = h.hexdigest()

sizes = (1, 7, 64, 129, 1000, 4097, 100003)
for dt in ("float64", "float32", "float16", "int64", "uint64", "int32", "uint32",
           "int16", "uint8", "bool"):
    for n in sizes:
        x = rng.standard_normal(n) * 1e3 + 5.0
        x = (x > 5) if dt == "bool" else x.astype(dt)
        for name in ("minmax", "argminmax", "fsum", "meanvar", "logsumexp"):
            put(f"{name}/{dt}/{n}", getattr(nr, name)(x))
        put(f"fsum-sq/{dt}/{n}", nr.mapreduce(np.square, nr.fsum, x))
        put(f"summary/{dt}/{n}", nr.reduce(nr.summary, x))
        if dt.startswith("float"):
            y = x.copy()
            y[1:][rng.random(n - 1) < 0.2] = np.nan  # y[0] a number: no all-NaN slice
            for name in ("minmax", "nanminmax", "argminmax", "nanargminmax", "nanmeanvar",
                         "fsum", "logsumexp"):
                put(f"{name}-nan/{dt}/{n}", getattr(nr, name)(y))
            put(f"fminfmax-nan/{dt}/{n}", nr.reduce(nr.fminfmax, y))
            put(f"nansummary-nan/{dt}/{n}", nr.reduce(nr.nansummary, y))
    m = rng.standard_normal((301, 257)) * 10
    m = (m > 0) if dt == "bool" else m.astype(dt)
    for name in ("minmax", "argminmax", "fsum", "meanvar", "logsumexp"):
        for axis in (0, 1):
            put(f"{name}/{dt}/2d-axis{axis}", getattr(nr, name)(m, axis=axis))
            put(f"{name}/{dt}/F-axis{axis}", getattr(nr, name)(np.asfortranarray(m), axis=axis))
    for axis in (0, 1):
        put(f"summary/{dt}/2d-axis{axis}", nr.reduce(nr.summary, m, axis=axis))
    put(f"fsum/{dt}/strided", nr.fsum(m.ravel()[::3]))
    put(f"minmax/{dt}/3d-axis1", nr.minmax(m[:300].reshape(10, 30, 257), axis=1))
    put(f"fsum/{dt}/3d-axis1", nr.fsum(m[:300].reshape(10, 30, 257), axis=1))
for dt in ("float64", "float32"):
    for n in sizes:
        x = (rng.standard_normal(n) * 3).astype(dt)
        w = rng.random(n).astype(dt)
        b = (rng.standard_normal(n)).astype(dt)
        put(f"meanvar-w/{dt}/{n}", nr.meanvar(x, weights=w))
        put(f"logsumexp-b/{dt}/{n}", nr.logsumexp(x, b=b, return_sign=True))
        put(f"covariance/{dt}/{n}", nr.covariance(x, w) if n > 1 else nr.covariance(x, w, ddof=0))
        put(f"sumprod/{dt}/{n}", nr.sumprod(x, w))
json.dump(out, sys.stdout)
'''


def run(level):
    env = {k: v for k, v in os.environ.items() if k != "NUMREDUCE_SIMD"}
    if level is not None:
        env["NUMREDUCE_SIMD"] = level
    r = subprocess.run([sys.executable, "-P", "-c", BATTERY], env=env, capture_output=True,
                       text=True)
    if r.returncode:
        raise SystemExit(f"the battery failed at NUMREDUCE_SIMD={level}:\n{r.stderr}")
    return json.loads(r.stdout)


def digests():
    """{level name (show_config's simd_kernels): {entry: digest}}, every level once."""
    got = {}
    for level in LEVELS:  # a cap the CPU lacks runs a level already seen
        d = run(level)
        got.setdefault(d.pop("simd_kernels"), d)
    return got


def main(argv):
    out = argv[1]
    got = digests()
    with open(out, "w") as f:
        json.dump(got, f, indent=1, sort_keys=True)
    print(f"{sum(len(v) for v in got.values())} digests at {len(got)} level(s): "
          + ", ".join(got) + f" -> {out}")
    if "--compare" not in argv:
        return 0
    with open(argv[argv.index("--compare") + 1]) as f:
        ref = json.load(f)
    bad = 0
    for level, d in got.items():
        if level not in ref:
            print(f"level {level!r}: not in the reference (only {', '.join(ref)})")
            continue
        for key, h in d.items():
            if ref[level].get(key) != h:
                bad += 1
                print(f"DIFFERS at {level}: {key}")
        print(f"level {level}: {len(d)} digests compared")
    print("same bits" if not bad else f"{bad} digests differ")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
