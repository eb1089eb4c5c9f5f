# --- target-API call monitor with call recording (auto-injected) ---
# novelapi's recording monitor (docs/protocol.md §4.4): the stock
# monitor's resolution and alias patching (§4.2), plus call records with
# fingerprints (fingerprint.py, prepended). The targets placeholder is replaced
# by a Python list of fully qualified target names; the first is the task's
# api_name, further ones (multi-API pools) count as the same target;
# _target_api_counts also counts the calls per target name (novelapi
# extension, for required-API recall). The aliases placeholder is replaced
# by a Python list of [path, target] pairs: further public paths of a
# target (the instances of a class, scipy.stats.triang for
# scipy.stats.distributions.triang_gen) whose calls count as calls of the
# target; an alias that cannot be resolved is skipped (novelapi extension,
# check_code).
import importlib as _spy_importlib
import sys as _spy_sys
import inspect as _spy_inspect
import json as _spy_json
import math as _spy_math
import types as _spy_types
import builtins as _spy_builtins
_target_api_names = __NOVELAPI_TARGETS__
_target_api_aliases = __NOVELAPI_ALIASES__
_target_api_name = _target_api_names[0]
_target_api_call_count = [0]
_target_api_counts = {_n: 0 for _n in _target_api_names}
_target_api_calls = []
_target_api_recording = [False]
_target_api_raised = []
_target_api_spy_installed = False
_TARGET_API_MAX_RECORDS = 200
# The nesting depth of target calls and whether the monitor is building a
# record; the sealed namespace gets its own (see _spy_seal).
_spy_depth = [0]
_spy_busy = [False]
# The instance proxies, function spies and classes patched in place made
# so far, by identity: a path that reaches one of them again (an
# instance's second public name, a method reached through an instance of a
# spied class, a class's second module) is already watched.
_spy_proxies = []
_spy_funcs = []
_spy_classes = []
# Every spy made, with the path it replaced: values that are spies cross to
# the judge as references to the real object (novelapi; runner.py).
_spy_made = []
# novelapi hardening (docs/sandbox.md §4.6, docs/threat-model.md §3.1): the
# trusted runner hands the monitor a one-shot hook that keeps the call
# counts and records the verdict uses, out of reach of names the completion
# can assign. None outside the runner. The monitor's functions run in a
# private namespace (see _spy_seal) that no object the completion can reach
# exposes; what it can reach of a spy (the spy, a spy metaclass's methods, a
# proxy's) is a trampoline whose only default is the spy's private context,
# and no default is readable.
_spy_hook = globals().pop("__novelapi_spy_hook__", None)


def _spy_recording(h):
    # Whether a call record would be kept: by the public list while
    # recording is on and it has room, or by the runner's hook.
    return (bool(_target_api_recording[0]) and len(_target_api_calls) < _TARGET_API_MAX_RECORDS) or \
        (h is not None and h.recording())


def _spy_count(name, h):
    _target_api_call_count[0] += 1
    _target_api_counts[name] += 1
    if h is not None:
        h.call(name)


def _spy_record(rec, h):
    if h is not None:
        h.record(rec)
    if _target_api_recording[0] and len(_target_api_calls) < _TARGET_API_MAX_RECORDS:
        _target_api_calls.append(rec)


def _spy_check(expected_json, h):
    # The call-record check (§4.5), called by call_check.py through
    # _spy_check_calls. It runs sealed (see _spy_seal) and reads the hook's
    # records, so a completion that patches builtins or appends to
    # _target_api_calls cannot satisfy it.
    expected = _spy_json.loads(expected_json)
    actual = h.calls() if h is not None else list(_target_api_calls)

    def match(e, a):
        if isinstance(e, dict):
            return isinstance(a, dict) and all(k in a and match(v, a[k]) for k, v in e.items())
        if isinstance(e, list):
            return isinstance(a, list) and len(a) == len(e) and all(match(x, y) for x, y in zip(e, a))
        if isinstance(e, float) and isinstance(a, (int, float)) and not isinstance(a, bool):
            return _spy_math.isclose(e, a, rel_tol=1e-6, abs_tol=1e-9)
        return e == a

    for i, e in enumerate(expected):
        if not any(match(e, a) for a in actual):
            raise AssertionError(
                "no call to the target API reproduces reference call %d/%d (%s)"
                % (i + 1, len(expected), "arguments differ" if "args" in e else "return value differ"))


