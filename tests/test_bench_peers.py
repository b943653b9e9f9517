"""``bench --peers``: the peers it times compute what numreduce computes (so
each ratio compares like with like), its rows carry their targets, and the
CLI accepts the flag.  Measures nothing: timings are never asserted."""

import os
import subprocess
import sys

import numpy as np
import pytest

import numreduce as nr
from numreduce import _bench_peers as bp

MODS = bp.peers_available()


def _as_pair(r):
    return r if isinstance(r, tuple) else (r,)


@pytest.mark.parametrize("name", bp.NAMES)
def test_first_output_peer_computes_the_first_output(name):
    a = np.random.default_rng(0).standard_normal(1000)
    peer = bp._first_output_peer(name, a, MODS)
    if peer is None:  # only logsumexp's peer can be missing
        pytest.skip("scipy is not installed (the logsumexp peer)")
    label, call = peer
    want = _as_pair(getattr(nr, name)(a))[0]
    np.testing.assert_allclose(call(), want, rtol=1e-12, err_msg=label)


@pytest.mark.parametrize("name", bp.NAMES)
@pytest.mark.parametrize("axis", [0, 1])
def test_peer_pairs_compute_both_outputs(name, axis):
    m = np.random.default_rng(1).standard_normal((40, 30))
    pairs = bp._pairs(name, m, axis, MODS)
    if not pairs:
        pytest.skip(f"no peer of {name} is installed (bottleneck or numbagg; scipy for "
                    "logsumexp)")
    want = _as_pair(getattr(nr, name)(m, axis=axis))
    for label, call in pairs:
        got = _as_pair(call())
        assert len(got) == len(want), label
        for g, w in zip(got, want):
            np.testing.assert_allclose(g, w, rtol=1e-10, err_msg=label)


@pytest.mark.skipif(MODS["bottleneck"] is None, reason="bottleneck is not installed")
def test_bottleneck_is_the_small_array_peer_where_it_has_the_function():
    a = np.ones(10)
    assert bp._first_output_peer("nanmeanvar", a, MODS)[0] == "bn.nanmean"
    assert bp._first_output_peer("nanargminmax", a, MODS)[0] == "bn.nanargmin"
    labels = [p[0] for p in bp._pairs("nanminmax", a, None, MODS)]
    assert "bn.nanmin+nanmax" in labels


def test_peer_line_format():
    line = bp.peer_line(("minmax f8 n=1e+02", 1e-7, "np.min", 2e-7, 2.0, "<= np.min alone", True))
    assert line.startswith("minmax f8 n=1e+02") and line.endswith(" ok") and "2.00x" in line
    line = bp.peer_line(("x", 2e-7, "np.min", 1e-7, 0.5, "<= np.min alone", False))
    assert line.endswith(" MISS")
    assert "bottleneck" in bp.describe_peers() and "numbagg" in bp.describe_peers()


def test_cli_has_the_peers_flag():
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    r = subprocess.run([sys.executable, "-P", "-m", "numreduce", "bench", "--help"],
                       capture_output=True, text=True, timeout=60, env=env)
    assert r.returncode == 0 and "--peers" in r.stdout
