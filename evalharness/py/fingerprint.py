# --- fingerprint helpers (docs/protocol.md §4.5) ---
# Value fingerprints for the call records of the recording monitor. Any error
# inside a step is swallowed, leaving a partial dict.
import hashlib as _fp_hashlib
import inspect as _fp_inspect
import math as _fp_math
import re as _fp_re
import types as _fp_types
import functools as _fp_functools

_fp_addr_re = _fp_re.compile(r"0x[0-9a-fA-F]+")
_fp_opaque_re = _fp_re.compile(r"^<[\w.<>]+ object at 0x\?>$")
_fp_fn_types = (
    _fp_types.FunctionType, _fp_types.MethodType, _fp_types.BuiltinFunctionType,
    _fp_types.BuiltinMethodType, _fp_functools.partial, _fp_types.CoroutineType,
    _fp_types.GeneratorType, _fp_types.AsyncGeneratorType,
)


def _fp_norm(s):
    return _fp_addr_re.sub("0x?", s)


def _fp_h(s):
    return _fp_hashlib.sha1(_fp_norm(s).encode("utf-8", errors="replace")).hexdigest()[:16]


def _fp_num(x):
    x = float(x)
    if x != x:
        return "nan"
    if x == float("inf"):
        return "inf"
    if x == float("-inf"):
        return "-inf"
    return x


def _fp_tname(o):
    if isinstance(o, bool):
        return "bool"
    t = type(o)
    mod = getattr(t, "__module__", None) or ""
    if isinstance(o, (int, float)):
        return "number"
    if mod.split(".")[0] == "numpy" and getattr(o, "shape", None) == () and hasattr(o, "item"):
        return "number"
    if mod == "__main__":
        return "__main__"
    if isinstance(o, dict):
        return "mapping"
    return mod.split(".")[0] + "." + getattr(t, "__qualname__", t.__name__)


def _fp_array(o, r):
    r["shape"] = [int(x) for x in o.shape]
    r["dtype"] = str(o.dtype)
    if hasattr(o, "detach"):
        t = o.detach().cpu()
        if getattr(t, "is_sparse", False):
            t = t.to_dense()
        if t.is_complex():
            t = t.abs()
        t = t.double()
        r["nan"] = int(t.isnan().sum().item())
        r["s"] = _fp_num(t.nansum().item())
        r["a"] = _fp_num(t.abs().nansum().item())
        return
    import numpy as _fp_np
    a = _fp_np.asarray(o)
    if a.dtype.kind in "biufc":
        a = _fp_np.abs(a) if a.dtype.kind == "c" else a.astype(_fp_np.float64)
        r["nan"] = int(_fp_np.isnan(a).sum())
        r["s"] = _fp_num(_fp_np.nansum(a))
        r["a"] = _fp_num(_fp_np.nansum(_fp_np.abs(a)))
    else:
        r["h"] = _fp_h(repr(a.tolist())[:50000])


def _fp_pandas(o, r):
    import numpy as _fp_np
    r["shape"] = [int(x) for x in o.shape]
    if getattr(o, "ndim", 1) == 2:
        r["cols"] = _fp_h(repr([str(c) for c in o.columns]))
        r["dtypes"] = _fp_h(repr([str(d) for d in o.dtypes]))
        num = o.select_dtypes(include="number")
        if num.shape[1]:
            v = num.to_numpy(dtype=_fp_np.float64, na_value=_fp_np.nan)
            r["s"] = _fp_num(_fp_np.nansum(v))
            r["a"] = _fp_num(_fp_np.nansum(_fp_np.abs(v)))
        other = o.select_dtypes(exclude="number")
        if other.shape[1]:
            r["h"] = _fp_h(other.astype(str).to_csv()[:200000])
    else:
        r["dtype"] = str(o.dtype)
        if getattr(o.dtype, "kind", "O") in "biuf":
            v = o.to_numpy(dtype=_fp_np.float64, na_value=_fp_np.nan)
            r["s"] = _fp_num(_fp_np.nansum(v))
            r["a"] = _fp_num(_fp_np.nansum(_fp_np.abs(v)))
        else:
            r["h"] = _fp_h(o.astype(str).to_csv()[:200000])
    r["idx"] = _fp_h(repr(list(o.index[:2000])))