def _spy_check_calls(expected_json):
    # Outside a sealed monitor (it failed): the public records.
    return _spy_check(expected_json, None)


# The trampolines: the code of every function of the monitor that an object
# the completion can reach holds (a spy, a spy metaclass's __call__ and
# __init__, a subclass spy's __init_subclass__, a proxy's __getattr__,
# _spy_check_calls). Each is made by _spy_tramp over a namespace holding
# nothing but builtins, with no closure, and hands its arguments to the
# spy's private context, its one (keyword-only) default: the completion
# reaches no monitor function, no hook and no target through it, and
# passing its own context only loses the count.
def _spy_t_function(*a, _novelapi_spy=None, **kw):
    return _novelapi_spy.run(a, kw)


def _spy_t_call(cls, *a, _novelapi_spy=None, **kw):
    return _novelapi_spy.construct(cls, a, kw)


def _spy_t_init(cls, *a, _novelapi_spy=None, **kw):
    _novelapi_spy.made(cls, a, kw)


def _spy_t_init_subclass(cls, *, _novelapi_spy=None, **kw):
    _novelapi_spy.subclass(cls, kw)


def _spy_t_getattr(self, attr, *, _novelapi_spy=None):
    return _novelapi_spy.getattr(attr)


def _spy_t_check(expected_json, *, _novelapi_spy=None):
    return _novelapi_spy.check(expected_json)


def _spy_tramp(t, ctx, name, qualname, params=None):
    # A trampoline of template t over the exposed namespace with context
    # ctx. params (names, with * and ** for the variadic ones) become its
    # __signature__, so that inspect never reads its defaults; without
    # params, inspect follows __wrapped__.
    f = _spy_types.FunctionType(t.__code__, _spy_exposed, name, None, None)
    f.__kwdefaults__ = {"_novelapi_spy": ctx}
    f.__qualname__ = qualname
    if params is not None:
        P = _spy_inspect.Parameter
        f.__signature__ = _spy_inspect.Signature([
            P(n[2:], P.VAR_KEYWORD) if n.startswith("**") else P(n[1:], P.VAR_POSITIONAL) if n.startswith("*")
            else P(n, P.POSITIONAL_OR_KEYWORD) for n in params])
    return f


def _spy_export(f):
    # f (a function of the monitor without secrets: a proxy's forwarding
    # methods, a signature getter) rebuilt over the exposed namespace, so
    # its __globals__ reach nothing of the monitor.
    e = _spy_types.FunctionType(f.__code__, _spy_exposed, f.__name__, f.__defaults__, f.__closure__)
    e.__kwdefaults__ = f.__kwdefaults__
    e.__qualname__ = f.__qualname__
    e.__doc__ = f.__doc__
    e.__dict__.update(f.__dict__)
    return e


def _spy_is(o, seq):
    # Whether o is an item of seq, by identity (a metaclass's __eq__ cannot
    # answer).
    for x in seq:
        if x is o:
            return True
    return False


def _spy_note_raise(orig, e, a, kw, tb):
    # novelapi extension: where a target call raised, for the taxonomy.
    if len(_target_api_raised) >= 50:
        return
    frames = []
    depth = 0
    tb = tb.tb_next if tb is not None else None
    while tb is not None:
        depth += 1
        if len(frames) < 40:
            frames.append(str(tb.tb_frame.f_globals.get("__name__", "")))
        tb = tb.tb_next
    try:
        _spy_inspect.signature(orig).bind(*a, **kw)
        bind = True
    except TypeError:
        bind = False
    except Exception:
        bind = None
    causes = []
    c = e.__cause__ or e.__context__
    while c is not None and len(causes) < 3:
        causes.append(type(c).__name__ + ": " + str(c)[:300])
        c = c.__cause__ or c.__context__
    _target_api_raised.append((e, {
        "exc": type(e).__name__, "msg": str(e)[:500], "causes": causes, "depth": depth, "modules": frames,
        "bind": bind, "recording": bool(_target_api_recording[0]),
    }))





