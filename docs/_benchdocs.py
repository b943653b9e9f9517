"""Tables and plots of the benchmarks page, made from a stored run.

``python -m numreduce bench --save docs/_data/bench-targets.json`` stores a
whole run; the docs build (docs/conf.py, at ``builder-inited``) calls
:func:`write_all`, which writes into docs/_generated/:

- ``bench-tables.md``: one section per area, a plot of its speed-ups and a
  table (function, data, compared with, ratio), included by benchmarks.md;
- ``bench-machine.md``: the machine, SIMD level and versions of the run;
- ``bench-headline.md``: the headline speed-ups, included by index.md;
- ``bench-xarray.md``, ``bench-pandas.md``: the accessors' rows with their
  times, included by grouped.md;
- ``bench-layouts.md``: the layouts sweeps (``python -m numreduce bench
  --layouts --save docs/_data/bench-layouts*.json``), one table per stored
  run (per CPU);
- ``bench-cpus.md``: the targets runs of every CPU stored
  (``docs/_data/bench-targets*.json``), the rows they share side by side;
- ``bench-area-<k>.png``: one plot per area of its speed-ups (bars on a
  log scale, a line at 1.0, the value beside each bar);
- ``bench-time.png``: the rows that compare numreduce's time with one
  reference call (``np.max`` alone, ``np.sum``), lower is better;
- ``bench-headline.png``: the headline speed-ups of the front page.

The stored run also holds the acceptance target of each row (what
``python -m numreduce bench`` checks); the pages show the measurements and
the conditions they were taken in, not the targets.

Nothing is timed here: the page shows exactly the stored numbers.
Run ``python docs/_benchdocs.py`` to write the files without Sphinx.
"""

import json
import pathlib
import re

HERE = pathlib.Path(__file__).resolve().parent

# (area title, test on the stored case label)
AREAS = [
    ("minmax on a whole array", lambda c: c.startswith("minmax ") and "^2" not in c),
    ("minmax along an axis", lambda c: c.startswith("minmax ") and "^2" in c),
    ("Other reductions", lambda c: c.split()[0] in ("nanminmax", "argminmax", "meanvar",
                                                   "logsumexp", "fsum", "fminfmax",
                                                   "nanargminmax", "describe", "skew",
                                                   "kurtosis")
     and "threads" not in c and "weights=" not in c and " b= " not in c),
    ("Scans, segments and groups", lambda c: c.split()[0] in (
        "cumminmax", "logcumsumexp", "reduceat", "group_minmax", "group_meanvar")
     and "weights=" not in c),
    ("Reductions of several arrays", lambda c: c.split()[0] in (
        "covariance", "correlation", "sumprod", "mapreduce")
     or "weights=" in c or " b= " in c),
    ("xarray and pandas", lambda c: c.startswith(("xr ", "pd "))),
    ("Threads", lambda c: "threads" in c),
    ("Dask", lambda c: c.startswith(("dask ", "dist. "))),
    ("Native and engine path", lambda c: c.startswith("engine ")),
]

_DTYPES = {"f64": "float64", "float64": "float64", "float32": "float32", "int16": "int16",
           "int32": "int32", "int64": "int64"}

# What each function is compared with, where the label does not say it.
_REFERENCE = {
    "nanminmax": "np.nanmin + np.nanmax",
    "fminfmax": "np.fmin.reduce + np.fmax.reduce",
    "nanargminmax": "np.nanargmin + np.nanargmax",
    "argminmax": "np.argmin + np.argmax",
    "meanvar": "np.mean + np.var",
    "logsumexp": "scipy.special.logsumexp",
    "cumminmax": "np.minimum.accumulate + np.maximum.accumulate",
    "logcumsumexp": "np.logaddexp.accumulate",
    "reduceat": "np.minimum.reduceat + np.maximum.reduceat",
    "minmax": "np.min + np.max",
}
_VS = {
    "min+max": "np.min + np.max",
    "max": "np.max alone",
    "argmax": "np.argmax alone",
    "np.sum": "np.sum",
    "np.at": "np.minimum.at + np.maximum.at",
    "pandas": "pandas groupby",
    "numbagg": "numbagg",
    "min,max": "x.min(), x.max()",
    "mean,var": "x.mean(), x.var()",
    "2-pass": "max, then log(sum(exp(x - max)))",
    "1": "the same call on 1 thread",
    "np.average x2": "np.average twice (mean, then variance)",
    "np.bincount x3": "np.bincount three times (two passes)",
    "np.dot (1 BLAS thread)": "np.dot (1 BLAS thread)",
    "square.sum": "np.square(X).sum(0)",
    "einsum": "np.einsum('ij,ij->j', X, X)",
    "minmax(x - y)": "minmax(x - y)",
    "mean,var of abs": "np.mean(np.abs(x)), np.var(np.abs(x))",
    "SciPy": "scipy.special.logsumexp(x, b=w)",
}


