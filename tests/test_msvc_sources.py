"""The C++ sources are ready for Windows compilers (issue 37), checked on a
machine that has neither MSVC nor Windows.

1. MSVC: no GNU-only construct reaches MSVC outside a guard with a portable
   fallback.  Every source file (src/numreduce/*.cpp, and every header on
   its own as well as through them) is preprocessed by the GNU or Clang
   preprocessor found here with ALL of its own predefined macros removed
   (``-undef``, then an ``#undef``, in a file included first, of whatever
   it still defines beyond the C++ standard's macros), no system include
   directory (``-nostdinc``), and MSVC's predefined macros instead (x64,
   x86 and ARM64: ``_MSC_VER``, ``_WIN32``, ``_M_X64`` ...), so every
   ``#if`` takes the branch MSVC takes.  The system headers (Python.h, numpy/*.h, <cmath>, <thread>, <immintrin.h> ...) are
   empty files of the same names made in tmp_path (the names read from the
   sources' ``#include <...>`` lines), each leaving a marker in the output
   when included.  The preprocessed text, string literals removed, must have
   no ``__attribute__``, ``__builtin_*``, ``__int128``, inline asm,
   ``__restrict__``, ``__extension__``, ``typeof``, GCC/Clang pragmas, GNU
   compound literals, nor any ``__name__`` identifier (GCC's spelling of its
   keywords and predefined macros: ``__VERSION__``, ``__PRETTY_FUNCTION__``,
   ``__inline__``...; ``__func__`` is standard).  ``__cplusplus`` is the
   C++17 value, as MSVC gives with /Zc:__cplusplus (the sources never test
   it; ``_MSVC_LANG`` is given too).
2. MinGW-w64: every src/numreduce/*.cpp compiles with
   ``x86_64-w64-mingw32-g++ -std=c++17 -fsyntax-only`` (the posix thread
   model's compiler where both are installed: GCC < 13's win32 model has no
   std::thread) against this Python's and NumPy's headers, their two
   configuration headers replaced by Windows ones (a copy of the include
   trees in tmp_path: the installed pyconfig.h and numpy/_numpyconfig.h
   describe this Linux build, whose sizes -- long is 8 bytes -- Python.h
   rejects on Windows; the replacements give the LLP64 sizes, the NumPy
   one from the compiler's own ``__SIZEOF_*__``).  Also with
   ``-mlong-double-64``: MSVC's long double, which is binary64 (every
   instantiation for long double must compile where it is double's size).
3. The traits' MSVC branches compiled, not only preprocessed: Clang in MSVC
   mode with ``__clang__`` undefined (where a clang++ is installed).
"""

from __future__ import annotations

import functools
import os
import pathlib
import re
import shutil
import subprocess
import sysconfig

import numpy as np
import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
SRC = ROOT / "src" / "numreduce"
SOURCES = sorted(SRC.glob("*.cpp"))
HEADERS = sorted(SRC.glob("*.hpp")) + sorted((SRC / "traits").glob("*.hpp"))
# The meson build's own defines (meson.build's cpp_args).
BUILD_DEFINES = ["-DNPY_TARGET_VERSION=NPY_2_0_API_VERSION",
                 "-DNPY_NO_DEPRECATED_API=NPY_2_0_API_VERSION"]

# MSVC's predefined macros (Visual Studio 2022 17.10, cl /std:c++17 /EHsc
# /MD /O2 /Zc:__cplusplus), per target; no /arch flag, so none of __AVX__ ...
_MSVC_COMMON = {"_MSC_VER": "1940", "_MSC_FULL_VER": "194033811", "_MSC_BUILD": "0",
                "_MSC_EXTENSIONS": "1", "_MSVC_LANG": "201703L", "_WIN32": "1",
                "_INTEGRAL_MAX_BITS": "64", "_CPPRTTI": "1", "_CPPUNWIND": "1", "_MT": "1",
                "_DLL": "1", "_NATIVE_WCHAR_T_DEFINED": "1", "_WCHAR_T_DEFINED": "1",
                "_M_FP_PRECISE": "1", "_MSVC_TRADITIONAL": "1"}