def _spy_wrap(orig, name, method=None, guard=True, h=None, sign=False):
    # The function spy (§4.4): count, call, record the outermost call. For a
    # method called through an instance proxy (method is its attribute
    # name) the record also says which method; its args are those of the
    # bound method. guard lets calls made while the monitor builds a record
    # through unseen: the fingerprint helpers call numpy, whose own
    # functions reach a spied function, ufunc or method (np.nansum uses
    # np.add.reduce, the fingerprint of an array calls its sum) and would
    # count and record again without end. h is the runner's hook. The spy
    # is a trampoline (_spy_t_function) whose context holds run; with sign
    # its __signature__ is orig's where inspect finds one, so that inspect
    # does not read its defaults even when it does not follow __wrapped__
    # (getfullargspec).
    def run(a, kw):
        if guard and _spy_busy[0]:
            return orig(*a, **kw)
        # Counted right before the call: nothing the completion controls
        # runs between the count and the target.
        _target_api_call_count[0] += 1
        _target_api_counts[name] += 1
        if h is not None:
            h.call(name)
        _spy_depth[0] += 1
        try:
            ret = orig(*a, **kw)
        except BaseException as e:
            _spy_depth[0] -= 1
            if _spy_depth[0] == 0:
                busy = _spy_busy[0]
                _spy_busy[0] = guard or busy
                try:
                    _spy_note_raise(orig, e, a, kw, e.__traceback__)
                    if _spy_recording(h):
                        rec = {"kind": "call", "ret": {"t": "raised", "exc": type(e).__name__},
                               "args": _fp_canon(orig, a, kw)}
                        if method is not None:
                            rec["method"] = method
                        _spy_record(rec, h)
                finally:
                    _spy_busy[0] = busy
            raise
        _spy_depth[0] -= 1
        if _spy_depth[0] == 0 and _spy_recording(h):
            busy = _spy_busy[0]
            _spy_busy[0] = guard or busy
            try:
                rec = {"kind": "call", "ret": _fp(ret), "args": _fp_canon(orig, a, kw)}
                if method is not None:
                    rec["method"] = method
                _spy_record(rec, h)
            finally:
                _spy_busy[0] = busy
        return ret

    spy = _spy_tramp(_spy_t_function, _spy_types.SimpleNamespace(run=run), "_target_api_spy",
                     "_spy_wrap.<locals>._target_api_spy")
    spy.__wrapped__ = orig
    if sign:
        try:
            spy.__signature__ = _spy_inspect.signature(orig)
        except Exception:
            pass
    return spy


# Special methods an instance proxy forwards when the instance's type has
# its own (implicit lookups bypass __getattr__).
_SPY_PROXY_DUNDERS = (
    "__len__", "__iter__", "__reversed__", "__contains__", "__getitem__", "__setitem__", "__delitem__",
    "__bool__", "__lt__", "__le__", "__gt__", "__ge__", "__or__", "__ror__", "__and__", "__rand__",
    "__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__", "__matmul__", "__rmatmul__",
    "__truediv__", "__rtruediv__", "__neg__", "__pos__", "__abs__", "__invert__", "__index__", "__int__",
    "__float__", "__complex__", "__fspath__", "__enter__", "__exit__", "__aenter__", "__aexit__",
    "__await__", "__length_hint__", "__array__",
)


