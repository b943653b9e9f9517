"""``python -m numreduce``: help, argument errors and streaming output (subprocess)."""

import os
import subprocess
import sys

import numpy as np
import pytest

CMD = [sys.executable, "-P", "-m", "numreduce"]
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}


def run(*args, timeout=60):
    return subprocess.run(CMD + list(args), capture_output=True, text=True, timeout=timeout,
                          env=ENV)


@pytest.mark.parametrize("args", [["--help"], ["-h"], ["--quick", "--help"]])
def test_help_prints_usage_without_running(args):
    r = run(*args)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("usage: python -m numreduce")
    assert "bench" in r.stdout and "--quick" in r.stdout
    # The job itself (configuration, demo, tables) did not run.
    assert "numreduce configuration" not in r.stdout
    assert "native_reduce" not in r.stdout
    assert r.stderr == ""


@pytest.mark.parametrize("args", [["bench", "--help"], ["bench", "-h"]])
def test_bench_help(args):
    r = run(*args)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("usage: python -m numreduce bench")
    assert "--plot FILE" in r.stdout and "--quick" in r.stdout
    assert "performance targets (same-run" not in r.stdout


@pytest.mark.parametrize("args, word", [
    (["--bogus"], "--bogus"),
    (["bench", "--bogus"], "--bogus"),
    (["benchmark"], "benchmark"),
    (["bench", "--plot"], "--plot"),
    (["bench", "extra"], "extra"),
])
def test_unknown_arguments_exit_2(args, word):
    r = run(*args)
    assert r.returncode == 2
    assert r.stdout == ""
    assert "usage: python -m numreduce" in r.stderr
    assert "error:" in r.stderr and word in r.stderr


