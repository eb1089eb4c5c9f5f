# novelapi plain-data codec (trusted; copied read-only to /job/plaindata.py).
#
# Values cross between the completion's process and the judge's process
# (docs/threat-model.md) as pickles that the judge decodes with an
# allow-list unpickler: a pickle may name only builtin data types, a fixed
# set of standard-library classes, classes of the allowed libraries, and a
# fixed set of reconstruction functions of numpy and pandas; it can call
# only those, and only in the ways their own pickles do. Anything else a
# completion holds (its functions, classes, instances, subclasses of
# library types) crosses as a persistent id: a handle that the judge turns
# into a proxy object (runner.py Remote), or, for a subclass of a builtin
# data type, its plain base value. Modules cross by name and library
# functions by reference, so the judge's objects are always its own.
#
# The encoder runs in the completion's process and is only advisory: the
# completion may replace it or write any bytes it likes. The decoder runs in
# the judge, before any other use of the data, and is the check.
import base64
import builtins
import collections
import datetime
import decimal
import fractions
import importlib
import io
import pickle
import sys
import types

_PLAIN = (int, float, complex, str, bytes, bool, type(None), list, tuple, dict, set, frozenset,
          bytearray, range, slice)

# Standard-library classes a pickle may name and call (their pickles call
# them: REDUCE with the class).
_STDLIB_CLASSES = {
    ("builtins", "complex"), ("builtins", "range"), ("builtins", "slice"), ("builtins", "bytearray"),
    ("builtins", "set"), ("builtins", "frozenset"), ("builtins", "list"), ("builtins", "dict"),
    ("builtins", "tuple"), ("builtins", "int"), ("builtins", "float"), ("builtins", "str"),
    ("builtins", "bytes"), ("builtins", "bool"), ("builtins", "object"),
    ("datetime", "date"), ("datetime", "time"), ("datetime", "datetime"), ("datetime", "timedelta"),
    ("datetime", "timezone"), ("decimal", "Decimal"), ("fractions", "Fraction"),
    ("collections", "OrderedDict"), ("collections", "defaultdict"), ("collections", "deque"),
    ("collections", "Counter"),
}

# Reconstruction functions the libraries' pickles call, by module and name
# (numpy 1.x and 2.x, pandas 1.x and 2.x). Each builds a value from data
# and touches no file, module or global state.
_SAFE_FUNCS = {
    ("numpy._core.multiarray", "_reconstruct"), ("numpy.core.multiarray", "_reconstruct"),
    ("numpy._core.multiarray", "scalar"), ("numpy.core.multiarray", "scalar"),
    ("numpy._core.numeric", "_frombuffer"), ("numpy.core.numeric", "_frombuffer"),
    ("numpy.ma.core", "_mareconstruct"),
    ("numpy.random._pickle", "__generator_ctor"), ("numpy.random._pickle", "__randomstate_ctor"),
    ("numpy.random._pickle", "__bit_generator_ctor"),
    ("numpy.random.bit_generator", "__pyx_unpickle_SeedSequence"),
    ("pandas._libs.arrays", "__pyx_unpickle_NDArrayBacked"),
    ("pandas._libs.internals", "_unpickle_block"),
    ("pandas.core.internals.blocks", "new_block"),
    ("pandas.core.indexes.base", "_new_Index"),
    ("pandas.core.indexes.datetimes", "_new_DatetimeIndex"),
    ("pandas.core.indexes.interval", "_new_IntervalIndex"),
    ("pandas.core.indexes.period", "_new_PeriodIndex"),
    ("pandas._libs.tslibs.nattype", "__nat_unpickle"),
    ("pandas._libs.tslibs.timedeltas", "_timedelta_unpickle"),
    ("pandas._libs.tslibs.timestamps", "_unpickle_timestamp"),
    ("pytz", "_p"), ("pytz", "_UTC"),
}

