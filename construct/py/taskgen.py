# novelapi Stage 3 task builder (offline, execute-then-assert).
#
# Runs inside the sandbox. Reads /job/input.json: {"apis": [{"api_name",
# "aliases", "examples": [code, ...], "prefer": {...} (modified APIs, see
# find_target)}]} and writes /out/tasks.json: one
# record per usable example with the split (context / target statement), the
# result's description, the shape of the target call (keyword names,
# positional count) and the assertions that hold on two reference runs and
# fail when the target is replaced by a null stub.
import ast
import io
import json
import math
import contextlib
import inspect
import traceback

from stubs import stubbed

MAX_ITEMS = 60


def is_target_call(node, leaf):
    if not isinstance(node, ast.Call):
        return False
    f = node.func
    if isinstance(f, ast.Name):
        return f.id == leaf
    if isinstance(f, ast.Attribute):
        return f.attr == leaf
    return False


def exercises(call, prefer):
    """Whether call passes a parameter whose signature changed, by the hints
    the Go side sends for modified APIs (prefer: {"keywords", "positions",
    "positions_from"}); Go decides the recorded verdict."""
    if not prefer:
        return False
    if any(k.arg in (prefer.get("keywords") or []) for k in call.keywords):
        return True
    n = call_shape(call, {})["n_positional"]
    frm = prefer.get("positions_from", -1)
    return any(i < n for i in (prefer.get("positions") or [])) or (frm is not None and 0 <= frm < n)


def find_target(tree, leaf, prefer=None):
    """Index of the top-level statement whose call of leaf becomes the task,
    that call, and the indices of earlier statements calling leaf that the
    context leaves out.

    It is the first statement calling leaf, unless prefer (a modified API)
    picks a later call that exercises the signature change and every earlier
    statement calling leaf is a bare expression (a doctest display line,
    print(...)) that the context can do without."""
    first, dropped = None, []
    for i, st in enumerate(tree.body):
        calls = [n for n in ast.walk(st) if is_target_call(n, leaf)]
        if not calls:
            continue
        if first is None:
            first = (i, calls[0])
        hit = next((c for c in calls if exercises(c, prefer)), None)
        if hit is not None:
            return i, hit, dropped
        if not isinstance(st, ast.Expr):
            break
        dropped.append(i)
    if first is None:
        return None, None, []
    return first[0], first[1], []


def run(src, ns):
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf), contextlib.redirect_stderr(buf):
        exec(compile(src, "<task>", "exec"), ns)
    return ns


def py(v):
    return "__import__('json').loads(%r)" % json.dumps(v)


