// The registration table.  Adding a reduction = one traits header, one row
// in table(), its tests.
#include "ufuncs.hpp"

#include "loops.hpp"
#include "traits/minmax.hpp"

namespace nr {
namespace {

// resolve_descriptors for datetime64/timedelta64 (parametric in the unit):
// every operand takes the common (finest) unit, in native byte order, like
// np.minimum does.
template <int NARGS>
NPY_CASTING resolve_common_descr(struct PyArrayMethodObject_tag *, PyArray_DTypeMeta *const *,
                                 PyArray_Descr *const *given, PyArray_Descr **loop,
                                 npy_intp *) {
    PyArray_Descr *common = PyArray_PromoteTypes(given[0], given[1]);
    if (common == nullptr) return (NPY_CASTING)-1;
    if (!PyArray_ISNBO(common->byteorder)) {
        PyArray_Descr *native = PyArray_DescrNewByteorder(common, NPY_NATIVE);
        Py_DECREF(common);
        if (native == nullptr) return (NPY_CASTING)-1;
        common = native;
    }
    for (int i = 0; i < NARGS; i++) {
        Py_INCREF(common);
        loop[i] = common;
    }
    Py_DECREF(common);
    return NPY_NO_CASTING;
}

bool is_parametric(int type_num) { return type_num == NPY_DATETIME || type_num == NPY_TIMEDELTA; }

template <class Tr>
LoopEntry entry(int in_type, int out_type) {
    typename Tr::acc_t probe;
    bool has_initials = Tr::initials(probe, false) || Tr::initials(probe, true);
    return LoopEntry{in_type, out_type, &forward_loop<Tr>, &reduce_loop<Tr>,
                     &get_reduction_loop<Tr>, has_initials ? &get_initials<Tr> : nullptr,
                     is_parametric(in_type) ? &resolve_common_descr<2 + Tr::nout> : nullptr};
}

// Every dtype NumPy orders (np.minimum's dtypes less object), output = input.
template <template <class> class Tr>
std::vector<LoopEntry> ordered_dtypes() {
    return {
        entry<Tr<npy_bool>>(NPY_BOOL, NPY_BOOL),
        entry<Tr<npy_byte>>(NPY_BYTE, NPY_BYTE),
        entry<Tr<npy_ubyte>>(NPY_UBYTE, NPY_UBYTE),
        entry<Tr<npy_short>>(NPY_SHORT, NPY_SHORT),
        entry<Tr<npy_ushort>>(NPY_USHORT, NPY_USHORT),
        entry<Tr<npy_int>>(NPY_INT, NPY_INT),
        entry<Tr<npy_uint>>(NPY_UINT, NPY_UINT),
        entry<Tr<npy_long>>(NPY_LONG, NPY_LONG),
        entry<Tr<npy_ulong>>(NPY_ULONG, NPY_ULONG),
        entry<Tr<npy_longlong>>(NPY_LONGLONG, NPY_LONGLONG),
        entry<Tr<npy_ulonglong>>(NPY_ULONGLONG, NPY_ULONGLONG),
        entry<Tr<half16>>(NPY_HALF, NPY_HALF),
        entry<Tr<float>>(NPY_FLOAT, NPY_FLOAT),
        entry<Tr<double>>(NPY_DOUBLE, NPY_DOUBLE),
        entry<Tr<long double>>(NPY_LONGDOUBLE, NPY_LONGDOUBLE),
        entry<Tr<cplx<float>>>(NPY_CFLOAT, NPY_CFLOAT),
        entry<Tr<cplx<double>>>(NPY_CDOUBLE, NPY_CDOUBLE),
        entry<Tr<cplx<long double>>>(NPY_CLONGDOUBLE, NPY_CLONGDOUBLE),
        entry<Tr<datetime64>>(NPY_DATETIME, NPY_DATETIME),
        entry<Tr<timedelta64>>(NPY_TIMEDELTA, NPY_TIMEDELTA),
    };
}

std::vector<UFuncDef> &table() {
    static std::vector<UFuncDef> t = {
        {"minimummaximum",
         "minimummaximum(x1, x2, /, out=(None, None), *, where=True, ...)\n\n"
         "Element-wise (minimum, maximum) of two arrays, NaN/NaT-propagating\n"
         "exactly like ``(np.minimum(x1, x2), np.maximum(x1, x2))``.\n\n"
         "``minimummaximum.reduce(a, axis)`` (native NumPy with reduction-loop\n"
         "slots) and ``numreduce.reduce(minimummaximum, a, axis)`` (every\n"
         "NumPy 2.x) return ``(a.min(axis), a.max(axis))`` in one pass.",
         2, ordered_dtypes<MinMax>(), nullptr},
    };
    return t;
}

PyArray_DTypeMeta *dtypemeta(int type_num) {
    PyArray_Descr *d = PyArray_DescrFromType(type_num);
    if (d == nullptr) return nullptr;
    PyArray_DTypeMeta *dt = NPY_DTYPE(d);  // a static type: borrowed is fine
    Py_DECREF(d);
    return dt;
}

// Promoter: inputs (and outputs) take the common DType of the two inputs,
// unless a signature / dtype= pins one -- the way np.minimum resolves.
int promote_common(PyObject *ufunc, PyArray_DTypeMeta *const op_dtypes[],
                   PyArray_DTypeMeta *const signature[], PyArray_DTypeMeta *new_op_dtypes[]) {
    int nargs = ((PyUFuncObject *)ufunc)->nargs;
    PyArray_DTypeMeta *common = nullptr;
    for (int i = 0; i < nargs && common == nullptr; i++) {
        if (signature[i] != nullptr) {
            common = signature[i];
            Py_INCREF(common);
        }
    }
    if (common == nullptr) {
        common = PyArray_CommonDType(op_dtypes[0], op_dtypes[1]);
        if (common == nullptr) return -1;
    }
    for (int i = 0; i < nargs; i++) {
        Py_INCREF(common);
        new_op_dtypes[i] = common;
    }
    Py_DECREF(common);
    return 0;
}

int add_loop(PyObject *ufunc, const char *name, int nout, const LoopEntry &e, bool native) {
    PyArray_DTypeMeta *dtypes[2 + NPY_MAXARGS];
    PyArray_DTypeMeta *in = dtypemeta(e.in_type), *out = dtypemeta(e.out_type);
    if (in == nullptr || out == nullptr) return -1;
    dtypes[0] = dtypes[1] = in;
    for (int i = 0; i < nout; i++) dtypes[2 + i] = out;

    PyType_Slot slots[6];
    int k = 0;
    slots[k++] = {NPY_METH_strided_loop, (void *)e.forward};
    if (e.resolve != nullptr) {
        slots[k++] = {NPY_METH_resolve_descriptors, (void *)e.resolve};
    }
    if (native) {
        slots[k++] = {NPY_METH_get_reduction_loop, (void *)e.get_reduce};
        if (e.initials != nullptr) {
            slots[k++] = {NPY_METH_get_multi_reduction_initials, (void *)e.initials};
        }
    }
    slots[k++] = {0, nullptr};

    PyArrayMethod_Spec spec = {};
    spec.name = name;
    spec.nin = 2;
    spec.nout = nout;
    spec.casting = NPY_NO_CASTING;
    spec.flags = (NPY_ARRAYMETHOD_FLAGS)(NPY_METH_NO_FLOATINGPOINT_ERRORS | NPY_METH_IS_REORDERABLE);
    spec.dtypes = dtypes;
    spec.slots = slots;
    return PyUFunc_AddLoopFromSpec(ufunc, &spec);
}

int add_promoter(PyObject *ufunc, int nout) {
    PyObject *dtype_tuple = PyTuple_New(2 + nout);
    if (dtype_tuple == nullptr) return -1;
    for (int i = 0; i < 2 + nout; i++) {
        PyObject *item = i < 2 ? (PyObject *)&PyArrayDescr_Type : Py_None;
        Py_INCREF(item);
        PyTuple_SET_ITEM(dtype_tuple, i, item);
    }
    PyObject *capsule = PyCapsule_New((void *)&promote_common, "numpy._ufunc_promoter", nullptr);
    if (capsule == nullptr) {
        Py_DECREF(dtype_tuple);
        return -1;
    }
    int res = PyUFunc_AddPromoter(ufunc, dtype_tuple, capsule);
    Py_DECREF(dtype_tuple);
    Py_DECREF(capsule);
    return res;
}

PyObject *make_ufunc(const UFuncDef &def, bool native) {
    PyObject *ufunc = PyUFunc_FromFuncAndData(nullptr, nullptr, nullptr, 0, 2, def.nout,
                                              PyUFunc_None, def.name, def.doc, 0);
    if (ufunc == nullptr) return nullptr;
    for (const LoopEntry &e : def.loops) {
        if (add_loop(ufunc, def.name, def.nout, e, native) < 0) {
            Py_DECREF(ufunc);
            return nullptr;
        }
    }
    if (add_promoter(ufunc, def.nout) < 0) {
        Py_DECREF(ufunc);
        return nullptr;
    }
    return ufunc;
}

}  // namespace

int register_ufuncs(PyObject *module, bool native) {
    for (UFuncDef &def : table()) {
        PyObject *ufunc = make_ufunc(def, native);
        if (ufunc == nullptr) return -1;
        if (PyModule_AddObjectRef(module, def.name, ufunc) < 0) {
            Py_DECREF(ufunc);
            return -1;
        }
        def.ufunc = ufunc;  // the module keeps it alive; this reference too
    }
    return 0;
}

const LoopEntry *find_loop(PyObject *ufunc, int in_type, int *nout, const char **name) {
    for (const UFuncDef &def : table()) {
        if (def.ufunc != ufunc) continue;
        *nout = def.nout;
        *name = def.name;
        for (const LoopEntry &e : def.loops) {
            if (e.in_type == in_type) return &e;
        }
        return nullptr;
    }
    return nullptr;
}

bool probe_native_reduce(std::string *reason) {
    // A throwaway ufunc: whatever happens, the real ufuncs are untouched.
    UFuncDef def = {"_numreduce_probe", nullptr, 2, {entry<MinMax<double>>(NPY_DOUBLE, NPY_DOUBLE)},
                    nullptr};
    PyObject *ufunc = make_ufunc(def, /*native=*/true);
    if (ufunc == nullptr) {
        PyObject *type, *value, *tb;
        PyErr_Fetch(&type, &value, &tb);
        PyObject *msg = value ? PyObject_Str(value) : nullptr;
        *reason = std::string("NumPy rejects the reduction-loop slot (") +
                  (msg ? PyUnicode_AsUTF8(msg) : "unknown error") + ")";
        Py_XDECREF(msg);
        Py_XDECREF(type);
        Py_XDECREF(value);
        Py_XDECREF(tb);
        PyErr_Clear();
        return false;
    }
    // The slot was accepted; check that reduce really runs it.
    bool ok = false;
    npy_intp n = 3;
    PyObject *arr = PyArray_SimpleNew(1, &n, NPY_DOUBLE);
    if (arr != nullptr) {
        double *p = (double *)PyArray_DATA((PyArrayObject *)arr);
        p[0] = 3.0;
        p[1] = 1.0;
        p[2] = 2.0;
        PyObject *res = PyObject_CallMethod(ufunc, "reduce", "O", arr);
        if (res != nullptr && PyTuple_Check(res) && PyTuple_GET_SIZE(res) == 2) {
            double lo = PyFloat_AsDouble(PyTuple_GET_ITEM(res, 0));
            double hi = PyFloat_AsDouble(PyTuple_GET_ITEM(res, 1));
            ok = !PyErr_Occurred() && lo == 1.0 && hi == 3.0;
        }
        Py_XDECREF(res);
        Py_DECREF(arr);
    }
    PyErr_Clear();
    Py_DECREF(ufunc);
    *reason = ok ? "NumPy accepts NPY_METH_get_reduction_loop (11) and "
                   "NPY_METH_get_multi_reduction_initials (12); ufunc.reduce is native"
                 : "NumPy accepts slot 11 but ufunc.reduce did not use it";
    return ok;
}

}  // namespace nr