def _spy_proxy(orig, name, h=None):
    # A spy for a callable object that is neither a class nor a function
    # (novelapi extension): scipy.stats.triang, an instance of triang_gen.
    # Calling the proxy, or calling any (non-dunder) method reached through
    # it (triang.pdf, triang.stats, triang.rvs), counts as a call of the
    # target and records the outermost call as a "call" record (with
    # "method" for a method). Everything else is forwarded: attribute reads,
    # writes and deletes go to the object, __class__ is the object's class
    # (isinstance(triang, rv_continuous) holds), repr, str, equality and
    # hash are the object's. type(proxy) and identity with references taken
    # before the spy was installed differ. It also watches a class that
    # cannot be subclassed (see _spy_subclass); calls of its methods are then
    # not counted, nor is `class X(proxy)` (Python asks __mro_entries__
    # before it knows whether a class will be made, so counting there let
    # a direct call count; such a class cannot be made anyway). The
    # proxy's methods are exported (_spy_export): their closures hold the
    # object, never a function of the monitor.
    cls = type(orig)
    is_class = isinstance(orig, type)
    isroutine = _spy_inspect.isroutine

    def getattr_(attr):
        v = getattr(orig, attr)
        if not is_class and type(attr) is str and not (attr.startswith("__") and attr.endswith("__")) \
                and callable(v) and isroutine(v):
            return _spy_wrap(v, name, attr, True, h)
        return v

    def __setattr__(self, attr, v):
        setattr(orig, attr, v)

    def __delattr__(self, attr):
        delattr(orig, attr)

    ns = {
        "__slots__": (),
        "__module__": getattr(cls, "__module__", None),
        "__qualname__": getattr(cls, "__qualname__", cls.__name__),
        "__doc__": property(lambda self: orig.__doc__),
        "__class__": property(lambda self: cls),
        "__wrapped__": property(lambda self: orig),
        "__getattr__": _spy_tramp(_spy_t_getattr, _spy_types.SimpleNamespace(getattr=getattr_), "__getattr__",
                                  "_spy_proxy.<locals>.__getattr__", ("self", "attr")),
        "__setattr__": __setattr__,
        "__delattr__": __delattr__,
        "__call__": staticmethod(_spy_wrap(orig, name, None, True, h)),
        "__repr__": lambda self: repr(orig),
        "__str__": lambda self: str(orig),
        "__format__": lambda self, spec: format(orig, spec),
        "__dir__": lambda self: dir(orig),
        "__eq__": lambda self, other: orig == (orig if other is proxy else other),
        "__ne__": lambda self, other: orig != (orig if other is proxy else other),
        "__hash__": lambda self: hash(orig),
        "__reduce_ex__": lambda self, proto: orig.__reduce_ex__(proto),
        "__reduce__": lambda self: orig.__reduce__(),
    }
    if is_class:
        # A class that cannot be subclassed (bool): isinstance and
        # issubclass see the class, and `class X(proxy)` derives from it.
        ns["__instancecheck__"] = lambda self, o: isinstance(o, orig)
        ns["__subclasscheck__"] = lambda self, c: issubclass(orig if c is proxy else c, orig)
        ns["__mro_entries__"] = lambda self, bases: (orig,)
    for d in _SPY_PROXY_DUNDERS:
        impl = getattr(cls, d, None)
        if impl is None or impl is getattr(object, d, None):
            continue

        def fwd(self, *a, _d=d):
            return getattr(orig, _d)(*a)
        fwd.__name__ = d
        ns[d] = fwd
    for k, v in list(ns.items()):
        if type(v) is _spy_types.FunctionType and v.__globals__ is not _spy_exposed:
            ns[k] = _spy_export(v)
        elif type(v) is property:
            ns[k] = property(_spy_export(v.fget))
    proxy = type(cls.__name__, (object,), ns)()
    _spy_proxies.append(proxy)
    return proxy


def _spy_watched(o):
    # Whether o is already a spy made here: an instance proxy, a class
    # patched in place, or a method bound from a function spy (a spied
    # method reached through an instance).
    if any(o is p for p in _spy_proxies) or any(o is c for c in _spy_classes):
        return True
    f = getattr(o, "__func__", None) if isinstance(o, _spy_types.MethodType) else None
    return f is not None and any(f is s for s in _spy_funcs)