def assertions(expr, v, depth=0):
    """Candidate assertion expressions about the value of expr."""
    out = []
    tm = type(v).__module__.split(".")[0]
    tn = type(v).__name__
    if v is None:
        return ["%s is None" % expr]
    out.append("type(%s).__name__ == %r" % (expr, tn))
    if isinstance(v, bool):
        out.append("bool(%s) is %r" % (expr, v))
        return out
    if tm == "numpy" and hasattr(v, "shape") and hasattr(v, "dtype"):
        out.append("tuple(%s.shape) == %r" % (expr, tuple(int(x) for x in v.shape)))
        out.append("str(%s.dtype) == %r" % (expr, str(v.dtype)))
        if v.dtype.kind in "biuf" and v.size <= MAX_ITEMS:
            out.append("__import__('numpy').allclose(__import__('numpy').asarray(%s, dtype=float), __import__('numpy').asarray(%s, dtype=float).reshape(%r), rtol=1e-6, atol=1e-9, equal_nan=True)"
                       % (expr, py([float(x) for x in v.ravel().tolist()]), tuple(int(x) for x in v.shape)))
        elif v.dtype.kind == "c" and v.size <= MAX_ITEMS:
            out.append("__import__('numpy').allclose(__import__('numpy').abs(%s), %s, rtol=1e-6, atol=1e-9)" % (expr, py([abs(x) for x in v.ravel().tolist()])))
        elif v.dtype.kind in "USO" and v.size <= MAX_ITEMS:
            out.append("[str(_x) for _x in __import__('numpy').asarray(%s).ravel().tolist()] == %s" % (expr, py([str(x) for x in v.ravel().tolist()])))
        return out
    if tm == "pandas" and hasattr(v, "shape"):
        out.append("tuple(%s.shape) == %r" % (expr, tuple(int(x) for x in v.shape)))
        if hasattr(v, "columns"):
            out.append("[str(_c) for _c in %s.columns] == %s" % (expr, py([str(c) for c in v.columns])))
        if hasattr(v, "dtype"):
            out.append("str(%s.dtype) == %r" % (expr, str(v.dtype)))
        try:
            import numpy as np
            arr = np.asarray(v)
            if arr.dtype.kind in "biuf" and arr.size <= MAX_ITEMS:
                out.append("__import__('numpy').allclose(__import__('numpy').asarray(%s, dtype=float).ravel(), %s, rtol=1e-6, atol=1e-9, equal_nan=True)"
                           % (expr, py([float(x) for x in arr.ravel().tolist()])))
            elif arr.size <= MAX_ITEMS:
                out.append("[str(_x) for _x in __import__('numpy').asarray(%s).ravel().tolist()] == %s" % (expr, py([str(x) for x in arr.ravel().tolist()])))
        except Exception:
            pass
        return out
    if isinstance(v, (int, float)) or (tm == "numpy" and hasattr(v, "item")):
        try:
            f = complex(v)
            if math.isfinite(abs(f)):
                out = ["isinstance(%s, (int, float, complex)) or type(%s).__module__ == 'numpy'" % (expr, expr)]
                out.append("abs(complex(%s) - complex(%r)) <= 1e-6 * max(1.0, abs(complex(%r)))" % (expr, f, f))
        except Exception:
            pass
        return out
    if isinstance(v, str):
        if len(v) <= 500:
            out.append("%s == %r" % (expr, v))
        else:
            out.append("len(%s) == %d" % (expr, len(v)))
        return out
    if isinstance(v, (list, tuple)):
        out.append("len(%s) == %d" % (expr, len(v)))
        if depth < 2:
            for i, item in enumerate(v[:4]):
                out.extend(assertions("%s[%d]" % (expr, i), item, depth + 1))
        return out
    if isinstance(v, dict):
        out.append("len(%s) == %d" % (expr, len(v)))
        try:
            keys = sorted(repr(k) for k in v)
            out.append("sorted(repr(_k) for _k in %s) == %s" % (expr, py(keys)))
        except Exception:
            pass
        return out
    if isinstance(v, (set, frozenset)):
        out.append("len(%s) == %d" % (expr, len(v)))
        return out
    if hasattr(v, "__len__") and not isinstance(v, type):
        try:
            out.append("len(%s) == %d" % (expr, len(v)))
        except Exception:
            pass
    return out


def holds(expr, ns):
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            return bool(eval(expr, ns))
    except Exception:
        return False


def names_in(node):
    return sorted({n.id for n in ast.walk(node) if isinstance(n, ast.Name)})


def build(api, code):
    """The task of one example: by the call find_target prefers for a
    modified API, else (or when that call gives no task, e.g. it is a
    same-named method of another class) by the first call."""
    prefer = api.get("prefer")
    task, why = build_at(api, code, prefer)
    if task is None and prefer:
        again, why2 = build_at(api, code, None)
        if again is not None:
            return again, ""
    return task, why