MSVC_TARGETS = {
    "x64": {**_MSVC_COMMON, "_WIN64": "1", "_M_X64": "100", "_M_AMD64": "100"},
    "x86": {**_MSVC_COMMON, "_M_IX86": "600", "_M_IX86_FP": "2"},
    "arm64": {**_MSVC_COMMON, "_WIN64": "1", "_M_ARM64": "1"},
}
# What a preprocessor may keep after -undef: the C++ standard's own macros.
_STANDARD_MACRO = re.compile(r"__cplusplus|__STDC(_\w+)?__|__STDCPP_\w+__")
# Macros MSVC never defines whose presence would mean a GNU, Clang, Linux or
# x86 SIMD branch is taken (checked by name for a readable failure).
_GNU_MACROS = ("__GNUC__", "__GNUG__", "__clang__", "__llvm__", "__x86_64__", "__i386__",
               "__aarch64__", "__linux__", "__unix__", "__ELF__", "__SSE2__", "__AVX2__",
               "__FMA__", "__VERSION__", "__SIZEOF_INT128__", "_GNU_SOURCE", "__CUDACC__")


def _find_preprocessor():
    for name in ("cpp", "g++", "c++", "clang-cpp", "clang++"):
        path = shutil.which(name)
        if path:
            return path
    return None


CPP = _find_preprocessor()
needs_cpp = pytest.mark.skipif(CPP is None, reason="no C preprocessor on this machine "
                               "(none of cpp, g++, c++, clang-cpp, clang++ on PATH)")


def _pp_base():
    return [CPP, "-x", "c++", "-std=c++17", "-E", "-undef", "-nostdinc", "-nostdinc++"]