def _spy_install(path, name=None, h=None):
    # Resolve path and replace the object it names by a spy counting under
    # name (default: path) with the runner's hook h; raises, saying why,
    # when it cannot.
    name = path if name is None else name
    parts = path.split(".")
    mod = None
    split = 0
    err = None
    for i in range(len(parts), 0, -1):
        try:
            mod = _spy_importlib.import_module(".".join(parts[:i]))
            split = i
            break
        except ImportError as e:
            err = e
            continue
    if mod is None:
        raise err if err is not None else ImportError("cannot import " + path)
    if split >= len(parts):
        raise TypeError("%s is a module, not a callable" % path)
    parent = mod
    for p in parts[split:-1]:
        parent = getattr(parent, p)
    leaf = parts[-1]
    orig = getattr(parent, leaf)
    if _spy_watched(orig):
        return True
    # A method reached through an instance (scipy.stats.irwinhall.fit): the
    # bound method is new at each lookup, so it is patched on the instance
    # by equality, not identity (novelapi extension).
    bound = isinstance(orig, _spy_types.MethodType) and not isinstance(parent, (type, _spy_types.ModuleType)) \
        and getattr(orig, "__self__", None) is parent
    raw = None
    if isinstance(parent, type):
        try:
            raw = _spy_inspect.getattr_static(parent, leaf)
        except AttributeError:
            raw = None
    if isinstance(orig, type):
        try:
            spy = _spy_class(orig, name, h)
        except Exception:
            try:
                spy = _spy_subclass(orig, name, h)
            except Exception:
                # Final classes (bool), metaclasses that refuse a derived
                # class: a proxy instead (novelapi extension).
                spy = _spy_proxy(orig, name, h)
    elif isinstance(raw, (classmethod, staticmethod)) or type(raw).__name__ == "classmethod_descriptor":
        # A classmethod or staticmethod target, spied as one, so that it
        # still binds to the class it is reached through.
        fn = raw if type(raw).__name__ == "classmethod_descriptor" else raw.__func__
        inner = _spy_wrap(fn, name, h=h, sign=True)
        _spy_funcs.append(inner)
        spy = staticmethod(inner) if isinstance(raw, staticmethod) else classmethod(inner)
    elif isinstance(raw, property):
        # A property target: each read counts as a call.
        inner = _spy_wrap(raw.fget, name, h=h, sign=True)
        _spy_funcs.append(inner)
        spy = property(inner, raw.fset, raw.fdel, raw.__doc__)
    elif callable(orig) and not _spy_inspect.isroutine(orig) and not bound:
        spy = _spy_proxy(orig, name, h)
    elif raw is not None and _spy_inspect.isroutine(raw) and not isinstance(raw, _spy_types.FunctionType) \
            and type(raw).__name__ in ("method_descriptor", "wrapper_descriptor"):
        # A method of a built-in type (numpy.ndarray.sum): the spy goes in
        # the type's dict, where a function binds like the descriptor.
        spy = _spy_wrap(raw, name, h=h, sign=True)
        _spy_funcs.append(spy)
    elif callable(orig):
        spy = _spy_wrap(orig, name, h=h, sign=True)
        _spy_funcs.append(spy)
    else:
        raise TypeError("%s is a %s, not a callable" % (path, type(orig).__name__))
    _spy_made.append((spy, path))
    inner = getattr(spy, "__func__", None) if isinstance(spy, (classmethod, staticmethod)) else \
        spy.fget if isinstance(spy, property) else None
    if inner is not None:
        _spy_made.append((inner, path))
    if spy is orig:
        # A class patched in place: every name already holds the spy.
        return True
    tops = {parts[0], (getattr(orig, "__module__", None) or parts[0]).split(".")[0]}
    for mname, m in list(_spy_sys.modules.items()):
        if m is None or mname.split(".")[0] not in tops:
            continue
        try:
            names = list(vars(m))
        except Exception:
            continue
        for attr in names:
            try:
                if getattr(m, attr) is orig:
                    setattr(m, attr, spy)
            except Exception:
                pass
    cur = _spy_inspect.getattr_static(parent, leaf, None)
    if cur is not spy and (cur is orig or (raw is not None and cur is raw) or (bound and getattr(parent, leaf) == orig)):
        _spy_setattr(parent, leaf, spy)
    if _spy_inspect.getattr_static(parent, leaf, None) is not spy:
        raise RuntimeError("the spy could not replace %s" % path)
    return True


def _spy_setattr(parent, leaf, spy):
    # setattr, and for a built-in type that refuses it (numpy.ndarray,
    # datetime.datetime: "cannot set attribute of immutable type") a write
    # to the type's own dict followed by PyType_Modified, which clears the
    # interpreter's method caches (novelapi extension, §4.4).
    try:
        setattr(parent, leaf, spy)
        return
    except TypeError:
        if not isinstance(parent, type):
            raise
    import gc as _spy_gc
    import ctypes as _spy_ctypes
    d = [r for r in _spy_gc.get_referents(parent.__dict__) if type(r) is dict]
    if len(d) != 1:
        raise TypeError("cannot reach the dict of the type %s" % parent.__qualname__)
    d[0][leaf] = spy
    _spy_ctypes.pythonapi.PyType_Modified(_spy_ctypes.py_object(parent))


_SPY_HEAPTYPE = 1 << 9
_spy_mro = type.__dict__["__mro__"].__get__
_SPY_IMMUTABLETYPE = 1 << 8