# Top-level packages whose classes a pickle may name, besides the task's
# own libraries (Codec tops).
BASE_TOPS = ("numpy", "pandas", "scipy", "pytz", "dateutil")

# Modules of those packages whose classes touch files, load pickles,
# evaluate expressions or change global state; never named.
_DENIED = (
    "numpy.lib.npyio", "numpy.lib._npyio_impl", "numpy.lib._datasource", "numpy.lib.format",
    "numpy.lib._format_impl", "numpy._core.memmap", "numpy.core.memmap", "numpy.ctypeslib",
    "numpy.testing", "numpy.distutils", "numpy.f2py", "numpy._pytesttester", "numpy.lib.utils",
    "pandas.io", "pandas.core.computation", "pandas.plotting", "pandas.util", "pandas._testing",
    "pandas._config", "pandas.tests", "scipy.io", "scipy.datasets", "scipy._lib._ccallback",
    "scipy._lib._testutils", "scipy.misc",
)

# Standard-library modules that may cross by name (module values in the
# completion's namespace); others become opaque.
_DENIED_MODULES = {"antigravity", "this", "idlelib", "tkinter", "turtle", "turtledemo", "webbrowser",
                   "pydoc", "ensurepip", "venv", "pdb", "code", "codeop"}


class RefusedError(pickle.UnpicklingError):
    """A pickle named or called something outside the allow-list."""


def _ident_path(s):
    return isinstance(s, str) and s != "" and all(p.isidentifier() for p in s.split("."))


def _denied(module):
    return any(module == d or module.startswith(d + ".") for d in _DENIED) or ".tests" in module


class Codec:
    """The allow-list of one task: BASE_TOPS plus the task's libraries."""

    def __init__(self, tops=(), refs=()):
        self.tops = frozenset(BASE_TOPS) | frozenset(t for t in tops if _ident_path(t))
        self.refs = frozenset(refs)

    def resolve(self, module, name, callable_ok):
        """The object module.name if the allow-list admits it, else raise
        RefusedError. callable_ok admits library functions (by reference,
        never called by the decoder)."""
        if (module, name) in _STDLIB_CLASSES or (module, name) in _SAFE_FUNCS:
            return _walk(importlib.import_module(module), name)
        if not _ident_path(module) or not _ident_path(name) or any(p.startswith("__") for p in name.split(".")):
            raise RefusedError("refused name %s.%s" % (module, name))
        top = module.split(".")[0]
        if top not in self.tops or _denied(module):
            raise RefusedError("refused %s.%s" % (module, name))
        try:
            obj = _walk(importlib.import_module(module), name)
        except BaseException as e:
            raise RefusedError("cannot resolve %s.%s: %s" % (module, name, type(e).__name__))
        if isinstance(obj, type):
            if _denied(getattr(obj, "__module__", "") or ""):
                raise RefusedError("refused class %s.%s" % (module, name))
            return obj
        if isinstance(obj, types.ModuleType):
            raise RefusedError("refused module %s.%s" % (module, name))
        if callable(obj) and not callable_ok:
            raise RefusedError("refused callable %s.%s" % (module, name))
        return obj

    def ref(self, path):
        """The object a dotted path names, when a value may be a reference
        to it: a monitored target or alias (refs), a class, or a numpy
        ufunc of an allowed package; else RefusedError. Other functions
        cross as handles, so that the judge never holds a library function
        the completion chose (a loader the test might call with the
        completion's data)."""
        if not _ident_path(path):
            raise RefusedError("bad reference")
        parts = path.split(".")
        top = parts[0]
        if top not in self.tops and top != "builtins" and path not in self.refs:
            raise RefusedError("refused reference %s" % path)
        for i in range(len(parts) - 1, 0, -1):
            mod = ".".join(parts[:i])
            if _denied(mod):
                break
            try:
                m = importlib.import_module(mod)
            except BaseException:
                continue
            if any(p.startswith("__") for p in parts[i:]):
                break
            try:
                obj = _walk(m, ".".join(parts[i:]))
            except BaseException:
                break
            if path in self.refs and not isinstance(obj, types.ModuleType):
                return obj
            if isinstance(obj, type) and not _denied(getattr(obj, "__module__", "") or ""):
                return obj
            if type(obj).__name__ == "ufunc" and top in self.tops:
                return obj
            break
        raise RefusedError("refused reference %s" % path)

    def module(self, name):
        """The module name if it may cross by name, else None."""
        if not _ident_path(name):
            return None
        top = name.split(".")[0]
        if top in _DENIED_MODULES or not (top in self.tops or top in _stdlib()) or _denied(name):
            return None
        try:
            return importlib.import_module(name)
        except BaseException:
            return None