def _defined_macros(args, tmp):
    """The macro names the preprocessor defines with args (-dM on an empty file)."""
    empty = tmp / "empty.cpp"
    empty.write_text("")
    proc = subprocess.run([*args, "-dM", str(empty)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return {m.group(1) for m in re.finditer(r"^#define (\w+)", proc.stdout, re.M)}


@functools.lru_cache(maxsize=None)
def _system_includes():
    """Every <...> header the sources name (guarded or not)."""
    names = set()
    for f in [*SOURCES, *HEADERS]:
        names.update(re.findall(r"^\s*#\s*include\s*<([^>]+)>", f.read_text(), re.M))
    return sorted(names)


def _stub_marker(name):
    return "nr_stub_included_" + re.sub(r"\W", "_", name)


@pytest.fixture(scope="module")
def msvc_pp(tmp_path_factory):
    """target -> the preprocessor command that acts as MSVC for that target."""
    tmp = tmp_path_factory.mktemp("msvc_pp")
    stub = tmp / "stub"
    for name in _system_includes():
        p = stub / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(_stub_marker(name) + "\n")
    # What -undef leaves is #undef'd by a file included first (clang 14's
    # driver defines __GCC_HAVE_DWARF2_CFI_ASM after any -U).
    leftover = _defined_macros(_pp_base(), tmp)
    prelude = tmp / "undef_prelude.h"
    prelude.write_text("".join(f"#undef {m}\n" for m in sorted(leftover)
                               if not _STANDARD_MACRO.fullmatch(m)))
    cmds = {}
    for target, macros in MSVC_TARGETS.items():
        cmds[target] = [*_pp_base(), "-include", str(prelude),
                        *(f"-D{k}={v}" for k, v in macros.items()), *BUILD_DEFINES,
                        f"-I{SRC}", f"-I{stub}"]
    return tmp, cmds


# Found in the preprocessed text (comments and string literals removed):
# GCC/Clang-only spellings that MSVC rejects.
FORBIDDEN = [
    (r"\b__attribute__\b", "__attribute__"),
    (r"\b__builtin_\w+", "a GCC builtin"),
    (r"\b(?:__int128\w*|__uint128_t|__float128|_Float\d+x?)\b", "a GCC-only type"),
    (r"\b(?:asm|__asm|__asm__)\b", "inline asm"),
    (r"\b__restrict__\b", "__restrict__ (MSVC spells it __restrict)"),
    (r"\b__extension__\b", "__extension__"),
    (r"\b(?:typeof|__typeof|__typeof__|__auto_type|__label__|__thread)\b", "a GNU keyword"),
    (r"\b__(?!(?:func|attribute|restrict|extension|asm|typeof)__\b)\w+__\b",
     "a GCC/Clang __name__ identifier (keyword or predefined macro)"),
    (r"(?:(?<![\w)\]>\s])|\breturn)\s*"
     r"\((?:\s*(?:const|unsigned|signed|long|short|int|char|float|double|bool)\b)+\s*\)\s*\{",
     "a compound literal (T){...}"),
    (r"\bcase\b[^:;]*\.\.\.", "a case range"),
    (r"^\s*#\s*pragma\s+(?:GCC|clang)\b", "a GCC/Clang pragma (MSVC: warning C4068)"),
]

_LINEMARKER = re.compile(r'^#\s*(\d+)\s+"([^"]*)"')
_STRINGS = re.compile(r'"(?:[^"\\\n]|\\.)*"|\'(?:[^\'\\\n]|\\.)+\'')


def _preprocess(cmd, source, tmp):
    """source preprocessed by cmd, with a probe after it: (text, stderr)."""
    wrapper = tmp / ("tu_" + re.sub(r"\W", "_", str(source)) + ".cpp")
    wrapper.write_text(f'#include "{source}"\n'
                       "#if defined(NR_HAVE_HOST_SIMD)\nnr_probe_host_simd_entered\n#endif\n")
    proc = subprocess.run([*cmd, str(wrapper)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, f"preprocessing {source.name} failed:\n{proc.stderr}"
    return proc.stdout, proc.stderr


def _offences(text):
    """(file:line, what, the line) for each forbidden construct in text."""
    found = []
    where, line = "?", 0
    for raw in text.splitlines():
        m = _LINEMARKER.match(raw)
        if m:
            line, where = int(m.group(1)) - 1, m.group(2)
            continue
        line += 1
        code = _STRINGS.sub('""', raw)
        for pattern, what in FORBIDDEN:
            if re.search(pattern, code):
                found.append(f"{os.path.relpath(where, ROOT)}:{line}: {what}: {raw.strip()[:160]}")
    return found


def _ids(paths):
    return [str(p.relative_to(SRC)) for p in paths]


@needs_cpp
@pytest.mark.parametrize("target", sorted(MSVC_TARGETS))
def test_preprocessor_acts_as_msvc(msvc_pp, target):
    """GCC's (or Clang's) predefined set is really gone: only the standard's
    macros and MSVC's are defined, so no __GNUC__/__clang__/__x86_64__
    branch can be taken."""
    tmp, cmds = msvc_pp
    defined = _defined_macros(cmds[target], tmp)
    assert not [m for m in _GNU_MACROS if m in defined]
    extra = {m for m in defined if not _STANDARD_MACRO.fullmatch(m)}
    assert extra == set(MSVC_TARGETS[target]) | {"NPY_TARGET_VERSION", "NPY_NO_DEPRECATED_API"}


@needs_cpp
def test_the_check_finds_gnu_constructs(msvc_pp, tmp_path):
    """The scan is not vacuous: unguarded GNU code, and a GNU branch that
    only -undef keeps out, are caught or left out as they should be."""
    _, cmds = msvc_pp
    src = tmp_path / "gnu.cpp"
    src.write_text("#define NR_A inline __attribute__((always_inline))\n"
                   "NR_A double f(double a) { return __builtin_fma(a, a, a); }\n"
                   "void g(char *p) { __builtin_prefetch(p); }\n"
                   "const char *v = __VERSION__;\n"
                   "long double z = (long double){};\n"
                   "void h(double &x) { asm(\"\" : \"+x\"(x)); }\n"
                   "#if defined(__GNUC__)\nint gnu_only __attribute__((unused));\n#endif\n")
    text, _ = _preprocess(cmds["x64"], src, tmp_path)
    found = "\n".join(_offences(text))
    for what in ("__attribute__", "a GCC builtin", "__name__ identifier", "compound literal",
                 "inline asm"):
        assert what in found
    assert "gnu_only" not in text
    assert len(_offences(text)) == 6


@needs_cpp
@pytest.mark.parametrize("target", sorted(MSVC_TARGETS))
@pytest.mark.parametrize("source", SOURCES + HEADERS, ids=_ids(SOURCES + HEADERS))
def test_no_gnu_construct_reaches_msvc(msvc_pp, target, source):
    tmp, cmds = msvc_pp
    text, _ = _preprocess(cmds[target], source, tmp)
    offences = _offences(text)
    assert not offences, (f"{len(offences)} GNU-only constructs reach MSVC ({target}) "
                          f"from {source.name}:\n" + "\n".join(offences[:40]))
    # The x86 SIMD kernels (simd.hpp, GCC/Clang vector extensions) stay out.
    assert "nr_probe_host_simd_entered" not in text
    assert _stub_marker("immintrin.h") not in text


@needs_cpp
@pytest.mark.parametrize("target", sorted(MSVC_TARGETS))
def test_msvc_takes_its_own_branches(msvc_pp, target):
    """The portable fallbacks are what MSVC gets: __forceinline for
    NR_HD_ALWAYS, std::fma, _mm_prefetch on x86/x64 only."""
    tmp, cmds = msvc_pp
    text, _ = _preprocess(cmds[target], SRC / "ufuncs.cpp", tmp)
    assert "__forceinline" in text
    assert "std::fma(" in text
    assert ("_mm_prefetch(" in text) == (target != "arm64")
    assert (_stub_marker("xmmintrin.h") in text) == (target != "arm64")
    assert '"MSVC " "194033811"' in _preprocess(cmds[target], SRC / "module.cpp", tmp)[0]


# ---------------------------------------------------------------------------
# The traits' MSVC branches compiled (Clang in MSVC mode)
# ---------------------------------------------------------------------------

def _find_clang():
    found = shutil.which("clang++")
    if found:
        return found
    versioned = []  # Debian's clang++-14, clang++-22 ...: the newest
    for d in os.environ.get("PATH", "").split(os.pathsep):
        if os.path.isdir(d):
            versioned += [p for p in pathlib.Path(d).glob("clang++-*")
                          if p.name.split("-")[-1].isdigit() and os.access(p, os.X_OK)]
    if not versioned:
        return None
    return str(max(versioned, key=lambda p: int(p.name.split("-")[-1])))


CLANG = _find_clang()

# The traits (library-free but <cmath>), every traits struct with a long
# double or float64 instantiation that the extension registers.
_TRAITS_TU = """\
#include "traits/argminmax.hpp"
#include "traits/comoments.hpp"
#include "traits/fminfmax.hpp"
#include "traits/logsumexp.hpp"
#include "traits/minmax.hpp"
#include "traits/moments.hpp"
#include "traits/twosum.hpp"
#include "traits/wmoments.hpp"
#if !defined(_MSC_VER) || defined(__GNUC__) || defined(__clang__)
#error not compiled as MSVC
#endif
static_assert(sizeof(long double) == 8, "MSVC's long double is binary64");
template struct nr::TwoSum<long double, long double>;
template struct nr::TwoSum<double, double>;
template struct nr::TwoSum<float, float, nr::square_map>;
template struct nr::SumProd<long double, long double>;
template struct nr::SumProd<float, double>;
template struct nr::MaxSumExp<long double, long double>;
template struct nr::MaxSumExp<double, double>;
template struct nr::MaxSumExpB<double, double>;
long double f(long double a, long double b) {
    long double p, e;
    nr::two_prod(a, b, p, e);
    return p + e + nr::fused_mul_add(a, b, a);
}
double g(double a) { return nr::rounded_square(a) + nr::fused_mul_add(a, a, a); }
float h(float a) { return nr::rounded_square(a) + nr::fused_mul_add(a, a, a); }
"""
# <cmath> for that target: the declarations the traits use (no MSVC STL here).
_CMATH_STUB = """\
#pragma once
namespace std {
float fma(float, float, float);
double fma(double, double, double);
long double fma(long double, long double, long double);
double exp(double);
long double exp(long double);
double log(double);
long double log(long double);
}
"""


@pytest.mark.skipif(CLANG is None, reason="no clang++ on this machine (the MSVC-mode check "
                    "of the traits uses Clang's x86_64-pc-windows-msvc target)")
def test_traits_compile_as_msvc(tmp_path):
    """The traits' MSVC branches (NR_HD_ALWAYS as __forceinline, std::fma,
    the volatile NR_OPAQUE_FP, long double as binary64) are valid C++: Clang
    in MSVC mode (x86_64-pc-windows-msvc, -fms-compatibility) with its own
    __clang__ undefined, so every #if takes MSVC's branch."""
    inc = tmp_path / "inc"
    inc.mkdir()
    (inc / "cmath").write_text(_CMATH_STUB)
    tu = tmp_path / "traits.cpp"
    tu.write_text(_TRAITS_TU)
    proc = subprocess.run([CLANG, "--target=x86_64-pc-windows-msvc", "-fms-compatibility",
                           "-fms-extensions", "-U__clang__", "-Wno-builtin-macro-redefined",
                           "-std=c++17", "-fsyntax-only", "-nostdinc", f"-I{inc}", f"-I{SRC}",
                           str(tu)], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-6000:]


# ---------------------------------------------------------------------------
# MinGW-w64
# ---------------------------------------------------------------------------

def _find_mingw():
    for name in ("x86_64-w64-mingw32-g++-posix", "x86_64-w64-mingw32-g++"):
        path = shutil.which(name)
        if path:
            return path
    return None


MINGW = _find_mingw()

# Windows x64 (LLP64) for Python.h: the facts CPython's PC/pyconfig.h states
# for a 64-bit Windows build with a GNU compiler, as far as the headers need.
_PYCONFIG_WIN64 = """\
#ifndef Py_CONFIG_H
#define Py_CONFIG_H
/* numreduce tests: a stand-in for CPython's Windows pyconfig.h (x64). */
#define MS_WIN32
#define MS_WIN64
#define MS_WINDOWS
#define NT_THREADS
#define WITH_THREAD
#define Py_ENABLE_SHARED 1
#define HAVE_DECLSPEC_DLL
#define PLATFORM "win32"
#define LONG_BIT 32
#define SIZEOF_SHORT 2
#define SIZEOF_INT 4
#define SIZEOF_LONG 4
#define SIZEOF_LONG_LONG 8
#define SIZEOF_FLOAT 4
#define SIZEOF_DOUBLE 8
#define SIZEOF_VOID_P 8
#define SIZEOF_SIZE_T 8
#define SIZEOF_TIME_T 8
#define SIZEOF_OFF_T 4
#define SIZEOF_FPOS_T 8
#define SIZEOF_WCHAR_T 2
#define HAVE_SSIZE_T 1
#define HAVE_UINTPTR_T 1
#define HAVE_INTPTR_T 1
#define PY_LONG_LONG long long
#define WITH_DOC_STRINGS 1
#define WITH_PYMALLOC 1
#include <stdio.h>
#endif
"""
# NumPy's configuration header for the target, from the compiler's own sizes.
_NUMPYCONFIG = """\
/* numreduce tests: numpy/_numpyconfig.h for the target compiler's sizes. */
#define NPY_SIZEOF_SHORT __SIZEOF_SHORT__
#define NPY_SIZEOF_INT __SIZEOF_INT__
#define NPY_SIZEOF_LONG __SIZEOF_LONG__
#define NPY_SIZEOF_FLOAT __SIZEOF_FLOAT__
#define NPY_SIZEOF_COMPLEX_FLOAT (2 * __SIZEOF_FLOAT__)
#define NPY_SIZEOF_DOUBLE __SIZEOF_DOUBLE__
#define NPY_SIZEOF_COMPLEX_DOUBLE (2 * __SIZEOF_DOUBLE__)
#define NPY_SIZEOF_LONGDOUBLE __SIZEOF_LONG_DOUBLE__
#define NPY_SIZEOF_COMPLEX_LONGDOUBLE (2 * __SIZEOF_LONG_DOUBLE__)
#define NPY_SIZEOF_PY_INTPTR_T __SIZEOF_POINTER__
#define NPY_SIZEOF_INTP __SIZEOF_POINTER__
#define NPY_SIZEOF_UINTP __SIZEOF_POINTER__
#define NPY_SIZEOF_WCHAR_T __SIZEOF_WCHAR_T__
#define NPY_SIZEOF_OFF_T 4
#define NPY_SIZEOF_PY_LONG_LONG __SIZEOF_LONG_LONG__
#define NPY_SIZEOF_LONGLONG __SIZEOF_LONG_LONG__
#define NPY_NO_SMP 0
#define NPY_VISIBILITY_HIDDEN
#define NPY_ABI_VERSION 0x02000000
#define NPY_API_VERSION 0x00000015
"""


@pytest.fixture(scope="module")
def mingw(tmp_path_factory):
    """The MinGW-w64 compile command (sources appended), or a skip."""
    if MINGW is None:
        pytest.skip("MinGW-w64 is not installed (x86_64-w64-mingw32-g++; Debian: apt install "
                    "g++-mingw-w64-x86-64)")
    tmp = tmp_path_factory.mktemp("mingw")
    probe = tmp / "thread.cpp"
    probe.write_text("#include <thread>\nvoid f() { std::thread t([] {}); t.join(); }\n")
    proc = subprocess.run([MINGW, "-std=c++17", "-fsyntax-only", str(probe)],
                          capture_output=True, text=True, timeout=120)
    if proc.returncode != 0:
        pytest.skip(f"{MINGW} has no std::thread (the win32 thread model of GCC < 13); "
                    "install the posix one (x86_64-w64-mingw32-g++-posix)")
    py = tmp / "python"
    shutil.copytree(sysconfig.get_paths()["include"], py)
    (py / "pyconfig.h").write_text(_PYCONFIG_WIN64)
    npy = tmp / "numpy"
    shutil.copytree(np.get_include(), npy)
    (npy / "numpy" / "_numpyconfig.h").write_text(_NUMPYCONFIG)
    return [MINGW, "-std=c++17", "-fsyntax-only", "-Wno-psabi", *BUILD_DEFINES, f"-I{SRC}",
            f"-I{py}", f"-I{npy}"]


@pytest.mark.parametrize("long_double", ["80-bit", "64-bit"])
@pytest.mark.parametrize("source", SOURCES, ids=_ids(SOURCES))
def test_mingw_w64_compiles(mingw, source, long_double):
    """Every translation unit compiles for Windows x64 with MinGW-w64's g++;
    "64-bit": with MSVC's long double (binary64, -mlong-double-64)."""
    extra = ["-mlong-double-64"] if long_double == "64-bit" else []
    proc = subprocess.run([*mingw, *extra, str(source)], capture_output=True, text=True,
                          timeout=600)
    errors = [ln for ln in proc.stderr.splitlines() if "error" in ln]
    assert proc.returncode == 0, "\n".join(errors[:30]) or proc.stderr[-4000:]
