# novelapi Stage 3, LLM generator: the in-sandbox half.
#
# Reads /job/input.json: {"api_name", "module", "tasks": [{"key",
# "reference", "scenarios": {name: code}}]} and writes /out/llmgen.json: per
# task whether the reference runs, how many of the six scenarios ran, and the
# three assertion layers (docs/protocol.md §4.3) that pass with the
# real target and fail with both null stubs (zeros_like(first array arg) and
# None).
import contextlib
import io
import json
import traceback

from stubs import run_bootstrap, stubbed

SCENARIOS = ["basic_1", "basic_2", "changed_input_1", "changed_input_2", "edge_1", "edge_2"]

NONZERO_HELPER = '''def _nv_nonzero(r):
    try:
        import numpy as _np
        return bool(_np.any(_np.asarray(r, dtype=float) != 0))
    except Exception:
        try:
            return len(r) > 0
        except Exception:
            return r is not None
'''

DIFFER_HELPER = '''def _nv_differ(a, b):
    try:
        import numpy as _np
        A, B = _np.asarray(a), _np.asarray(b)
        if A.shape == B.shape and A.dtype.kind in "biufc" and B.dtype.kind in "biufc":
            return not _np.allclose(A, B, equal_nan=True)
        if A.shape == B.shape and A.dtype.kind != "O":
            return bool(_np.any(A != B))
    except Exception:
        pass
    return str(a) != str(b)
'''


def run(src):
    ns = {"__name__": "__main__"}
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf), contextlib.redirect_stderr(buf):
        exec(compile(src, "<llmgen>", "exec"), ns)
    return ns


def zeros_stub(*a, **k):
    import numpy as np
    for x in list(a) + list(k.values()):
        if isinstance(x, np.ndarray) or (hasattr(x, "__array__") and not isinstance(x, type)):
            return np.zeros_like(np.asarray(x))
    return None


def none_stub(*a, **k):
    return None


def describe(v):
    d = {"type": type(v).__module__ + "." + type(v).__qualname__}
    shape = getattr(v, "shape", None)
    if shape is not None and not callable(shape):
        try:
            d["shape"] = repr(shape)
        except Exception:
            pass
    if hasattr(v, "dtype"):
        d["dtype"] = str(v.dtype)
    try:
        d["len"] = len(v)
    except Exception:
        pass
    try:
        r = repr(v)
        if len(r) <= 200 and " at 0x" not in r:
            d["value"] = r
    except Exception:
        pass
    ns = {}
    exec(NONZERO_HELPER, ns)
    d["nonzero"] = ns["_nv_nonzero"](v)
    try:
        import numpy as np
        d["sum"] = float(np.sum(np.asarray(v, dtype=float)))
    except Exception:
        pass
    return d


def structural(code, d, what):
    """Layer 1/3: the scenario, then one structural assertion."""
    lines = [code.rstrip()]
    if "shape" in d:
        lines.append("assert hasattr(result, 'shape') and repr(result.shape) == %r, %r" % (d["shape"], what + ": shape"))
    elif "len" in d:
        lines.append("assert len(result) == %d, %r" % (d["len"], what + ": length"))
    elif "value" in d:
        lines.append("assert repr(result) == %r, %r" % (d["value"], what + ": value"))
    else:
        return None
    if d.get("nonzero"):
        lines.append(NONZERO_HELPER.rstrip())
        lines.append("assert _nv_nonzero(result), %r" % (what + ": all zeros or empty"))
    return "\n".join(lines) + "\n"


def comparison(code_a, code_b):
    """Layer 2: the basic and the changed-input scenario differ."""
    return "\n".join([code_a.rstrip(), "_nv_a = result", code_b.rstrip(), "_nv_b = result",
                      DIFFER_HELPER.rstrip(),
                      "assert _nv_differ(_nv_a, _nv_b), 'changed input gave the same result'"]) + "\n"


def passes(src, api_name=None, stub=None):
    try:
        if stub is None:
            run(src)
        else:
            with stubbed(api_name, stub):
                run(src)
        return True
    except BaseException:
        return False


def keep(layer, api_name):
    """The null-stub filter: the layer passes for real, fails under both stubs."""
    if layer is None or not passes(layer):
        return ""
    if passes(layer, api_name, zeros_stub) or passes(layer, api_name, none_stub):
        return ""
    return layer


def build(api_name, module, t):
    out = {"key": t["key"], "scenarios_total": len(SCENARIOS), "scenarios_succeeded": 0}
    try:
        run(("import %s\n" % module if module else "") + t["reference"])
    except BaseException as e:
        out["why"] = "reference failed: %s: %s" % (type(e).__name__, str(e)[:200])
        return out
    ok, desc = {}, {}
    for name in SCENARIOS:
        code = (t.get("scenarios") or {}).get(name) or ""
        if not code.strip():
            continue
        try:
            ns = run(code)
        except BaseException:
            continue
        if "result" not in ns:
            continue
        ok[name] = code
        desc[name] = describe(ns["result"])
    out["scenarios_succeeded"] = len(ok)
    if len(ok) < 2:
        out["why"] = "only %d of %d scenarios ran" % (len(ok), len(SCENARIOS))
        return out
    basic = next((n for n in ("basic_1", "basic_2") if n in ok), None)
    changed = next((n for n in ("changed_input_1", "changed_input_2") if n in ok), None)
    edge = next((n for n in ("edge_1", "edge_2") if n in ok), None)
    l1 = structural(ok[basic], desc[basic], basic) if basic else None
    l2 = comparison(ok[basic], ok[changed]) if basic and changed else None
    l3 = structural(ok[edge], desc[edge], edge) if edge else None
    out["layers"] = [keep(l1, api_name), keep(l2, api_name), keep(l3, api_name)]
    if not any(out["layers"]):
        out["why"] = "no assertion layer separates the target from a null stub"
    return out


def main():
    with open("/job/input.json") as f:
        req = json.load(f)
    run_bootstrap(req.get("bootstrap"))
    res = []
    for t in req["tasks"]:
        try:
            res.append(build(req["api_name"], req.get("module", ""), t))
        except Exception:
            res.append({"key": t.get("key"), "why": "builder error: " + traceback.format_exc(limit=2)[-300:]})
        with open("/out/llmgen.json", "w") as f:
            json.dump(res, f)


main()