_SUP = str.maketrans("0123456789", "\u2070\u00b9\u00b2\u00b3\u2074\u2075\u2076\u2077\u2078\u2079")


def _size(tok):
    """'1e+07' -> '10⁷', '4000^2' -> '4000 x 4000'."""
    m = re.fullmatch(r"1e\+?0?(\d+)", tok)
    if m:
        return "10" + m[1].translate(_SUP)
    m = re.fullmatch(r"(\d+)\^2", tok)
    if m:
        return f"{m[1]} x {m[1]}"
    return tok


def parse_case(case):
    """A stored case label -> (function, data, compared with)."""
    label = re.sub(r"\s*\(.*\)$", "", case)       # "(var err ...)" notes
    label = re.sub(r" err \S+$", "", label)         # logcumsumexp's error pair
    left, _, vs = label.partition(" vs ")
    if left.startswith(("xr ", "pd ")):  # the accessors' rows
        toks = left.split()
        seven = '["count", "mean", "std", "min", "max", "skew", "kurt"]'
        if toks[:2] == ["pd", "describe"]:  # pd describe 1e+06x8
            n, cols = toks[2].split("x")
            return ("df.nr.describe()", f"float64, {_size(n)} rows, {cols} columns",
                    f"df.agg({seven})")
        if toks[:3] == ["xr", "dask", "describe"]:  # xr dask describe 1e+08/100
            n, chunks = toks[3].split("/")
            return ('da.nr.describe("time")', f"{_size(n)} elements, Dask, {chunks} chunks",
                    "xarray's min, max, mean, std computed together")
        if toks[0] == "pd":  # pd groupby meanvar 1e+07/1e4 x4
            n, g = toks[3].split("/")
            aggs = {"meanvar": '["mean", "var"]', "minmax": '["min", "max"]', "describe": seven}
            return (f"df.nr.groupby(k).{toks[2]}()", f"float64, {_size(n)} rows in "
                    f"{_size(g)} groups, 4 columns",
                    f"df.groupby(k).agg({aggs.get(toks[2], '[...]')})")
        how = 'groupby("time.month")' if toks[1] == "month" else 'resample(time="1MS")'
        dask = toks[1] == "dask"
        if dask:
            how = 'groupby("time.month")'
        stat = toks[-2]
        return (f"ds.nr.{how}.{stat}()", "float32, 3650 x 100 x 100 daily"
                + (", Dask, 365-day chunks" if dask else ""),
                f"xarray {how.split('(')[0]} (flox)")
    if left.startswith("mapreduce "):  # mapreduce f,reduction ...
        toks = left.split()
        f, red = toks[1].split(",")
        rest = [_size(t) if re.fullmatch(r"1e\+?\d+|\d+\^2", t) else t for t in toks[2:]]
        vs = case.partition(" vs ")[2]  # with its parentheses: minmax(x - y)
        return f"mapreduce(np.{f}, {red})", ", ".join(["float64"] + rest), _VS.get(vs, vs)
    toks = left.replace(",", "").split()
    func = toks[0]
    data = []
    if func in ("dask", "dist."):
        func = f"{toks[1]} (Dask{', 2-worker cluster' if toks[0] == 'dist.' else ''})"
        n, chunks = toks[2].split("/")
        data = ["float32", f"{_size(n)} in {chunks} chunks"]
        toks = []
    elif func == "engine":
        return "reduce (engine)", _size(toks[-1]), "ufunc.reduce (native)"
    else:
        toks = toks[1:]
    for t in toks:
        if t in _DTYPES:
            data.insert(0, _DTYPES[t])
        elif "/" in t:
            n, g = t.split("/")
            data.append(f"{_size(n)} in {_size(g)} groups")
        elif t.startswith("axis="):
            data.append(t)
        elif t in ("1e4", "segments", "2", "threads", "err"):
            if t == "segments":
                data[-1] = data[-1] + " segments"
            elif t == "1e4":
                data.append(_size("1e4"))
        elif re.fullmatch(r"1e\+?\d+|\d+\^2|1e\d", t):
            data.append(_size(t))
        elif re.fullmatch(r"\d+x\d+", t):  # describe f64 4000x2500 axis=0
            data.append(t.replace("x", " x "))
        elif t.endswith("="):  # weights=, b=: a second array
            data.append(t[:-1] + "=")
    if "threads" in case:
        vs = "1"
        data.append("2 threads")
    if not vs:
        vs_text = _REFERENCE.get(func, "")
    else:
        vs_text = _VS.get(vs, vs)
    if func == "logcumsumexp":
        data.insert(0, "float64")
    return func, ", ".join(data), vs_text