def _fp(o, _depth=0):
    r = {"t": _fp_tname(o)}
    try:
        if o is None:
            return r
        if isinstance(o, bool):
            r["v"] = o
        elif isinstance(o, int):
            r["v"] = o if abs(o) < 2 ** 53 else str(o)
        elif isinstance(o, float):
            r["v"] = _fp_num(o)
        elif r["t"] == "number":
            k = o.dtype.kind
            if k == "c":
                r["v"] = _fp_num(abs(o))
            elif k in "biu":
                r["v"] = int(o)
            else:
                r["v"] = _fp_num(o)
        elif isinstance(o, complex):
            r["v"] = [_fp_num(o.real), _fp_num(o.imag)]
        elif isinstance(o, str):
            r["len"] = len(o)
            r["h"] = _fp_h(o)
        elif isinstance(o, (bytes, bytearray)):
            r["len"] = len(o)
            r["h"] = _fp_h(bytes(o[:100000]).hex())
        elif (getattr(type(o), "__module__", "") or "").startswith("pandas") and hasattr(o, "shape"):
            _fp_pandas(o, r)
        elif hasattr(o, "shape") and hasattr(o, "dtype") and not isinstance(o, type):
            _fp_array(o, r)
        elif isinstance(o, (list, tuple)):
            r["t"] = "sequence"
            r["len"] = len(o)
            if _depth < 3:
                r["items"] = [_fp(x, _depth + 1) for x in list(o)[:8]]
        elif isinstance(o, (set, frozenset)):
            r["len"] = len(o)
            r["h"] = _fp_h(repr(sorted(_fp_norm(repr(x)) for x in o))[:50000])
        elif isinstance(o, dict):
            keys = sorted(o.keys(), key=repr)
            r["len"] = len(o)
            r["keys"] = _fp_h(repr([repr(k) for k in keys]))
            if _depth < 3:
                r["items"] = [_fp(o[k], _depth + 1) for k in keys[:8]]
        elif isinstance(o, _fp_fn_types):
            pass
        elif isinstance(o, type) and getattr(o, "__module__", None) == "__main__":
            pass
        else:
            n = _fp_norm(repr(o)[:50000])
            if not _fp_opaque_re.match(n):
                r["r"] = _fp_h(n)
            if hasattr(o, "__len__") and not isinstance(o, type):
                r["len"] = len(o)
    except Exception:
        pass
    return r


def _fp_arg(v):
    if isinstance(v, str) and any(c.isspace() for c in v):
        return {"t": _fp_tname(v)}
    return _fp(v)


def _fp_canon(fn, a, kw):
    try:
        sig = _fp_inspect.signature(fn)
        bound = sig.bind(*a, **kw)
    except Exception:
        return {"*": [_fp_arg(x) for x in a], "**": {k: _fp_arg(kw[k]) for k in sorted(kw)}}
    explicit = []
    for name, val in bound.arguments.items():
        if sig.parameters[name].kind == _fp_inspect.Parameter.VAR_KEYWORD:
            explicit.extend(val.keys())
        else:
            explicit.append(name)
    bound.apply_defaults()
    out = {}
    for name, val in bound.arguments.items():
        kind = sig.parameters[name].kind
        if kind == _fp_inspect.Parameter.VAR_POSITIONAL:
            out[name] = [_fp_arg(x) for x in val]
        elif kind == _fp_inspect.Parameter.VAR_KEYWORD:
            for k in sorted(val):
                out[k] = _fp_arg(val[k])
        else:
            out[name] = _fp_arg(val)
    out["__explicit__"] = explicit
    return out
# --- end fingerprint helpers ---