def _spy_construct(orig, name, meta, spy_cls, cls, a, kw, h):
    # One construction of cls (the target, or a class derived from it after
    # the spy was installed) through meta's __call__, counted, with the
    # outermost one recorded as an "init" record. As the function spy's
    # guard: what the monitor constructs while it builds a record is no
    # call (the fingerprint of a pandas 1.x DataFrame selects columns,
    # which constructs DataFrames through this class again, and again for
    # their records, without end).
    if _spy_busy[0]:
        return meta.__call__(cls, *a, **kw)
    _target_api_call_count[0] += 1
    _target_api_counts[name] += 1
    if h is not None:
        h.call(name)
    _spy_depth[0] += 1
    try:
        obj = meta.__call__(cls, *a, **kw)
    except BaseException as e:
        _spy_depth[0] -= 1
        if _spy_depth[0] == 0:
            _spy_busy[0] = True
            try:
                _spy_note_raise(orig, e, a, kw, e.__traceback__)
                if _spy_recording(h):
                    _spy_record({"kind": "init", "ret": {"t": "raised", "exc": type(e).__name__},
                                 "args": _fp_canon(orig, a, kw)}, h)
            finally:
                _spy_busy[0] = False
        raise
    _spy_depth[0] -= 1
    if _spy_depth[0] == 0 and _spy_recording(h):
        _spy_busy[0] = True
        try:
            rec = {"kind": "init", "args": _fp_canon(orig, a, kw)}
            if cls is not spy_cls:
                rec["ret"] = {"t": "instance"}
                rec["subclassed"] = True
            else:
                rec["ret"] = _fp(obj)
            _spy_record(rec, h)
        finally:
            _spy_busy[0] = False
    return obj


def _spy_classes_of(spy_meta, base):
    # genuine(cls): whether cls is a class made after installation whose
    # metaclass derives from spy_meta and which derives from base, other
    # than base (both by
    # identity, on the type's own __mro__); once(cls): whether cls is such
    # a class not seen by once before, so that the making of each counts
    # once however often its metaclass's __init__ is called.
    seen, keep = set(), []

    def genuine(cls):
        if cls is base:
            return False
        try:
            return _spy_is(spy_meta, _spy_mro(type(cls))) and _spy_is(base, _spy_mro(cls))
        except TypeError:
            return False

    def once(cls):
        if not genuine(cls) or id(cls) in seen:
            return False
        seen.add(id(cls))
        keep.append(cls)
        return True

    return genuine, once


def _spy_class(orig, name, h=None):
    # The spy of a class target (§4.4), patched in place: the class object
    # stays the one every name and every reference holds, so its own code
    # that names it (fractions.Fraction.__new__ calls
    # super(Fraction, cls).__new__(cls), found through the module's global
    # Fraction) and identity, isinstance, issubclass, pickling and
    # type(x) is Target are unchanged. Only its type changes: the spy
    # metaclass, of the metaclass's name, module and qualified name and
    # derived from it, whose __call__ counts each call of the class
    # whatever runs it (__new__ alone, as in sympy's Matrix and primepi;
    # __init__; the metaclass's own __call__) and records the outermost one
    # as an "init" record. The class's dictionary is untouched, so
    # scikit-learn's get_params reads the target's __init__;
    # inspect.signature(Target) is the one taken before the patch. A class
    # made from the target afterwards (class X(Target)) has the spy
    # metaclass: its making counts as the published __init_subclass__ does
    # and its constructions count as "subclassed" ones. Classes derived
    # from the target before the spy was installed keep their metaclass and
    # are not counted, nor is what the spy metaclass's methods are called
    # on directly that is neither the target nor such a class (int, a class
    # made by calling the spy metaclass with other bases). A metaclass
    # that is an immutable type (type itself)
    # refuses __class__ assignment only by that flag: the type pointer is
    # then written as object.__class__'s setter would, after the same
    # layout checks. Raises, changing nothing, for a class that cannot be
    # patched (a built-in or immutable type, a metaclass that refuses a
    # derived class); the caller falls back to _spy_subclass.
    flags = orig.__flags__
    if not flags & _SPY_HEAPTYPE or flags & _SPY_IMMUTABLETYPE:
        raise TypeError("%s is an immutable type" % orig.__qualname__)
    meta = type(orig)
    try:
        sig = (True, _spy_inspect.signature(orig))
    except Exception as e:
        sig = (False, e)
    box = []

    def construct(cls, a, kw):
        if cls is not orig and not (box and box[0](cls)):
            return meta.__call__(cls, *a, **kw)
        return _spy_construct(orig, name, meta, orig, cls, a, kw, h)

    def made(cls, a, kw):
        # A class made from the target after installation.
        meta.__init__(cls, *a, **kw)
        if box and box[1](cls):
            _spy_count(name, h)
            _spy_record({"kind": "subclass"}, h)

    mro = _spy_mro
    dict_of = type.__dict__["__dict__"].__get__
    getattr_static = _spy_inspect.getattr_static

    def __signature__(cls):
        # inspect.signature(Target) is the target's, not that of the spy
        # metaclass's __call__; a class derived from it reads what it would
        # without the spy's descriptor.
        if cls is orig:
            if sig[0]:
                return sig[1]
            raise sig[1].with_traceback(None)
        for base in mro(cls):
            d = dict_of(base)
            if "__signature__" in d:
                v = d["__signature__"]
                return v.__get__(None, cls) if hasattr(type(v), "__get__") else v
        v = getattr_static(meta, "__signature__", None)
        if v is not None:
            return v.__get__(cls, type(cls)) if hasattr(type(v), "__get__") else v
        raise AttributeError("__signature__")

    ctx = _spy_types.SimpleNamespace(construct=construct, made=made)
    spy_meta = type(meta)(meta.__name__, (meta,), {
        "__call__": _spy_tramp(_spy_t_call, ctx, "__call__", "_spy_class.<locals>.__call__", ("cls", "*a", "**kw")),
        "__init__": _spy_tramp(_spy_t_init, ctx, "__init__", "_spy_class.<locals>.__init__", ("cls", "*a", "**kw")),
        "__signature__": property(_spy_export(__signature__)),
        "__module__": meta.__module__, "__qualname__": meta.__qualname__, "__doc__": meta.__doc__})
    for a in ("__basicsize__", "__itemsize__", "__dictoffset__", "__weakrefoffset__"):
        if getattr(spy_meta, a) != getattr(meta, a):
            raise TypeError("the spy metaclass of %s differs in layout (%s)" % (orig.__qualname__, a))
    box.extend(_spy_classes_of(spy_meta, orig))
    try:
        orig.__class__ = spy_meta
    except TypeError:
        if meta is not type:
            raise
        _spy_set_type(orig, meta, spy_meta)
    _spy_type_modified(orig)
    _spy_classes.append(orig)
    return orig