def direction(target):
    """'>= 1.90x faster' -> ('faster', 1.9); '<= 1.05x the time' -> ('time', 1.05)."""
    from numreduce._bench import target_direction

    return target_direction(target)


def load(path=HERE / "_data" / "bench-targets.json"):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def _ratio_text(r):
    kind, _ = direction(r["target"])
    return f"{r['ratio']:.2f}x" + (" faster" if kind == "faster" else " the time")


def area_rows(doc):
    """[(title, rows)] of the areas that have rows."""
    out = []
    for title, test in AREAS:
        rows = [r for r in doc["rows"] if test(r["case"])]
        if rows:
            out.append((title, rows))
    return out


def tables(doc):
    out = []
    used = set()
    for k, (title, rows) in enumerate(area_rows(doc)):
        used.update(id(r) for r in rows)
        out += [f"### {title}", ""]
        if any(direction(r["target"])[0] == "faster" for r in rows):
            out += ["```{image} _generated/" + f"bench-area-{k}.png",
                    f":alt: Speed-ups of numreduce, {title}", ":width: 100%", "```", ""]
        out += ["| function | data | compared with | ratio |",
                "|---|---|---|---:|"]
        for r in rows:
            func, data, vs = parse_case(r["case"])
            out.append(f"| `{func}` | {data} | {vs} | {_ratio_text(r)} |")
        out.append("")
    left = [r["case"] for r in doc["rows"] if id(r) not in used]
    if left:
        raise ValueError(f"benchmark rows in no area of docs/_benchdocs.py: {left}")
    return "\n".join(out)


def machine(doc):
    c = doc["config"]
    return "\n".join([
        "| machine | |", "|---|---|",
        f"| CPU | {doc['cpu']} ({c['machine']}), {c['threads']} thread unless a row says "
        "otherwise |",
        f"| numreduce SIMD kernels | {c['simd_kernels']} |",
        f"| NumPy SIMD level | {c['numpy_simd']} |",
        f"| versions | numreduce {c['numreduce']}, NumPy {c['numpy']}, Python {c['python']} |",
        f"| reduce path | {c['reduce_path']} |",
        f"| command | `{doc['command']}` |", ""])


HEADLINE = [  # (stored case, what it replaces, plot label)
    ("minmax float32 1e+07 vs min+max", "`np.min(a)`, `np.max(a)`",
     "minmax vs np.min + np.max"),
    ("argminmax f64 1e+07", "`np.argmin(a)`, `np.argmax(a)`",
     "argminmax vs np.argmin + np.argmax"),
    ("meanvar f64 1e+07", "`np.mean(a)`, `np.var(a)`", "meanvar vs np.mean + np.var"),
    ("logsumexp f64 1e+07", "`scipy.special.logsumexp(a)`",
     "logsumexp vs scipy.special.logsumexp"),
    ("group_minmax f64 1e+07/1e4 vs pandas", "pandas `groupby(ids).agg(['min', 'max'])`",
     "group_minmax vs pandas groupby"),
]


def headline(doc):
    by_case = {r["case"]: r for r in doc["rows"]}
    out = ["| numreduce | instead of | speed-up |", "|---|---|---:|"]
    for case, instead, _ in HEADLINE:
        r = by_case[case]
        func, data, _ = parse_case(case)
        call = f"nr.{func}(a, ids)" if func.startswith("group_") else f"nr.{func}(a)"
        out.append(f"| `{call}` ({data}) | {instead} | {r['ratio']:.1f}x |")
    return "\n".join(out) + "\n"


def _short(r):
    """A plot label: function, data (shortened), and the peer where the
    function is compared with more than one."""
    func, data, vs = parse_case(r["case"])
    data = (data.replace("float", "f").replace("int", "i").replace(" x 4000", "^2")
            .replace(" in 10⁴ groups", "/10⁴ groups").replace(" in 100 chunks", "/100 ch.")
            .replace(", 2-worker cluster", ", cluster"))
    data = re.sub("10([\u2070\u00b9\u00b2\u00b3\u2074-\u2079]+)",
                  lambda m: "1e" + m[1].translate({ord(c): str(d) for d, c in enumerate(
                      "\u2070\u00b9\u00b2\u00b3\u2074\u2075\u2076\u2077\u2078\u2079")}), data)
    peer = {"np.minimum.at + np.maximum.at": "ufunc.at", "pandas groupby": "pandas",
            "numbagg": "numbagg", "np.sum": "np.sum", "np.corrcoef": "np.corrcoef",
            "pearsonr": "pearsonr", "np.square(X).sum(0)": "square.sum",
            "np.einsum('ij,ij->j', X, X)": "einsum"}.get(vs)
    return f"{func} {data}" + (f" vs {peer}" if peer else "")


