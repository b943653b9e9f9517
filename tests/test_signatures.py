"""Every user function's signature against its NumPy / SciPy counterpart's,
read with ``inspect``: the same parameter names, kinds, order and (where
both have one) defaults, except for the deliberate differences listed here
and in docs/differences.md ("Signatures").  A new parameter, or a
counterpart that changes, fails here until both lists say so."""

from __future__ import annotations

import inspect
import re
import pathlib

import numpy as np
import pytest

import numreduce as nr

scipy_special = pytest.importorskip("scipy.special", reason="SciPy is not installed (the "
                                    "'test' extra)")

DOCS = pathlib.Path(__file__).resolve().parent.parent / "docs"

_CUMULATIVE = getattr(np, "cumulative_sum", None)  # NumPy >= 2.1

COUNTERPARTS = {
    "minmax": np.min,
    "nanminmax": np.nanmin,
    "argminmax": np.argmin,
    "nanargminmax": np.nanargmin,
    "meanvar": np.var,
    "meanstd": np.std,
    "nanmeanvar": np.nanvar,
    "logsumexp": scipy_special.logsumexp,
    "fsum": np.sum,
    "cumfsum": _CUMULATIVE,
    "logcumsumexp": _CUMULATIVE,
    "cumminmax": _CUMULATIVE,
    "nancumminmax": _CUMULATIVE,
    "cummeanvar": _CUMULATIVE,
}

# the deliberate differences, in the words of _differences below
DIFFERENCES = {
    "argminmax": {"keepdims: POSITIONAL_OR_KEYWORD (theirs KEYWORD_ONLY)",
                  "order: a, axis, keepdims, out"},
    "nanargminmax": {"keepdims: POSITIONAL_OR_KEYWORD (theirs KEYWORD_ONLY)",
                     "order: a, axis, keepdims, out"},
    "meanvar": {"without: mean", "extra: weights"},
    "meanstd": {"without: mean", "extra: weights"},
    "nanmeanvar": {"without: mean", "extra: weights"},
    "cumminmax": {"without: include_initial"},
    "nancumminmax": {"without: include_initial"},
    "cummeanvar": {"without: include_initial", "extra: ddof"},
}


def _no_value(default):
    return default is inspect.Parameter.empty or repr(default) == "<no value>"


def _differences(ours, theirs):
    o, t = ours.parameters, theirs.parameters
    found = {f"without: {n}" for n in t if n not in o}
    found |= {f"extra: {n}" for n in o if n not in t}
    common_o = [n for n in o if n in t]
    common_t = [n for n in t if n in o]
    if common_o != common_t:
        found.add("order: " + ", ".join(common_o))
    for n in common_o:
        if o[n].kind is not t[n].kind:
            found.add(f"{n}: {o[n].kind.name} (theirs {t[n].kind.name})")
        a, b = o[n].default, t[n].default
        if not _no_value(a) and not _no_value(b) and not (a is b or a == b):
            found.add(f"{n}={a!r} (theirs {b!r})")
    return found


@pytest.mark.parametrize("name", sorted(COUNTERPARTS))
def test_signature_matches_the_counterpart(name):
    if COUNTERPARTS[name] is None:
        pytest.skip(f"np.cumulative_sum (the counterpart of {name}) needs NumPy >= 2.1, "
                    f"this is {np.__version__}")
    ours = inspect.signature(getattr(nr, name))
    theirs = inspect.signature(COUNTERPARTS[name])
    assert _differences(ours, theirs) == DIFFERENCES.get(name, set()), (ours, theirs)


def test_the_differences_are_documented():
    text = (DOCS / "differences.md").read_text()
    section = text[text.index("## Signatures"):]
    # the page's definition list: a term line naming the functions
    # (`` `meanvar`, `meanstd` ``), then ": **Counterpart**: ..." and
    # "  **Differences**: ..." lines up to the next term
    entries = re.split(r"\n(?=`)", section)[1:]
    for name, diffs in DIFFERENCES.items():
        entry = next((e for e in entries if f"`{name}`" in e.splitlines()[0]), None)
        assert entry is not None, f"docs/differences.md (Signatures) has no entry for {name}"
        row = next((line for line in entry.splitlines() if "**Differences**" in line), None)
        assert row is not None, f"docs/differences.md: the entry of {name} has no Differences"
        for d in diffs:
            # the parameter each difference is about
            kind, _, rest = d.partition(": ")
            param = kind if kind not in ("without", "extra", "order") else \
                rest.split(", ")[-2] if kind == "order" else rest
            assert f"`{param}`" in row, f"{name}: {d!r} is not in its row: {row}"
