"""threadpoolctl sees and limits numreduce's threads (numreduce/_threadpool.py):
threadpool_info() lists numreduce with its version and thread count, and
threadpool_limits sets the count and restores it, the default included.
numreduce does not import threadpoolctl; its controller is registered when
threadpoolctl is imported, before or after numreduce."""

import os
import subprocess
import sys

import pytest

threadpoolctl = pytest.importorskip(
    "threadpoolctl", reason="threadpoolctl is not installed (the 'test' extra has it)")

import numreduce as nr  # noqa: E402
from numreduce import _config  # noqa: E402


def _numreduce_pools():
    return [p for p in threadpoolctl.threadpool_info() if p["user_api"] == "numreduce"]


def test_threadpool_info_lists_numreduce():
    nr.set_num_threads(3)
    (pool,) = _numreduce_pools()
    assert pool["internal_api"] == "numreduce"
    assert pool["version"] == nr.__version__
    assert pool["num_threads"] == 3
    assert os.path.samefile(pool["filepath"], nr._core.__file__)


def test_threadpool_limits_one_and_restore_the_default():
    _config.reset_num_threads()
    default = nr.get_num_threads()
    with threadpoolctl.threadpool_limits(limits=1):
        assert nr.get_num_threads() == 1
        assert _numreduce_pools()[0]["num_threads"] == 1
    assert nr.get_num_threads() == default
    assert not _config.threads_chosen()  # still the default: Dask tasks take one thread


def test_threadpool_limits_restore_a_chosen_count():
    nr.set_num_threads(5)
    with threadpoolctl.threadpool_limits(limits=2, user_api="numreduce"):
        assert nr.get_num_threads() == 2
    assert (nr.get_num_threads(), _config.threads_chosen()) == (5, True)


def test_threadpool_limits_on_other_apis_leave_numreduce():
    nr.set_num_threads(4)
    with threadpoolctl.threadpool_limits(limits=1, user_api="blas"):
        assert nr.get_num_threads() == 4


def _run(code):
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH",)}
    env["NUMREDUCE_NUM_THREADS"] = "3"
    r = subprocess.run([sys.executable, "-P", "-c", code], capture_output=True, text=True,
                       env=env, timeout=120)
    assert r.returncode == 0, r.stderr
    return r.stdout.strip()


_SHOW = ("import threadpoolctl\n"
         "print([(p['internal_api'], p['num_threads']) for p in threadpoolctl.threadpool_info()"
         " if p['user_api'] == 'numreduce'])")


def test_numreduce_does_not_import_threadpoolctl():
    assert _run("import sys, numreduce; print('threadpoolctl' in sys.modules)") == "False"


def test_registered_when_threadpoolctl_comes_after_numreduce():
    assert _run("import numreduce\n" + _SHOW) == "[('numreduce', 3)]"


def test_registered_when_threadpoolctl_comes_first():
    # threadpoolctl imported (and its libraries listed) before numreduce
    assert _run("import threadpoolctl; threadpoolctl.threadpool_info()\n"
                "import numreduce\n" + _SHOW) == "[('numreduce', 3)]"


def test_python_m_threadpoolctl_lists_numreduce():
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH",)}
    env["NUMREDUCE_NUM_THREADS"] = "3"
    r = subprocess.run([sys.executable, "-P", "-m", "threadpoolctl", "-i", "numreduce"],
                       capture_output=True, text=True, env=env, timeout=120)
    assert r.returncode == 0, r.stderr
    import json

    pools = [p for p in json.loads(r.stdout) if p["user_api"] == "numreduce"]
    assert [(p["internal_api"], p["num_threads"], p["version"]) for p in pools] == \
        [("numreduce", 3, nr.__version__)]