def test_bench_quick_streams_rows():
    """Rows arrive while the benchmark is still running (flushed into a pipe),
    in the table's format; the whole quick run takes about 10 s here."""
    proc = subprocess.Popen(CMD + ["bench", "--quick"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=ENV)
    try:
        lines = []
        for line in proc.stdout:
            lines.append(line)
            if line.startswith("minmax float32 1e+05 vs min+max"):
                break
        else:
            pytest.fail("no table row in the output:\n" + "".join(lines))
        # The first row came through the pipe before the run ended.
        assert proc.poll() is None
        rest, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    out = "".join(lines) + rest
    assert proc.returncode == 0, err
    header = [ln for ln in out.splitlines() if ln.startswith("case ")]
    assert len(header) == 1 and "status" in header[0]
    rows = [ln for ln in out.splitlines() if ln.rstrip().endswith((" ok", " MISS"))]
    assert len(rows) >= 20
    assert any(r.startswith("fsum f64 1e+06 vs np.sum") for r in rows)
    # each measured ratio says its direction, as its target does
    for r in rows:
        assert ("x the time  <= " in r) or ("x faster  >= " in r) or ("x faster  faster" in r), r


def test_bench_save_round_trip(tmp_path):
    """What `bench --save` stores (the docs site plots it) loads back as the
    rows target_rows gave, with the run's configuration and note."""
    from numreduce import _bench

    rows = [_bench._ratio_row("minmax f64 1e7 vs min+max", 1e-3, 2.5e-3, 1.9, "faster"),
            _bench._ratio_row("fsum f64 1e7 vs np.sum", 3e-3, 1e-3, 2.0, "at_most")]
    path = tmp_path / "run.json"
    _bench.save_rows(rows, str(path), quick=True, note="loaded machine")
    got, doc = _bench.load_rows(str(path))
    assert got == rows
    assert [r[5] for r in got] == ["ok", "MISS"]
    assert doc["command"] == "python -m numreduce bench --quick"
    assert doc["note"] == "loaded machine"
    assert doc["config"]["numpy"] == np.__version__


def test_bench_save_needs_a_file():
    r = run("bench", "--save")
    assert r.returncode == 2 and "--save" in r.stderr


def _headline_speedup(lines, call, data):
    row = next(ln for ln in lines if ln.startswith(call) and data in ln)
    return row.split()[-1]


def test_main_job_says_what_it_is_then_the_headline():
    """`python -m numreduce --quick`: its first screen says what the package
    does and shows the headline (minmax and meanvar against the NumPy calls
    they replace, measured in this run: the same speedups as the tables
    below); the note on the reduce path comes after the demo; the tables;
    the full configuration last, with the thread setting the user had (the
    benchmark's one thread restored); every ratio column is a speedup."""
    import itertools
    import re

    import numreduce as nr

    env = {k: v for k, v in ENV.items() if k != "NUMREDUCE_NUM_THREADS"}
    r = subprocess.run(CMD + ["--quick"], capture_output=True, text=True, timeout=300, env=env)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    # What this is, first.
    assert lines[0] == f"numreduce {nr.__version__}: several statistics from one pass over the data."
    about = " ".join(lines[:lines.index("")])
    for name in ("nr.minmax(a)", "np.min(a)", "np.max(a)", "nr.meanvar(a)", "np.mean(a)",
                 "np.var(a)", "logsumexp", "fsum"):
        assert name in about, name
    # The headline within the first screen, before the demo and the path note.
    demo = next(i for i, ln in enumerate(lines) if ln.startswith(">>> a = "))
    head = next(i for i, ln in enumerate(lines) if ln.startswith("numreduce call "))
    assert head < demo and head < 24
    headline = list(itertools.takewhile(lambda ln: ln.startswith("nr."), lines[head + 2:]))
    assert [ln.split()[0] for ln in headline] == (["nr.minmax(a)"] * 2 + ["nr.meanvar(a)"]
                                                  + ["nr.meanvar(m,"] * 2)
    for ln in headline:
        assert re.fullmatch(r".* \d+\.\d\dx", ln), ln
    assert not any("NumPy 2.6" in ln or "native" in ln for ln in lines[:demo])
    # The threads line, plainly, and no thread count anywhere else before the tables.
    threads = re.search(r"Timed on one thread, as NumPy runs\.  numreduce uses (\d+) threads? "
                        r"by default on large\narrays; set NUMREDUCE_NUM_THREADS to change it\.",
                        r.stdout)
    assert threads, r.stdout[:2000]
    assert "times that" not in r.stdout
    # The path note after the demo, short.
    note = [i for i, ln in enumerate(lines) if "arrives with NumPy 2.6" in ln]
    assert bool(note) == (not nr.HAVE_NATIVE_REDUCE)
    assert all(i > demo for i in note)
    # The headline's numbers are this run's: the tables below repeat them.
    mm = next(ln for ln in lines if ln.split()[:2] == ["float64", "1e+05"])
    assert mm.split()[-2] == _headline_speedup(headline, "nr.minmax(a)", "n=1e5")
    mv = next(ln for ln in lines if ln.startswith("meanvar 1-D f64 1e+06 "))
    assert mv.split()[-2] == _headline_speedup(headline, "nr.meanvar(a)", "n=1e6")
    # The tables, then the configuration.
    config = lines.index("numreduce configuration (numreduce.show_config())")
    accuracy = next(i for i, ln in enumerate(lines) if ln.startswith("Accuracy:"))
    assert accuracy < config
    assert not any("native_reason" in ln for ln in lines[:config])
    facts = dict(ln.strip().split(": ", 1) for ln in lines[config + 1:])
    assert "native_reason" in facts
    # The benchmark timed at one thread; the configuration shows the default again.
    assert facts["threads"] == threads[1]
    assert facts["threads_source"].startswith("default"), facts["threads_source"]
    assert "set by the user" not in r.stdout
    head = next(ln for ln in lines if ln.lstrip().startswith("dtype"))
    assert "speedup vs min+max" in head and "speedup vs max alone" in head
    assert "time /" not in r.stdout
    lse = next(ln for ln in lines if ln.startswith("logsumexp, 30*N(0,1)"))
    assert "n/a" not in lse


def test_main_job_keeps_the_users_thread_count():
    """With NUMREDUCE_NUM_THREADS the tables run at the user's count, the
    output says so, and the configuration shows the user's choice."""
    env = dict(ENV, NUMREDUCE_NUM_THREADS="3")
    r = subprocess.run(CMD + ["--quick"], capture_output=True, text=True, timeout=300, env=env)
    assert r.returncode == 0, r.stderr
    assert ("Timed with numreduce on 3 threads, as NUMREDUCE_NUM_THREADS asks;\n"
            "NumPy's reductions run on one.") in r.stdout
    assert "Timed on one thread" not in r.stdout
    lines = r.stdout.splitlines()
    facts = dict(ln.strip().split(": ", 1)
                 for ln in lines[lines.index("numreduce configuration (numreduce.show_config())")
                                 + 1:])
    assert facts["threads"] == "3"
    assert facts["threads_source"].startswith("set by the user")


@pytest.mark.parametrize("chosen", [False, True])
def test_one_thread_tables_restores_the_setting(chosen, capsys):
    """The benchmark's one thread is undone on the way out: a default stays
    the default (show_config says so, and Dask tasks keep one thread), a
    user's count stays the user's (and the tables run at it)."""
    import numreduce as nr
    from numreduce import __main__ as job
    from numreduce import _config

    if chosen:
        nr.set_num_threads(3)
    else:
        nr._core._set_default_threads(3)
    with job.one_thread_tables():
        assert nr.get_num_threads() == (3 if chosen else 1)
    assert nr.get_num_threads() == 3
    assert _config.threads_chosen() == chosen
    assert _config.config()["threads_source"].startswith("set by the user" if chosen
                                                         else "default")
    out = capsys.readouterr().out
    assert ("NUMREDUCE_NUM_THREADS asks" in out) == chosen
    assert ("Timed on one thread, as NumPy runs.  numreduce uses 3 threads" in out) != chosen


def test_main_job_in_process(monkeypatch, capsys):
    """The main job (in this process, with made-up times so that it is quick):
    the package in words first, then the headline, whose speedups the
    tables repeat (the same measurement), and the configuration with the
    default thread setting restored."""
    import itertools

    import numreduce as nr
    from numreduce import __main__ as job
    from numreduce import _bench

    count = itertools.count(1)
    monkeypatch.setattr(_bench, "best_times",
                        lambda *fns, **kw: [1.0] + [1.0 + next(count) / 64] * (len(fns) - 1))
    nr._core._set_default_threads(2)
    assert job.main(["--quick"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith(f"numreduce {nr.__version__}: several statistics from one pass")
    head = lines.index(next(ln for ln in lines if ln.startswith("numreduce call ")))
    headline = list(itertools.takewhile(lambda ln: ln.startswith("nr."), lines[head + 2:]))
    assert len(headline) == 5
    speedups = [ln.split()[-1] for ln in headline]
    assert len(set(speedups)) == 5  # each row measured once
    mm = [ln for ln in lines if ln.split()[:1] == ["float64"]]
    assert mm[1].split()[-2] == speedups[0] and mm[2].split()[-2] == speedups[1]
    mv = [ln for ln in lines if ln.startswith("meanvar ")]
    assert [ln.split()[-2] for ln in mv] == speedups[2:]
    config = lines.index("numreduce configuration (numreduce.show_config())")
    facts = dict(ln.strip().split(": ", 1) for ln in lines[config + 1:])
    assert facts["threads"] == "2"
    assert facts["threads_source"].startswith("default")
    assert nr.get_num_threads() == 2 and not nr._config.threads_chosen()


def test_family_row_below_one_says_why(monkeypatch):
    from numreduce import _bench

    monkeypatch.setattr(_bench, "best_times", lambda *fns, **kw: [2.0, 1.0])
    monkeypatch.setattr(_bench, "family_cases", lambda n, quick: [
        ("fsum 1-D f64 1e+06", None, None, "np.sum"),
        ("meanvar 1-D f64 1e+06", None, None, "np.mean+np.var")])
    out = _bench.family_table(quick=True).splitlines()
    assert out[2].endswith("0.50x  np.sum (*)")
    assert out[3].endswith("0.50x  np.mean+np.var")
    assert out[4].startswith("(*) fsum below 1: the compensation's cost")
    assert len(out) == 5


def test_accuracy_references_without_the_optional_packages(monkeypatch):
    """Without mpmath the logsumexp reference is math.fsum-based (agreeing
    with mpmath's to about 1e-16), without SciPy the row compares NumPy's
    expression: no `n/a`."""
    from numreduce import _bench

    y = np.random.default_rng(5).standard_normal(2000) * 30
    with_mp, name = _bench._logsumexp_reference(y)
    assert name == "mpmath"
    monkeypatch.setitem(sys.modules, "mpmath", None)
    without, name = _bench._logsumexp_reference(y)
    assert name == "math.fsum"
    assert abs(without - with_mp) <= 4e-16 * abs(with_mp)
    monkeypatch.setitem(sys.modules, "scipy.special", None)
    table = _bench.accuracy_table()
    row = next(ln for ln in table.splitlines() if ln.startswith("logsumexp"))
    assert "(ref: math.fsum)" in row and row.endswith("np.max+log(np.sum(exp))")
    assert "n/a" not in row
