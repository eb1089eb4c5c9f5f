# --- target-API call monitor with call recording (auto-injected) ---
# novelapi's recording monitor (novelapibench-protocol §4.4): the stock
# monitor's resolution and alias patching (§4.2), plus call records with
# fingerprints (fingerprint.py, prepended). The targets placeholder is replaced
# by a Python list of fully qualified target names; the first is the task's
# api_name, further ones (multi-API pools) count as the same target;
# _target_api_counts also counts the calls per target name (novelapi
# extension, for required-API recall).
import importlib as _spy_importlib
import sys as _spy_sys
import inspect as _spy_inspect
import json as _spy_json
import math as _spy_math
import types as _spy_types
import builtins as _spy_builtins
_target_api_names = __NOVELAPI_TARGETS__
_target_api_name = _target_api_names[0]
_target_api_call_count = [0]
_target_api_counts = {_n: 0 for _n in _target_api_names}
_target_api_calls = []
_target_api_recording = [False]
_target_api_depth = [0]
_target_api_raised = []
_target_api_spy_installed = False
_TARGET_API_MAX_RECORDS = 200
# novelapi hardening (sandbox-spec §4.6): the trusted runner hands the monitor
# a one-shot hook that keeps the call counts and records the verdict uses,
# out of reach of names the completion can assign. None outside the runner.
_spy_hook = globals().pop("__novelapi_spy_hook__", None)


def _spy_recording():
    return bool(_target_api_recording[0]) or (_spy_hook is not None and _spy_hook.recording())


def _spy_count(name):
    _target_api_call_count[0] += 1
    _target_api_counts[name] += 1
    if _spy_hook is not None:
        _spy_hook.call(name)


def _spy_record(rec):
    if _spy_hook is not None:
        _spy_hook.record(rec)
    if _target_api_recording[0] and len(_target_api_calls) < _TARGET_API_MAX_RECORDS:
        _target_api_calls.append(rec)


def _spy_check_calls(expected_json):
    # The call-record check (§4.5), called by call_check.py. It runs sealed
    # (see _spy_seal) and reads the hook's records, so a completion that
    # patches builtins or appends to _target_api_calls cannot satisfy it.
    expected = _spy_json.loads(expected_json)
    actual = _spy_hook.calls() if _spy_hook is not None else list(_target_api_calls)

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





def _spy_install(name):
    parts = name.split(".")
    mod = None
    split = 0
    for i in range(len(parts), 0, -1):
        try:
            mod = _spy_importlib.import_module(".".join(parts[:i]))
            split = i
            break
        except ImportError:
            continue
    if mod is None or split >= len(parts):
        return False
    parent = mod
    for p in parts[split:-1]:
        parent = getattr(parent, p)
    leaf = parts[-1]
    orig = getattr(parent, leaf)
    if isinstance(orig, type):
        class _target_api_spy(orig):
            def __init__(self, *a, **kw):
                _spy_count(name)
                _target_api_depth[0] += 1
                try:
                    super().__init__(*a, **kw)
                except BaseException as e:
                    _target_api_depth[0] -= 1
                    if _target_api_depth[0] == 0:
                        _spy_note_raise(orig, e, a, kw, e.__traceback__)
                        _spy_record({"kind": "init", "ret": {"t": "raised", "exc": type(e).__name__},
                                     "args": _fp_canon(orig, a, kw)})
                    raise
                _target_api_depth[0] -= 1
                if _target_api_depth[0] == 0 and _spy_recording():
                    rec = {"kind": "init", "args": _fp_canon(orig, a, kw)}
                    if type(self) is not _target_api_spy:
                        rec["ret"] = {"t": "instance"}
                        rec["subclassed"] = True
                    else:
                        rec["ret"] = _fp(self)
                    _spy_record(rec)

            def __init_subclass__(cls, **kw):
                _spy_count(name)
                _spy_record({"kind": "subclass"})
                super().__init_subclass__(**kw)
        spy = _target_api_spy
    else:
        def _target_api_spy(*a, **kw):
            _spy_count(name)
            _target_api_depth[0] += 1
            try:
                ret = orig(*a, **kw)
            except BaseException as e:
                _target_api_depth[0] -= 1
                if _target_api_depth[0] == 0:
                    _spy_note_raise(orig, e, a, kw, e.__traceback__)
                    _spy_record({"kind": "call", "ret": {"t": "raised", "exc": type(e).__name__},
                                 "args": _fp_canon(orig, a, kw)})
                raise
            _target_api_depth[0] -= 1
            if _target_api_depth[0] == 0 and _spy_recording():
                _spy_record({"kind": "call", "ret": _fp(ret), "args": _fp_canon(orig, a, kw)})
            return ret
        try:
            _target_api_spy.__wrapped__ = orig
        except Exception:
            pass
        spy = _target_api_spy
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
    try:
        if getattr(parent, leaf) is orig:
            setattr(parent, leaf, spy)
    except Exception:
        pass
    return True


def _spy_seal():
    # A private namespace for the monitor's functions: the same state objects,
    # with a copy of the builtins taken now, before the completion runs.
    # Spies and the call-record check built from it keep working on the real
    # builtins and helpers whatever the completion rebinds later.
    ns = dict(globals())
    ns["__builtins__"] = dict(vars(_spy_builtins))
    for k, v in list(ns.items()):
        if type(v) is _spy_types.FunctionType and k.startswith(("_fp", "_spy", "_target_api")):
            f = _spy_types.FunctionType(v.__code__, ns, v.__name__, v.__defaults__, v.__closure__)
            f.__kwdefaults__ = v.__kwdefaults__
            ns[k] = f
    return ns


try:
    _spy_ns = _spy_seal()
    _spy_check_calls = _spy_ns["_spy_check_calls"]
    _target_api_spy_installed = all([_spy_ns["_spy_install"](_n) for _n in _target_api_names])
except Exception:
    pass
if _spy_hook is not None:
    _spy_hook.register(_target_api_spy_installed, _target_api_call_count, _spy_check_calls)
    if "_spy_ns" in globals():
        del _spy_hook, _spy_ns
# --- end target-API call monitor ---
