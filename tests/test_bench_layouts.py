"""``bench --layouts``: the layouts are the ones they are named after, every
reference computes what numreduce computes on them (so each ratio compares
like with like), and a tiny sweep gives every function, layout and dtype a
positive ratio, printed and stored.  Measures nothing: timings are never
asserted."""

import json
import os
import subprocess
import sys

import numpy as np
import pytest

import numreduce as nr
from numreduce import __main__ as cli
from numreduce import _bench_layouts as bl

try:
    from scipy.special import logsumexp as sp_lse
except ImportError:  # pragma: no cover - scipy is optional
    sp_lse = None

FAST = {"min_total": 1e-4, "repeats": 1}


def _as_tuple(r):
    return r if isinstance(r, tuple) else (r,)


def _cells(n, dtype="float64"):
    return list(bl.layouts(n, dtype, np.random.default_rng(0)))


def test_full_size_shapes_and_memory_orders():
    assert bl._shapes(10**7) == {"2-D": (4000, 2500), "3-D": (200, 200, 250),
                                 "wide": (100, 100000), "tall": (100000, 100)}
    got = {layout: (a, axis) for layout, _, a, axis in _cells(3000, "float32")}
    assert list(got) == bl.LAYOUTS
    assert all(a.dtype == np.float32 for a, _ in got.values())
    assert got["1-D"][0].ndim == 1 and got["1-D"][1] is None
    for k in ("C axis 0", "C axis 1"):
        assert got[k][0].flags.c_contiguous and not got[k][0].flags.f_contiguous
    for k in ("F axis 0", "F axis 1"):
        assert got[k][0].flags.f_contiguous and not got[k][0].flags.c_contiguous
    assert [got[k][1] for k in ("C axis 0", "C axis 1", "F axis 0", "F axis 1")] == [0, 1, 0, 1]
    assert got["3-D axis 1"][0].ndim == 3 and got["3-D axis 1"][1] == 1
    assert got["3-D axes (0, 2)"][1] == (0, 2)
    s = got["strided"][0]
    assert s.strides == (2 * s.itemsize,) and not s.flags.c_contiguous
    w, t = got["wide axis 0"][0], got["tall axis 1"][0]
    assert w.shape[0] == 100 and w.shape[1] > 1 and got["wide axis 0"][1] == 0
    assert t.shape[1] == 100 and t.shape[0] > 1 and got["tall axis 1"][1] == 1


@pytest.mark.parametrize("order", ["C", "F"])
def test_nan_copy_keeps_the_order_and_puts_a_nan_every_97(order):
    a = np.asarray(np.arange(1.0, 1001.0).reshape(25, 40), order=order)
    b = bl._with_nans(a)
    assert b.flags[f"{order}_CONTIGUOUS"] and not np.isnan(a).any()
    flat = b.ravel(order=order)
    assert np.isnan(flat[::97]).all() and np.isnan(b).sum() == len(range(0, 1000, 97))
    np.testing.assert_array_equal(b[~np.isnan(b)], a[~np.isnan(b)])


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("name", bl.NAMES)
def test_references_compute_what_numreduce_computes(name, dtype):
    rtol = 1e-9 if dtype == "float64" else 2e-4
    for layout, _, a, axis in _cells(2400, dtype):
        if name in bl._ONE_AXIS and isinstance(axis, tuple):
            continue
        if name.startswith("nan"):
            a = bl._with_nans(a)
        ours, ref = bl._calls(name, a, axis, sp_lse)
        if ref is None:
            pytest.skip("scipy is not installed (the logsumexp reference)")
        got, want = _as_tuple(ours()), _as_tuple(ref())
        assert len(got) == len(want), (name, layout)
        for g, w in zip(got, want):
            assert np.shape(g) == np.shape(w), (name, layout)
            np.testing.assert_allclose(g, w, rtol=rtol, atol=rtol / 10,
                                       err_msg=f"{name} {layout}")