def bars(values, labels, path, kind):
    """One plot of a few rows: horizontal bars of the ratios on a log scale
    (a speed-up of 2x and a time of 0.5x sit as far from 1.0), a line at
    1.0, the value beside each bar, and the axis labelled with what it
    measures."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FuncFormatter, LogLocator

    y = list(range(len(values)))
    fig, ax = plt.subplots(figsize=(8.0, 0.32 * len(values) + 1.1), dpi=120)
    ax.set_xscale("log")
    # each bar from 1x (the same time) to its value
    ax.barh(y, [v - 1.0 for v in values], left=1.0, color="#4477aa", height=0.65)
    ax.set_yticks(y, labels, fontsize=8.5)
    ax.invert_yaxis()
    ax.axvline(1.0, color="black", linewidth=1.0)
    lo = min(min(values), 1.0) / 1.6
    hi = max(max(values), 1.0) * 1.6
    ax.set_xlim(lo, hi)
    for k, v in enumerate(values):
        ax.text(v * 1.04 if v >= 1 else v / 1.04, k, f"{v:.2f}x", va="center",
                ha="left" if v >= 1 else "right", fontsize=8)
    ax.xaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
    ax.xaxis.set_minor_locator(LogLocator(base=10, subs=()))
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}x"))
    ax.tick_params(axis="x", labelsize=8)
    ax.grid(axis="x", alpha=0.3)
    if kind == "faster":
        ax.set_xlabel("speed-up: the reference's time / numreduce's time "
                      "(log scale; higher is better, 1x: the same time)", fontsize=8.5)
    else:
        ax.set_xlabel("numreduce's time / the reference call's time "
                      "(log scale; lower is better)", fontsize=8.5)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def plot(doc, path, kind, cases=None, rows=None):
    """A plot of the rows of `kind` ("faster": speed-ups, higher is
    better; "time": time relative to the reference, lower is better) among
    ``rows`` (default: every row), or of the given stored cases (with their
    labels) in that order."""
    if cases is None:
        rows = [r for r in (rows or doc["rows"]) if direction(r["target"])[0] == kind]
        labels = [_short(r) for r in rows]
    else:
        by_case = {r["case"]: r for r in doc["rows"]}
        rows = [by_case[c] for c, _ in cases]
        labels = [label for _, label in cases]
    bars([r["ratio"] for r in rows], labels, path, kind)


def layouts_table(doc):
    """The stored layouts sweep (``bench --layouts --save``) as one table:
    a row per layout, a column per function, each cell the float64 / float32
    ratios (the reference's time over numreduce's)."""
    names = list(dict.fromkeys(r["function"] for r in doc["rows"]))
    by = {(r["layout"], r["function"]): r for r in doc["rows"]}
    layouts = list(dict.fromkeys((r["layout"], r["shape"]) for r in doc["rows"]))
    ref = {r["function"]: r["reference"] for r in doc["rows"]}

    def ratio(r, dt):
        return f"{r['cells'][dt]['ratio']:.2f}"

    out = ["| layout | " + " | ".join(f"`{n}`" for n in names) + " |",
           "|---|" + "---:|" * len(names),
           "| *compared with* | " + " | ".join(ref[n].replace("+", " + ") for n in names) + " |"]
    for layout, shape in layouts:
        cells = []
        for n in names:
            r = by.get((layout, n))
            if r is None:
                cells.append("n/a")
                continue
            cells.append(f"{ratio(r, 'float64')} / {ratio(r, 'float32')}")
        out.append(f"| {layout}, {shape.replace(' F', ', F-ordered')} | " + " | ".join(cells)
                   + " |")
    c = doc["config"]
    chosen = "".join(f", {k.replace('_', ' ')} {c[k]}" for k in ("cpu", "stream_kernels",
                                                                 "prefetch") if k in c)
    out += ["", f"float64 / float32 in each cell.  {doc['cpu']}, one thread, numreduce SIMD kernels "
                f"{c['simd_kernels']}{chosen}, NumPy {c['numpy']}; `{doc['command']}`"
                + (f" ({doc['note']})" if doc.get("note") else "") + ".", ""]
    return "\n".join(out)


def stored_runs(stem):
    """docs/_data/<stem>*.json: the main run (<stem>.json) first, then one
    file per other CPU (<stem>-<cpu>.json)."""
    return sorted((HERE / "_data").glob(f"{stem}*.json"), key=lambda p: (p.stem != stem, p.name))


def _cpu_name(doc):
    cpu = doc["config"].get("cpu", "")
    return f"{doc['cpu']}" + (f" ({cpu})" if cpu else "")


def cpus_table(docs):
    """Every row of the stored targets runs, one column of ratios per run
    (per CPU): the reference's time over numreduce's ("faster" rows) or
    numreduce's over the reference's ("the time" rows), as the tables
    above; "-" where a run has no such row (it predates the row).  The
    rows every run has first, then the others in the order they appear."""
    by = [{r["case"]: r for r in d["rows"]} for d in docs]
    cases = list(dict.fromkeys(r["case"] for d in docs for r in d["rows"]))
    common = [c for c in cases if all(c in b for b in by)]
    common += [c for c in cases if c not in common]
    out = ["| case | " + " | ".join(f"{d['cpu'] or 'unknown CPU'} (run {k + 1})"
                                    for k, d in enumerate(docs)) + " |",
           "|---|" + "---:|" * len(docs)]
    for case in common:
        cells = [_ratio_text(b[case]) if case in b else "-" for b in by]
        out.append(f"| {case} | " + " | ".join(cells) + " |")
    out.append("")
    for k, d in enumerate(docs):
        c = d["config"]
        out.append(f"- run {k + 1}: {_cpu_name(d)}, numreduce SIMD kernels {c['simd_kernels']}"
                   + "".join(f", {key.replace('_', ' ')} {c[key]}"
                             for key in ("stream_kernels", "prefetch") if key in c)
                   + f", NumPy {c['numpy_simd']}, {d['date']}")
    out.append("")
    return "\n".join(out)


def layouts_tables(paths):
    """One layouts table per stored sweep (docs/_data/bench-layouts*.json:
    one per CPU), each under a heading naming its CPU."""
    out = []
    for path in paths:
        doc = load(path)
        out += [f"### {_cpu_name(doc)}", "", layouts_table(doc)]
    return "\n".join(out)


def _ms(t):
    return f"{t * 1e3:.0f} ms" if t < 1 else f"{t:.2f} s"


def accessor_table(doc, prefix):
    """The stored rows of the xarray (``prefix="xr "``) or pandas (``"pd "``)
    accessor: the call, its data, both times and the speed-up, for the
    grouped page (the same numbers as the benchmarks page)."""
    out = ["| numreduce | data | compared with | numreduce | reference | speed-up |",
           "|---|---|---|---:|---:|---:|"]
    for r in doc["rows"]:
        if r["case"].startswith(prefix):
            func, data, vs = parse_case(r["case"])
            out.append(f"| `{func}` | {data} | {vs} | {_ms(r['t_numreduce'])} | "
                       f"{_ms(r['t_reference'])} | {r['ratio']:.1f}x |")
    c = doc["config"]
    out += ["", f"One stored run (`{doc['command']}`): {doc['cpu']}, one thread, "
                f"NumPy {c['numpy']}, Python {c['python']}.", ""]
    return "\n".join(out)


def write_all(out=HERE / "_generated", data=HERE / "_data" / "bench-targets.json",
              layouts=None):
    out = pathlib.Path(out)
    out.mkdir(exist_ok=True)
    if layouts is None:  # every stored sweep, one per CPU (the main one first)
        layouts = stored_runs("bench-layouts")
    (out / "bench-layouts.md").write_text(layouts_tables(layouts), encoding="utf-8")
    (out / "bench-cpus.md").write_text(cpus_table([load(p) for p in stored_runs("bench-targets")]),
                                       encoding="utf-8")
    doc = load(data)
    (out / "bench-tables.md").write_text(tables(doc), encoding="utf-8")
    (out / "bench-machine.md").write_text(machine(doc), encoding="utf-8")
    (out / "bench-headline.md").write_text(headline(doc), encoding="utf-8")
    (out / "bench-xarray.md").write_text(accessor_table(doc, "xr "), encoding="utf-8")
    (out / "bench-pandas.md").write_text(accessor_table(doc, "pd "), encoding="utf-8")
    for k, (_, rows) in enumerate(area_rows(doc)):
        if any(direction(r["target"])[0] == "faster" for r in rows):
            plot(doc, out / f"bench-area-{k}.png", "faster", rows=rows)
    plot(doc, out / "bench-time.png", "time")
    plot(doc, out / "bench-headline.png", "faster",
         cases=[(case, label) for case, _, label in HEADLINE])


if __name__ == "__main__":
    write_all()
