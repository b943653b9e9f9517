"""Build glue for third-party reductions (the C++ extension API).

A package that writes its own reduction compiles against numreduce's public
headers (``<numreduce/extension.hpp>``, the loop templates and the traits of
numreduce's own reductions) and registers its ufunc through the C API that
``numreduce._core`` exports; see docs/extending.md.
"""

from __future__ import annotations

import os

from . import _core

#: The C API version of this numreduce, as (major, minor): an extension built
#: against headers of the same major and an equal or older minor version
#: imports it (``nr::import_numreduce()`` checks).
C_API_VERSION: tuple[int, int] = divmod(int(_core._C_API_VERSION), 1000)


def get_include() -> str:
    """The directory of numreduce's public C++ headers.

    Add it to the include path of an extension that defines its own
    reduction, beside ``numpy.get_include()``; its sources then
    ``#include <numreduce/extension.hpp>``.  In ``meson.build``::

        incdir_numreduce = run_command(py, ['-c',
            'import numreduce; print(numreduce.get_include())'],
            check: true).stdout().strip()

    Returns
    -------
    str
        An absolute path inside the installed package.

    See Also
    --------
    numpy.get_include : NumPy's headers, needed too.
    C_API_VERSION : the version of the C API these headers declare.

    Examples
    --------
    >>> import os, numreduce as nr
    >>> os.path.isfile(os.path.join(nr.get_include(), "numreduce", "extension.hpp"))
    True
    """
    return os.path.join(os.path.dirname(os.path.abspath(__file__)), "include")
