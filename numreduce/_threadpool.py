"""threadpoolctl support: numreduce's threads as one of the pools that
``threadpoolctl.threadpool_info()`` lists and ``threadpool_limits`` limits,
without importing threadpoolctl.

threadpoolctl finds pools in the shared libraries loaded in the process:
one ``LibController`` subclass per kind of library, matched by the file
name's prefix and checked by the symbols it exports; another package adds
its own with ``threadpoolctl.register`` (threadpoolctl's extension point).
numreduce's compiled core (``numreduce/_core*.so``) exports
``numreduce_get_num_threads`` and ``numreduce_set_num_threads``
(src/numreduce/engine.cpp), and the controller below calls them through
ctypes.  They read and set the count only: whether the user chose it is left
as it was, so ``threadpool_limits`` restores exactly the state it found
(and Dask tasks keep taking one thread under the default).

The controller is registered when threadpoolctl is imported: at once where
it is imported already, otherwise by an import hook (a finder at the front
of ``sys.meta_path`` that answers only for the name ``threadpoolctl``, lets
the other finders find it, and registers after the module ran; it then
takes itself out).

Layer: rules (imports ``_version`` only).
"""

from __future__ import annotations

import sys

_MODULE = "threadpoolctl"
_SYMBOLS = ("numreduce_get_num_threads", "numreduce_set_num_threads")
_registered: set = set()  # id() of the threadpoolctl modules registered with


def _controller_class(threadpoolctl):
    """numreduce's LibController subclass for this threadpoolctl module."""

    class NumreduceController(threadpoolctl.LibController):
        user_api = "numreduce"
        internal_api = "numreduce"
        # numreduce/_core.cpython-*.so; other packages' _core modules lack
        # the symbols and are passed over (check_symbols)
        filename_prefixes = ("_core",)
        check_symbols = _SYMBOLS

        def _fn(self, name):
            return getattr(self.dynlib, name, None)

        def get_num_threads(self):
            get = self._fn(_SYMBOLS[0])
            return None if get is None else int(get())

        def set_num_threads(self, num_threads):
            set_ = self._fn(_SYMBOLS[1])
            if set_ is not None:
                set_(int(num_threads))

        def get_version(self):
            # (called for any "_core" library before its symbols are checked)
            if self._fn(_SYMBOLS[0]) is None:
                return None
            from ._version import __version__

            return __version__

    return NumreduceController


def _register(module) -> None:
    if id(module) in _registered or not hasattr(module, "register") \
            or not hasattr(module, "LibController"):
        return  # a threadpoolctl without the extension point (before 3.0)
    module.register(_controller_class(module))
    _registered.add(id(module))


class _Loader:
    """threadpoolctl's own loader, registering numreduce after the module ran."""

    def __init__(self, loader):
        self._loader = loader

    def create_module(self, spec):
        return self._loader.create_module(spec)

    def exec_module(self, module):
        self._loader.exec_module(module)
        _uninstall()
        try:
            _register(module)
        except Exception as exc:  # noqa: BLE001 - never break threadpoolctl's import
            import warnings

            warnings.warn(f"numreduce: could not register with threadpoolctl: {exc!r}",
                          RuntimeWarning, stacklevel=2)

    def __getattr__(self, name):  # get_source, get_filename, ... as the loader's
        return getattr(self._loader, name)


class _Finder:
    """Finds nothing itself: for ``threadpoolctl`` it asks the finders after
    it and wraps the spec's loader."""

    @classmethod
    def find_spec(cls, fullname, path=None, target=None):
        if fullname != _MODULE:
            return None
        for finder in list(sys.meta_path):
            if finder is cls or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(fullname, path, target)
            if spec is not None:
                if spec.loader is not None and hasattr(spec.loader, "exec_module"):
                    spec.loader = _Loader(spec.loader)
                return spec
        return None


def _uninstall() -> None:
    try:
        sys.meta_path.remove(_Finder)
    except ValueError:
        pass


def install() -> None:
    """Register with threadpoolctl now if it is imported, else when it is.

    ``python -m threadpoolctl -i numreduce`` runs threadpoolctl as
    ``__main__``: that module is registered with too."""
    main = sys.modules.get("__main__")
    modules = [sys.modules.get(_MODULE)]
    if getattr(getattr(main, "__spec__", None), "name", None) == _MODULE:
        modules.append(main)
    for module in modules:
        if module is None:
            continue
        try:
            _register(module)
        except Exception as exc:  # noqa: BLE001 - never break numreduce's import
            import warnings

            warnings.warn(f"numreduce: could not register with threadpoolctl: {exc!r}",
                          RuntimeWarning, stacklevel=2)
    if modules[0] is None and _Finder not in sys.meta_path:
        sys.meta_path.insert(0, _Finder)
