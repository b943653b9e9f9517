// Internal: the registry of ufuncs the engine knows (numreduce's own table
// and those registered through the C API, extension.hpp), and lookups.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "loop_entry.hpp"
#include "numpy_api.hpp"

namespace nr {

// A ufunc as the registry keeps it: numreduce's table rows (ufunc nullptr)
// and the registered ufuncs (which own copies of their names, docs and
// loop entries: NumPy keeps pointers to the name and doc).
struct UFuncDef {
    std::string name;
    std::string doc;
    int nout;
    std::vector<LoopEntry> loops;
    PyObject *ufunc;  // registered: the module that holds it keeps it alive
    int nsrc = 1;     // sources per element (LoopEntry::nsrc): the ufunc's inputs where > 1
    // Another extension's ufunc: input without a loop of its own goes to the
    // first loop (registration order) it casts to safely (promote_common).
    bool safe_casts = false;
};

// scatter_rows<Tr> (loops.hpp) of numreduce's own loops, found by their
// LoopEntry::scatter: the grouped reduction of several rows sharing their
// ids in one pass (engine_scatter.cpp); nullptr for other loops (those of
// other extensions), which take one scatter call per row.
using ScatterRowsFn = npy_intp (*)(const char *x, npy_intp xstride, const npy_intp *ids,
                                   npy_intp rows, npy_intp n, npy_intp G, char *const *accs,
                                   unsigned char *seen);
void register_scatter_rows(decltype(LoopEntry::scatter) scatter, ScatterRowsFn rows);
ScatterRowsFn scatter_rows_of(const LoopEntry *entry);

// Build every ufunc of numreduce's table through register_spec and add it to
// `module`, with the registry's {ufunc: nout} dict as module._MULTI_OUTPUT.
// With `native`, every registered ufunc (numreduce's and those of other
// extensions) gets the reduction-loop and initials ArrayMethod slots too.
int register_ufuncs(PyObject *module, bool native);

// _core._has_initials(ufunc, dtype) -> bool: whether the loop of a
// registered ufunc for `dtype` has initials (an empty reduction is defined,
// `where` needs no `initial`); TypeError where there is no such loop.
PyObject *registry_has_initials(PyObject *self, PyObject *args);
// _core._scatters_sources(ufunc, dtype) -> bool: whether the loop for
// `dtype` scatters K sources in place (LoopEntry::scatter_sources, C API
// 1.2: _scatter takes them as a tuple); false for the entries of 1.0 / 1.1
// registrations, whose sources are packed.
PyObject *registry_scatters_sources(PyObject *self, PyObject *args);

// The C API's registration function (CApi::register_ufunc, extension.hpp).
struct UFuncSpec;
PyObject *register_spec(PyObject *module, const UFuncSpec *spec);
bool native_reduce();

// The loop the engine runs for `ufunc` on a stream of `in_type`, or nullptr.
const LoopEntry *find_loop(PyObject *ufunc, int in_type, int *nout, const char **name);
// Whether a reduction of `ufunc` without initials may start from a copy of
// its first element: numreduce's own ufuncs (those without initials are
// min/max, whose lift(x) is x in every output); not another extension's,
// whose lift may differ (engine.cpp's lift_into starts those).
bool first_is_state(PyObject *ufunc);

// Index-carrying (argmin, argmax) over the rows of a 2-D strided view, for
// an ordered dtype; nullptr if the dtype has no order.
using ArgRowsFn = void(const char *data, npy_intp nrows, npy_intp ncols, npy_intp srow,
                       npy_intp scol, npy_intp *lo, npy_intp *hi);
ArgRowsFn *find_arg_loop(int in_type, bool skip_nan);

// Probe whether the running NumPy accepts slots 11/12 and really uses them
// for ufunc.reduce.  Never fails: sets *reason to a human-readable verdict.
bool probe_native_reduce(std::string *reason);

}  // namespace nr
