# --- target-API call monitor with call recording (auto-injected) ---
# novelapi's recording monitor (novelapibench-protocol §4.4): the stock
# monitor's resolution and alias patching (§4.2), plus call records with
# fingerprints (fingerprint.py, prepended). The targets placeholder is replaced
# by a Python list of fully qualified target names; the first is the task's
# api_name, further ones (multi-API pools) count as the same target.
import importlib as _spy_importlib
import sys as _spy_sys
import inspect as _spy_inspect
_target_api_names = __NOVELAPI_TARGETS__
_target_api_name = _target_api_names[0]
_target_api_call_count = [0]
_target_api_calls = []
_target_api_recording = [False]
_target_api_depth = [0]
_target_api_raised = []
_target_api_spy_installed = False
_TARGET_API_MAX_RECORDS = 200


def _spy_record(rec):
    if _target_api_recording[0] and len(_target_api_calls) < _TARGET_API_MAX_RECORDS:
        _target_api_calls.append(rec)


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
                _target_api_call_count[0] += 1
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
                if _target_api_depth[0] == 0 and _target_api_recording[0]:
                    rec = {"kind": "init", "args": _fp_canon(orig, a, kw)}
                    if type(self) is not _target_api_spy:
                        rec["ret"] = {"t": "instance"}
                        rec["subclassed"] = True
                    else:
                        rec["ret"] = _fp(self)
                    _spy_record(rec)

            def __init_subclass__(cls, **kw):
                _target_api_call_count[0] += 1
                _spy_record({"kind": "subclass"})
                super().__init_subclass__(**kw)
        spy = _target_api_spy
    else:
        def _target_api_spy(*a, **kw):
            _target_api_call_count[0] += 1
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
            if _target_api_depth[0] == 0 and _target_api_recording[0]:
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


try:
    _target_api_spy_installed = all([_spy_install(_n) for _n in _target_api_names])
except Exception:
    pass
# --- end target-API call monitor ---