def test_tiny_sweep_every_function_layout_and_dtype():
    threads = nr.get_num_threads()
    seen = []
    rows = bl.layout_rows(n=600, timing=FAST, on_row=seen.append)
    assert seen == rows and nr.get_num_threads() == threads
    names = [n for n in bl.NAMES if n != "logsumexp" or sp_lse is not None]
    want = [(layout, name) for layout in bl.LAYOUTS for name in names
            if not (name in bl._ONE_AXIS and layout.startswith("3-D axes"))]
    assert [(r[0], r[2]) for r in rows] == want
    for layout, shape, name, ref, cells, target in rows:
        assert ref == bl.REFERENCE[name] and target == bl.TARGETS[name] > 0
        assert set(cells) == {"float64", "float32"}
        for t_nr, t_ref, ratio in cells.values():
            assert t_nr > 0 and t_ref > 0 and np.isfinite(ratio) and ratio > 0
            assert ratio == pytest.approx(t_ref / t_nr)
        line = bl.layout_line((layout, shape, name, ref, cells, target))
        assert line.startswith(layout) and name in line and line.count("x ") >= 2
        assert line.endswith(f">= {target:.2f}x")
    summary = bl.layout_summary(rows)
    met = sum(c[2] >= r[5] for r in rows for c in r[4].values())
    assert summary[0] == f"{met} of {2 * len(rows)} cells meet their targets"
    assert len(summary) == 1 + 2 * len(rows) - met
    assert all(line.startswith("  MISS ") for line in summary[1:])


def test_layout_line_marks_each_dtype():
    cells = {"float64": (1e-3, 2e-3, 2.0), "float32": (1e-3, 1e-3, 1.0)}
    line = bl.layout_line(("C axis 1", "(4000, 2500)", "meanvar", "np.mean+np.var", cells, 1.5))
    assert "2.00x ok" in line and "1.00x MISS" in line
    assert bl.layout_summary([("C axis 1", "(4000, 2500)", "meanvar", "np.mean+np.var",
                               cells, 1.5)])[0] == "1 of 2 cells meet their targets"


def test_cli_prints_the_table_and_stores_the_run(monkeypatch, capsys, tmp_path):
    """`bench --layouts --save` in this process, the sweep made tiny."""
    full = bl.layout_rows
    monkeypatch.setattr(bl, "layout_rows", lambda quick, on_row: full(
        quick=quick, n=600, names=["minmax", "fsum"], timing=FAST, on_row=on_row))
    path = tmp_path / "layouts.json"
    assert cli.main(["bench", "--layouts", "--quick", "--save", str(path), "--note", "x"]) == 0
    out = capsys.readouterr().out.splitlines()
    head = out.index(bl.LAYOUT_HEAD)
    table = out[head + 2:head + 2 + 2 * len(bl.LAYOUTS)]
    assert [line.split()[0] for line in table[::2]] == [x.split()[0] for x in bl.LAYOUTS]
    assert all(" minmax " in line for line in table[::2])
    assert all(" fsum " in line for line in table[1::2])
    assert any(line.endswith(f"of {4 * len(bl.LAYOUTS)} cells meet their targets")
               for line in out)
    doc = json.loads(path.read_text(encoding="utf-8"))
    assert doc["command"] == "python -m numreduce bench --layouts --quick"
    assert doc["note"] == "x" and doc["config"]["threads"] == 1
    assert len(doc["rows"]) == 2 * len(bl.LAYOUTS)
    r = doc["rows"][0]
    assert (r["layout"], r["function"], r["reference"], r["target"]) == (
        "1-D", "minmax", "np.min+np.max", bl.TARGETS["minmax"])
    assert set(r["cells"]) == {"float64", "float32"}
    assert r["cells"]["float32"]["ratio"] > 0


def test_cli_flags():
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    cmd = [sys.executable, "-P", "-m", "numreduce", "bench"]
    r = subprocess.run(cmd + ["--help"], capture_output=True, text=True, timeout=60, env=env)
    assert r.returncode == 0 and "--layouts" in r.stdout
    for extra in (["--peers"], ["--plot", "x.png"]):
        r = subprocess.run(cmd + ["--layouts"] + extra, capture_output=True, text=True,
                           timeout=60, env=env)
        assert r.returncode == 2 and r.stdout == ""
        assert "error:" in r.stderr and "--layouts" in r.stderr
