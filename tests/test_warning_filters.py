"""The suite's warning filters (pyproject.toml): NumPy's DeprecationWarnings fail the test.

A deprecation attributed to NumPy, to numreduce or to a test module is an
error, so the next NumPy's deprecations (NumPy 2.6: ``np.timedelta64(1)``
without a unit) show at once; a third-party library's stays a warning."""

import warnings

import pytest


def test_deprecation_in_a_test_module_is_an_error():
    # Attributed to this module (as a deprecated NumPy call made here would be).
    with pytest.raises(DeprecationWarning, match="from a test"):
        warnings.warn("from a test", DeprecationWarning, stacklevel=1)


@pytest.mark.parametrize("module", ["numpy", "numpy._core.fromnumeric", "numreduce._api"])
def test_deprecation_of_numpy_or_numreduce_is_an_error(module):
    with pytest.raises(DeprecationWarning, match="deprecated"):
        warnings.warn_explicit("deprecated", DeprecationWarning, module.replace(".", "/") + ".py",
                               1, module=module)


@pytest.mark.parametrize("module", ["dask.array.core", "pandas.core.frame", "numpydoc"])
def test_third_party_deprecation_stays_a_warning(module):
    with warnings.catch_warnings(record=True) as caught:
        warnings.warn_explicit("deprecated", DeprecationWarning, module.replace(".", "/") + ".py",
                               1, module=module)
    assert [type(w.message) for w in caught] == [DeprecationWarning]

