# --- target-API call monitor (auto-injected) ---
# novelapi's stock monitor (novelapibench-protocol §4.2). The loader checks a
# task's setup_code against this text; evaluation replaces it with the
# recording monitor (recording_monitor.py). The placeholder below is replaced
# by the Python literal of the target's fully qualified name.
import importlib as _spy_importlib
import sys as _spy_sys
_target_api_name = __NOVELAPI_TARGET__
_target_api_call_count = [0]
_target_api_spy_installed = False
try:
    _spy_parts = _target_api_name.split(".")
    _spy_mod = None
    _spy_split = 0
    for _spy_i in range(len(_spy_parts), 0, -1):
        try:
            _spy_mod = _spy_importlib.import_module(".".join(_spy_parts[:_spy_i]))
            _spy_split = _spy_i
            break
        except ImportError:
            continue
    if _spy_mod is not None and _spy_split < len(_spy_parts):
        _spy_parent = _spy_mod
        for _spy_p in _spy_parts[_spy_split:-1]:
            _spy_parent = getattr(_spy_parent, _spy_p)
        _spy_leaf = _spy_parts[-1]
        _spy_orig = getattr(_spy_parent, _spy_leaf)
        if isinstance(_spy_orig, type):
            class _target_api_spy(_spy_orig):
                def __init__(self, *a, **kw):
                    _target_api_call_count[0] += 1
                    super().__init__(*a, **kw)

                def __init_subclass__(cls, **kw):
                    _target_api_call_count[0] += 1
                    super().__init_subclass__(**kw)
            _spy_new = _target_api_spy
        else:
            def _target_api_spy(*a, **kw):
                _target_api_call_count[0] += 1
                return _spy_orig(*a, **kw)
            try:
                _target_api_spy.__wrapped__ = _spy_orig
            except Exception:
                pass
            _spy_new = _target_api_spy
        _spy_tops = {_spy_parts[0], (getattr(_spy_orig, "__module__", None) or _spy_parts[0]).split(".")[0]}
        for _spy_name, _spy_m in list(_spy_sys.modules.items()):
            if _spy_m is None or _spy_name.split(".")[0] not in _spy_tops:
                continue
            try:
                _spy_items = list(vars(_spy_m).items())
            except Exception:
                continue
            for _spy_attr, _spy_val in _spy_items:
                if _spy_val is _spy_orig:
                    try:
                        setattr(_spy_m, _spy_attr, _spy_new)
                    except Exception:
                        pass
        try:
            if getattr(_spy_parent, _spy_leaf) is _spy_orig:
                setattr(_spy_parent, _spy_leaf, _spy_new)
        except Exception:
            pass
        _target_api_spy_installed = True
except Exception:
    pass
# --- end target-API call monitor ---