def _stdlib():
    return getattr(sys, "stdlib_module_names", frozenset())


def _walk(obj, dotted):
    for p in dotted.split("."):
        obj = getattr(obj, p)
    return obj


# --- the judge's decoder ---

_P = pickle._Unpickler


class Decoder(_P):
    """An allow-list unpickler (a subclass of pickle's pure-Python
    unpickler with its opcode table narrowed). persistent is called with
    each persistent id and returns its object."""

    dispatch = dict(_P.dispatch)

    def __init__(self, data, codec, persistent):
        super().__init__(io.BytesIO(data))
        self._codec = codec
        self._persistent = persistent
        self._safe = {}  # id -> object: the reconstruction functions named so far

    def find_class(self, module, name):
        obj = self._codec.resolve(module, name, callable_ok=(module, name) in _SAFE_FUNCS)
        if (module, name) in _SAFE_FUNCS:
            self._safe[id(obj)] = obj
        return obj

    def persistent_load(self, pid):
        return self._persistent(pid)

    def _refuse(self):
        raise RefusedError("refused opcode")

    def _reduce(self):
        args = self.stack.pop()
        func = self.stack[-1]
        if not self._callable_ok(func):
            raise RefusedError("refused call of %r" % (getattr(func, "__qualname__", type(func).__name__),))
        if type(args) is not tuple:
            raise RefusedError("bad REDUCE arguments")
        self.stack[-1] = func(*args)

    def _callable_ok(self, func):
        if self._safe.get(id(func)) is func:
            return True
        if not isinstance(func, type):
            return False
        key = (getattr(func, "__module__", ""), getattr(func, "__qualname__", ""))
        if key in _STDLIB_CLASSES:
            return True
        mod = key[0] or ""
        return mod.split(".")[0] in self._codec.tops and not _denied(mod)

    def _newobj(self):
        args = self.stack.pop()
        cls = self.stack.pop()
        self._check_class(cls)
        if type(args) is not tuple:
            raise RefusedError("bad NEWOBJ arguments")
        self.append(cls.__new__(cls, *args))

    def _newobj_ex(self):
        kwargs = self.stack.pop()
        args = self.stack.pop()
        cls = self.stack.pop()
        self._check_class(cls)
        if type(args) is not tuple or type(kwargs) is not dict:
            raise RefusedError("bad NEWOBJ_EX arguments")
        self.append(cls.__new__(cls, *args, **kwargs))

    def _check_class(self, cls):
        if not isinstance(cls, type):
            raise RefusedError("NEWOBJ of a non-class")
        mod = getattr(cls, "__module__", "") or ""
        if (mod, getattr(cls, "__qualname__", "")) in _STDLIB_CLASSES:
            return
        if mod.split(".")[0] not in self._codec.tops or _denied(mod):
            raise RefusedError("refused class %s" % mod)

    def _build(self):
        state = self.stack.pop()
        inst = self.stack[-1]
        setstate = getattr(type(inst), "__setstate__", None)
        if setstate is not None:
            setstate(inst, state)
            return
        slotstate = None
        if isinstance(state, tuple) and len(state) == 2:
            state, slotstate = state
        for part in (state, slotstate):
            if not part:
                continue
            if type(part) is not dict:
                raise RefusedError("bad BUILD state")
            for k, v in part.items():
                if type(k) is not str:
                    raise RefusedError("bad BUILD key")
                # No instance attribute may shadow a method of the class:
                # library code would call it.
                if callable(getattr(type(inst), k, None)):
                    raise RefusedError("BUILD shadows %s" % k)
                if part is state and hasattr(inst, "__dict__"):
                    inst.__dict__[k] = v
                else:
                    setattr(inst, k, v)