def _spy_set_type(obj, old, new):
    # What object.__class__'s setter does once its checks pass, for a class
    # whose metaclass is type, which it refuses only because type is
    # immutable: the object takes a reference to its new (heap) type and
    # its type pointer is replaced. old is static, so no reference is
    # given back. The pointer is the last field of the object header
    # (object.__basicsize__ bytes), in default and free-threaded builds.
    import ctypes as _spy_ctypes
    at = id(obj) + object.__basicsize__ - _spy_ctypes.sizeof(_spy_ctypes.c_void_p)
    ptr = _spy_ctypes.c_void_p.from_address(at)
    if ptr.value != id(old) or old.__flags__ & _SPY_HEAPTYPE:
        raise TypeError("the type of %s is not where it is expected" % obj.__qualname__)
    _spy_ctypes.pythonapi.Py_IncRef(_spy_ctypes.py_object(new))
    ptr.value = id(new)
    if type(obj) is not new:
        raise RuntimeError("the type of %s could not be replaced" % obj.__qualname__)


def _spy_type_modified(cls):
    # PyType_Modified: the interpreter's caches keyed by the class's version
    # (Python 3.13 specialises a call of a class whose metaclass is type
    # into one that allocates and runs __init__ without calling its type)
    # are dropped, so every later call of the class reaches its new type.
    try:
        import ctypes as _spy_ctypes
        _spy_ctypes.pythonapi.PyType_Modified(_spy_ctypes.py_object(cls))
    except Exception:
        pass