def build_at(api, code, prefer):
    leaf = api["api_name"].rsplit(".", 1)[-1]
    tree = ast.parse(code)
    idx, call, dropped = find_target(tree, leaf, prefer)
    if idx is None:
        return None, "no top-level statement calls " + leaf
    # Imports of the leaf itself belong to the answer, not the context.
    # Display-only lines of a doctest (a bare name or attribute) and repeated
    # imports are noise in the context.
    ctx_stmts, own_imports, seen = [], [], set()
    for k, s in enumerate(tree.body[:idx]):
        if k in dropped:
            continue
        if isinstance(s, ast.ImportFrom) and any(a.name == leaf for a in s.names):
            own_imports.append(s)
            continue
        if isinstance(s, ast.Expr) and isinstance(s.value, (ast.Name, ast.Attribute, ast.Constant, ast.Subscript)):
            continue
        if isinstance(s, (ast.Import, ast.ImportFrom)):
            key = ast.unparse(s)
            if key in seen:
                continue
            seen.add(key)
        ctx_stmts.append(s)
    context = "\n".join(ast.unparse(s) for s in ctx_stmts)
    call_src = ast.unparse(call)
    masked = "\n".join([ast.unparse(s) for s in own_imports] + ["result = " + call_src])
    ref = context + "\n" + masked if context else masked
    # Variables of the context that the call uses (for the description).
    defined = set()
    for st in ctx_stmts:
        for n in ast.walk(st):
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
                defined.add(n.id)
    used = [n for n in names_in(call) if n in defined]
    try:
        ns1 = run(ref, {"__name__": "__main__"})
        ns2 = run(ref, {"__name__": "__main__"})
    except Exception as e:
        return None, "reference failed: %s: %s" % (type(e).__name__, str(e)[:200])
    if "result" not in ns1:
        return None, "no result"
    cands = assertions("result", ns1["result"])
    try:
        with stubbed(api["api_name"], lambda *a, **k: None):
            try:
                nss = run(ref, {"__name__": "__main__"})
            except Exception:
                nss = None
    except Exception as e:
        return None, "stub failed: %s" % e
    kept = []
    for a in cands:
        if not holds(a, ns1) or not holds(a, ns2):
            continue
        if nss is not None and "result" in nss and holds(a, nss):
            continue
        kept.append(a)
    if not kept:
        return None, "no assertion separates the reference from a null stub"
    rec = {
        "context": context,
        "call": call_src,
        "masked": masked,
        "reference": ref,
        "assertions": kept,
        "inputs": used,
        "receiver": ast.unparse(call.func.value) if isinstance(call.func, ast.Attribute) else "",
        "args_src": ", ".join([ast.unparse(a) for a in call.args] +
                              [("**" if k.arg is None else k.arg + "=") + ast.unparse(k.value) for k in call.keywords]),
        "result_type": type(ns1["result"]).__module__.split(".")[0] + "." + type(ns1["result"]).__name__,
    }
    rec.update(call_shape(call, ns1))
    return rec, ""


def unbound_method(call, ns):
    """Whether call is Class.method(obj, ...), whose first argument is self."""
    if not isinstance(call.func, ast.Attribute):
        return False
    node = call.func.value
    while isinstance(node, ast.Attribute):
        node = node.value
    if not isinstance(node, ast.Name):  # only plain dotted names: no side effects
        return False
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            owner = eval(compile(ast.Expression(call.func.value), "<receiver>", "eval"), ns)
        return inspect.isclass(owner) and inspect.isfunction(inspect.getattr_static(owner, call.func.attr))
    except Exception:
        return False


def call_shape(call, ns):
    """The target call's keyword names (without **), its positional
    arguments before the first *iterable (an explicit self not counted),
    and whether it unpacks any."""
    n = 0
    for a in call.args:
        if isinstance(a, ast.Starred):
            break
        n += 1
    if n > 0 and unbound_method(call, ns):
        n -= 1
    return {
        "keywords": [k.arg for k in call.keywords if k.arg is not None],
        "n_positional": n,
        "unpacks": any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords),
    }


def main():
    with open("/job/input.json") as f:
        req = json.load(f)
    out = []
    for api in req["apis"]:
        for i, code in enumerate(api["examples"]):
            rec = {"api_name": api["api_name"], "example": i}
            try:
                task, why = build(api, code)
            except SyntaxError as e:
                task, why = None, "syntax error: %s" % e
            except Exception:
                task, why = None, "builder error: " + traceback.format_exc(limit=2)[-300:]
            if task is None:
                rec["skipped"] = why
            else:
                rec.update(task)
            out.append(rec)
            with open("/out/tasks.json", "w") as f:
                json.dump(out, f)


main()