for _op in (pickle.INST, pickle.OBJ, pickle.EXT1, pickle.EXT2, pickle.EXT4):
    Decoder.dispatch[_op[0]] = Decoder._refuse
Decoder.dispatch[pickle.REDUCE[0]] = Decoder._reduce
Decoder.dispatch[pickle.NEWOBJ[0]] = Decoder._newobj
Decoder.dispatch[pickle.NEWOBJ_EX[0]] = Decoder._newobj_ex
Decoder.dispatch[pickle.BUILD[0]] = Decoder._build
for _name in ("NEXT_BUFFER", "READONLY_BUFFER"):
    if hasattr(pickle, _name):
        Decoder.dispatch[getattr(pickle, _name)[0]] = Decoder._refuse


def decode(data, codec, persistent):
    """The value pickled in data, through the allow-list (RefusedError or
    another exception when data is not an admissible pickle)."""
    return Decoder(data, codec, persistent).load()


# --- the completion-side encoder (advisory) ---


def _plain_base(o, t):
    # The value of an instance of a subclass of a builtin data type, built
    # with the base type's own methods.
    for base, conv in ((bool, None), (int, lambda x: int.__index__(x)), (float, lambda x: float.__float__(x)),
                       (complex, lambda x: complex.__complex__(x)), (str, lambda x: str.__str__(x)),
                       (bytes, lambda x: bytes.__bytes__(x) if hasattr(bytes, "__bytes__") else bytes(memoryview(x))),
                       (tuple, lambda x: tuple.__getitem__(x, slice(None))),
                       (list, lambda x: list.__getitem__(x, slice(None))),
                       (dict, lambda x: dict.copy(x)), (set, lambda x: set.copy(x)),
                       (frozenset, lambda x: frozenset(frozenset.__iter__(x)))):
        if conv is not None and base in t.__mro__:
            return True, conv(o)
    return False, None