def _spy_subclass(orig, name, h=None):
    # The spy of a class target that cannot be patched in place (a built-in
    # or otherwise immutable type: datetime.datetime, itertools.accumulate;
    # see _spy_class): a subclass of the same name, module and qualified
    # name bound over the target's names, whose metaclass derives from the
    # target's and counts each call of the class as _spy_class's does. The
    # subclass defines neither __init__ nor __new__, so code that reads the
    # class's signature sees the target's. __init_subclass__ counts
    # `class X(Target)` as the published spy does, once per class, and not
    # when it is called on the subclass itself. Such types' own code never
    # looks their name up in a module, so super(Name, cls) cannot reach the
    # subclass.
    meta = type(orig)
    made = []
    box = []

    def construct(cls, a, kw):
        if not made or (cls is not made[0] and not box[0](cls)):
            return meta.__call__(cls, *a, **kw)
        return _spy_construct(orig, name, meta, made[0], cls, a, kw, h)

    def subclass(cls, kw):
        if box and box[1](cls):
            _spy_count(name, h)
            _spy_record({"kind": "subclass"}, h)
        super(made[0], cls).__init_subclass__(**kw)

    signature = _spy_inspect.signature

    def __get__(self, inst, owner):
        # inspect.signature(spy) is the target's, not that of the
        # metaclass's __call__; instances and subclasses are left to inspect.
        if inst is not None or owner is not made[0]:
            raise AttributeError("__signature__")
        return signature(orig)

    ctx = _spy_types.SimpleNamespace(construct=construct, subclass=subclass)
    spy_meta = type(meta)(meta.__name__, (meta,), {
        "__call__": _spy_tramp(_spy_t_call, ctx, "__call__", "_spy_subclass.<locals>.__call__", ("cls", "*a", "**kw")),
        "__module__": meta.__module__, "__qualname__": meta.__qualname__})
    sig_descr = type("_spy_signature", (), {"__get__": _spy_export(__get__), "__module__": "__main__",
                                            "__qualname__": "_spy_subclass.<locals>._spy_signature"})
    ns = {"__init_subclass__": _spy_tramp(_spy_t_init_subclass, ctx, "__init_subclass__",
                                          "_spy_subclass.<locals>.__init_subclass__", ("cls", "**kw")),
          "__module__": orig.__module__, "__qualname__": orig.__qualname__, "__doc__": orig.__doc__,
          "__signature__": sig_descr()}
    if "__slots__" in vars(orig):
        ns["__slots__"] = ()
    spy = spy_meta(orig.__name__, (orig,), ns)
    box.extend(_spy_classes_of(spy_meta, spy))
    made.append(spy)
    return spy


def _spy_checker(h):
    # The call-record check against h's records, for _spy_check_calls.
    def check(expected_json):
        return _spy_check(expected_json, h)
    return check


def _spy_seal():
    # The monitor's private namespace: its functions rebuilt over a copy of
    # the script's globals (the same public state objects) with a copy of
    # the builtins taken now, before the completion runs, and their own
    # nesting depth and busy flag. No object the completion can reach holds
    # a function of it, so neither it nor its builtins can be rebound later.
    # _spy_exposed, the namespace of the trampolines and exported functions,
    # holds only another copy of the builtins.
    ns = dict(globals())
    ns["__builtins__"] = dict(vars(_spy_builtins))
    ns.pop("_spy_hook", None)
    ns["_spy_depth"] = [0]
    ns["_spy_busy"] = [False]
    ns["_spy_exposed"] = {"__builtins__": dict(vars(_spy_builtins)), "__name__": ns.get("__name__")}
    for k, v in list(ns.items()):
        if type(v) is _spy_types.FunctionType and k.startswith(("_fp", "_spy", "_target_api")):
            f = _spy_types.FunctionType(v.__code__, ns, v.__name__, v.__defaults__, v.__closure__)
            f.__kwdefaults__ = v.__kwdefaults__
            ns[k] = f
    return ns


# Why each target that could not be spied was not (novelapi extension):
# the runner reports the task, not the completion, for it (§4.4).
_target_api_spy_failed = {}
_spy_ns = None
try:
    _spy_ns = _spy_seal()
    _spy_check_calls = _spy_ns["_spy_tramp"](
        _spy_t_check, _spy_types.SimpleNamespace(check=_spy_ns["_spy_checker"](_spy_hook)),
        "_spy_check_calls", "_spy_check_calls", ("expected_json",))
    for _n in _target_api_names:
        try:
            if not _spy_ns["_spy_install"](_n, None, _spy_hook):
                _target_api_spy_failed[_n] = "%s does not name an attribute of an importable module" % _n
        except Exception as _spy_e:
            _target_api_spy_failed[_n] = "%s: %s" % (type(_spy_e).__name__, str(_spy_e)[:300])
    _target_api_spy_installed = not _target_api_spy_failed
except Exception as _spy_e:
    _target_api_spy_failed[_target_api_name] = "the monitor failed: %s: %s" % (type(_spy_e).__name__, str(_spy_e)[:300])
for _spy_path, _spy_target in _target_api_aliases:
    try:
        _spy_ns["_spy_install"](_spy_path, _spy_target, _spy_hook)
    except Exception:
        pass
if _spy_hook is not None:
    _spy_hook.register(_target_api_spy_installed, _target_api_call_count, _spy_check_calls, _spy_made,
                       (_spy_ns, _spy_ns["_spy_exposed"]) if _spy_ns is not None else (),
                       dict(_target_api_spy_failed))
del _spy_hook, _spy_ns
# --- end target-API call monitor ---
