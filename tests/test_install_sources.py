"""Every module of the package is installed: meson.build lists its Python
sources one by one, and a module missing there is missing from every
installed copy (the tests would then run against a stale or absent file)."""

import pathlib
import re

import numreduce

ROOT = pathlib.Path(__file__).resolve().parent.parent
PKG = ROOT / "numreduce"


def test_meson_build_installs_every_module():
    text = (ROOT / "meson.build").read_text(encoding="utf-8")
    listed = set(re.findall(r"'numreduce/([^'/]+)'", text))
    files = {p.name for p in PKG.iterdir() if p.suffix in (".py", ".pyi") or p.name == "py.typed"}
    missing = sorted(files - listed)
    assert not missing, f"meson.build's install_sources lacks {missing}"


def test_installed_package_has_every_module():
    installed = pathlib.Path(numreduce.__file__).resolve().parent
    files = {p.name for p in PKG.glob("*.py")}
    missing = sorted(f for f in files if not (installed / f).is_file())
    assert not missing, f"the installed numreduce lacks {missing}: reinstall it"