class Encoder(pickle._Pickler):
    """Pickles a value of the completion's process for the judge. handle
    registers an object that cannot cross as data and returns its id;
    spies maps id(spy) to the target path it watches. (The pure-Python
    pickler: it lets persistent_id tell a reduction's function, which
    must stay a global, from a function that is a value.)

    With parts set, each object of a library class is first pickled alone
    and decoded as the judge would; one the allow-list refuses (a re.Pattern,
    whose pickle calls re._compile) crosses as a handle, and the value around
    it as data. Without it such an object makes the whole pickle refused."""

    def __init__(self, f, codec, handle, spies, parts=False, top=None):
        super().__init__(f, protocol=4)
        self._codec = codec
        self._handle = handle
        self._spies = spies
        self._rfunc = None
        self._parts = parts
        self._top = top

    def save_reduce(self, func, args, *rest, **kw):
        prev, self._rfunc = self._rfunc, func
        try:
            return super().save_reduce(func, args, *rest, **kw)
        finally:
            self._rfunc = prev

    def persistent_id(self, obj):
        if obj is self._rfunc:
            self._rfunc = None
            return None
        t = type(obj)
        if t in _PLAIN:
            return None
        path = self._spies.get(id(obj))
        if path is not None:
            return ("ref", path)
        if issubclass(t, types.ModuleType):
            name = obj.__dict__.get("__name__") if hasattr(obj, "__dict__") else None
            return ("mod", name if type(name) is str else "")
        if isinstance(obj, type):
            mod = getattr(obj, "__module__", "") or ""
            key = (mod, getattr(obj, "__qualname__", ""))
            if (key in _STDLIB_CLASSES or mod.split(".")[0] in self._codec.tops) and _library_type(obj):
                return None
            return ("h", self._handle(obj), tname(t))
        if t.__name__ == "ufunc":
            ref = self._ref(obj)
            if ref is not None:
                return ref
        if callable(obj) and isinstance(obj, (types.FunctionType, types.BuiltinFunctionType, types.MethodType)) or \
                t.__name__ == "ufunc":
            return ("h", self._handle(obj), tname(t))
        tensor = _tensor_pid(obj, t, self._codec)
        if tensor is not None:
            return tensor
        mod = getattr(t, "__module__", "") or ""
        lib = (mod.split(".")[0] in self._codec.tops or (mod, getattr(t, "__qualname__", "")) in _STDLIB_CLASSES) \
            and not _denied(mod)
        if lib and (_library_type(t) or _numpy_dtype_class(t)):
            if self._parts and obj is not self._top and not self._admitted(obj):
                return ("h", self._handle(obj), tname(t))
            return None
        if tuple in t.__mro__:
            fields = getattr(t, "_fields", None)
            if type(fields) is tuple and all(type(f) is str for f in fields) and len(fields) == tuple.__len__(obj):
                # A namedtuple: the judge makes its own class of that name
                # and fields.
                return ("nt", str(t.__name__), fields, tuple.__getitem__(obj, slice(None)))
        ok, base = _plain_base(obj, t)
        if ok:
            return ("plain", base)
        nd = sys.modules.get("numpy")
        if nd is not None and nd.ndarray in t.__mro__:
            # A completion's subclass of ndarray crosses as its data.
            return ("plain", nd.ndarray.view(obj, nd.ndarray))
        return ("h", self._handle(obj), tname(t))

    def _admitted(self, obj):
        # Whether obj alone, its own parts judged the same way, pickles
        # into something the judge's decoder accepts.
        try:
            f = io.BytesIO()
            Encoder(f, self._codec, self._handle, self._spies, True, obj).dump(obj)
            decode(f.getvalue(), self._codec, _no_pid)
            return True
        except BaseException:
            return False

    def _ref(self, obj):
        mod = getattr(obj, "__module__", None)
        name = getattr(obj, "__qualname__", None) or getattr(obj, "__name__", None)
        if type(mod) is not str or type(name) is not str or not _ident_path(mod) or not _ident_path(name):
            return None
        if mod.split(".")[0] not in self._codec.tops:
            return None
        try:
            if _walk(importlib.import_module(mod), name) is obj:
                return ("ref", mod + "." + name)
        except BaseException:
            pass
        return None


def _library_type(t):
    # t is the class its module names (not a completion class that claims
    # a library's __module__).
    try:
        return _walk(importlib.import_module(t.__module__), t.__qualname__) is t
    except BaseException:
        return False


def _numpy_dtype_class(t):
    # t is the class numpy makes for the dtypes of one scalar type. numpy
    # 1.x names them "numpy.dtype[int64]", which no module attribute holds
    # (numpy 2 has numpy.dtypes.Int64DType); DType classes cannot be
    # subclassed, and their instances pickle through numpy.dtype itself.
    nd = sys.modules.get("numpy")
    try:
        return nd is not None and issubclass(t, nd.dtype) and t is type(nd.dtype(t.type))
    except BaseException:
        return False


def _torch_classes(torch):
    return {"Tensor": torch.Tensor, "Parameter": torch.nn.Parameter}


