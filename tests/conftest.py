"""Test configuration: always test the *installed* numreduce, never the source tree."""

import os
import pathlib

import numpy as np
import pytest
from hypothesis import HealthCheck, settings

import numreduce

_SRC = pathlib.Path(__file__).resolve().parent.parent / "numreduce"
if pathlib.Path(numreduce.__file__).resolve().parent == _SRC:
    raise RuntimeError(
        "numreduce was imported from the source tree, not the installed package; run the "
        "tests from outside the repository root (see README: `cd /tmp && python -m pytest "
        "<repo>/tests`)")

settings.register_profile(
    "ci", max_examples=int(os.environ.get("NR_HYPOTHESIS_EXAMPLES", "150")), deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    derandomize=bool(os.environ.get("CI")),
)
settings.load_profile("ci")


@pytest.fixture(params=["engine", "native"], scope="module")
def reduce_path(request):
    """A function ``f(ufunc, a, **kw)`` running one of the two reduce paths:
    each test that takes it runs twice, as ``test_x[engine]`` and
    ``test_x[native]``.  Module scope: pytest groups a module's tests by
    path within the module, so each file shows once in the progress lines (a
    session-scoped fixture regrouped the whole run, and files showed up two
    or three times); not function scope, which Hypothesis' ``@given`` tests
    refuse (the fixture is not reset between examples).

    The native path is skipped (visibly, with the probe's reason) where the
    running NumPy lacks the multi-output reduction slots."""
    if request.param == "native":
        if not numreduce.HAVE_NATIVE_REDUCE:
            from numreduce._config import native_reason
            pytest.skip("native ufunc.reduce: " + native_reason())
        return lambda ufunc, a, **kw: ufunc.reduce(a, **kw)
    return lambda ufunc, a, **kw: numreduce.reduce(ufunc, a, **kw)


def pytest_report_header(config):
    return (f"numreduce {numreduce.__version__} from {pathlib.Path(numreduce.__file__).parent}; "
            f"numpy {np.__version__}; native reduce: {numreduce.HAVE_NATIVE_REDUCE}")


@pytest.fixture
def two_threads():
    """numreduce.set_num_threads(2) for the test (chunks of >= 2**21 elements)."""
    old = numreduce.set_num_threads(2)
    yield
    numreduce.set_num_threads(old)


@pytest.fixture(autouse=True)
def _thread_setting_restored():
    """Every test leaves the thread setting as it found it, whether the user
    chose the count included (a test's set_num_threads(old) would otherwise
    turn the default into a choice, and Dask tasks would then thread)."""
    n, chosen, _ = numreduce._core._get_num_threads()
    yield
    if chosen:
        numreduce._core._set_num_threads(n)
    else:
        numreduce._core._set_default_threads(n)