def _tensor_pid(obj, t, codec):
    # A dense CPU tensor of torch (a task's library) crosses as its values:
    # its own pickle calls torch.storage._load_from_bytes, which runs
    # torch.load on the bytes, so the judge never decodes it. The values
    # go as a numpy array (float32 for dtypes numpy lacks, bfloat16 and
    # the float8s, exact), with the dtype's name and requires_grad.
    if "torch" not in codec.tops:
        return None
    torch = sys.modules.get("torch")
    if torch is None:
        return None
    kind = next((k for k, c in _torch_classes(torch).items() if t is c), None)
    if kind is None or obj.layout is not torch.strided or obj.device.type != "cpu" or obj.is_quantized:
        return None
    x = obj.detach().resolve_conj().resolve_neg()
    try:
        arr = x.numpy()
    except TypeError:
        arr = x.to(torch.complex64 if x.is_complex() else torch.float32).numpy()
    return ("tensor", arr.copy(), str(obj.dtype), bool(obj.requires_grad), kind)


def tensor_of(codec, arr, dtype, requires_grad, kind):
    """The judge's own torch tensor of the values a "tensor" persistent id
    carries (_tensor_pid); RefusedError when torch is not a task's
    library or the parts are not what the encoder sends."""
    torch = sys.modules.get("torch") if "torch" in codec.tops else None
    nd = sys.modules.get("numpy")
    if torch is None or nd is None or type(arr) is not nd.ndarray or arr.dtype.hasobject or \
            type(dtype) is not str or not dtype.startswith("torch.") or type(requires_grad) is not bool:
        raise RefusedError("bad tensor")
    name = dtype[len("torch."):]
    dt = getattr(torch, name, None) if _ident_path(name) else None
    cls = _torch_classes(torch).get(kind) if type(kind) is str else None
    if not isinstance(dt, torch.dtype) or cls is None:
        raise RefusedError("bad tensor")
    v = torch.from_numpy(nd.array(arr, copy=True)).to(dt)
    if cls is torch.nn.Parameter:
        return torch.nn.Parameter(v, requires_grad=requires_grad)
    if requires_grad:
        v.requires_grad_(True)
    return v


def tname(t):
    """The judge's type string of class t: "module:qualname", cut to 200
    characters ("?" for a part that is no str or that raises). Read with
    type.__getattribute__, so a metaclass's own __getattribute__ and
    __getattr__ are not consulted; the proxy's names come from it (runner.py
    _proxy_class, docs/threat-model.md §4)."""
    parts = []
    for attr in ("__module__", "__qualname__"):
        try:
            v = type.__getattribute__(t, attr)
        except BaseException:
            v = None
        parts.append(v if type(v) is str else "?")
    return (parts[0] + ":" + parts[1])[:200]


def encode(value, codec, handle, spies, parts=False):
    """The pickle of value for the judge (bytes). parts: see Encoder."""
    f = io.BytesIO()
    Encoder(f, codec, handle, spies, parts).dump(value)
    return f.getvalue()


def _no_pid(pid):
    return None


class _Pid(pickle.Pickler):
    def __init__(self, f, pid):
        super().__init__(f, protocol=4)
        self._pid = pid

    def persistent_id(self, obj):
        return self._pid if obj is self else None


def encode_pid(pid):
    """A pickle holding nothing but the persistent id pid."""
    f = io.BytesIO()
    p = _Pid(f, pid)
    p.dump(p)
    return f.getvalue()


_namedtuples = {}


def namedtuple_of(name, fields, values):
    """An instance of a namedtuple class the judge makes for name and
    fields (cached), holding values; RefusedError for bad names."""
    if not (type(name) is str and name.isidentifier() and type(fields) is tuple and type(values) is tuple and
            len(fields) == len(values) and all(type(f) is str and f.isidentifier() and not f.startswith("_")
                                               for f in fields) and len(set(fields)) == len(fields)):
        raise RefusedError("bad namedtuple")
    cls = _namedtuples.get((name, fields))
    if cls is None:
        cls = collections.namedtuple(name, fields)
        _namedtuples[(name, fields)] = cls
    return cls(*values)


def b64(data):
    return base64.b64encode(data).decode("ascii")


def unb64(s):
    return base64.b64decode(s.encode("ascii"), validate=True)
