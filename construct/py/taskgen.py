# novelapi Stage 3 task builder (offline, execute-then-assert).
#
# Runs inside the sandbox. Reads /job/input.json: {"apis": [{"api_name",
# "aliases", "examples": [code, ...], "prefer": {...} (modified APIs, see
# find_target)}]} and writes /out/tasks.json: one
# record per usable example with the split (context / target statement), the
# result's description, the shape of the target call (keyword names,
# positional count), the assertions that hold on two reference runs and
# fail when the target is replaced by a null stub, and the example's own
# assertions (a test's asserts) that hold on both reference runs.
import ast
import builtins
import copy
import io
import json
import math
import contextlib
import inspect
import traceback

from stubs import run_bootstrap, stubbed

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


NP = "__import__('numpy')"
MAX_ATTRS = 8       # public attributes of a result object asserted on
MAX_KEYS = 16       # dict values asserted on
MAX_STR = 500       # longer strings are compared by digest


def rtol_of(dtype=None):
    """Relative tolerance of a value assertion: a thousand units in the last
    place of the value's float type, at least 1e-6 (float64) and at most
    1e-2 (float16); docs/mutants.md §4."""
    try:
        import numpy as np
        eps = float(np.finfo(dtype if dtype is not None and np.dtype(dtype).kind in "fc" else np.float64).eps)
    except Exception:
        eps = 2.220446049250313e-16
    return min(1e-2, max(1e-6, 1e3 * eps))


def positions(size):
    """Flat positions asserted on: all of them up to MAX_ITEMS, else
    MAX_ITEMS evenly spaced ones including the first and the last."""
    if size <= MAX_ITEMS:
        return None
    step = (size - 1) / (MAX_ITEMS - 1)
    return sorted({int(round(i * step)) for i in range(MAX_ITEMS)})


def array_values(expr, arr):
    """Value assertions about a numpy array (or the values of a pandas
    object) arr, whose source is expr: exact equality for integers and
    booleans, closeness with a tolerance derived from the recorded values
    for floats and complex numbers, string equality for the rest; on every
    element, or on MAX_ITEMS evenly spaced ones plus the sum of magnitudes."""
    import numpy as np
    out = []
    flat = arr.ravel()
    pos = positions(flat.size)
    pick = "" if pos is None else "[%r]" % pos
    sel = flat if pos is None else flat[pos]
    kind = arr.dtype.kind
    rtol = rtol_of(arr.dtype)
    if kind in "biufc":
        mags = np.abs(np.asarray(flat, dtype=complex if kind == "c" else float))
        mags = mags[np.isfinite(mags)]
        scale = float(np.max(mags)) if mags.size else 0.0
        atol = rtol * scale
    if kind in "biu":
        out.append("%s.asarray(%s).ravel()%s.tolist() == %s" % (NP, expr, pick, py(np.asarray(sel).tolist())))
    elif kind == "f":
        out.append("%s.allclose(%s.asarray(%s, dtype=float).ravel()%s, %s, rtol=%r, atol=%r, equal_nan=True)"
                   % (NP, NP, expr, pick, py([float(x) for x in np.asarray(sel, dtype=float).tolist()]), rtol, atol))
    elif kind == "c":
        sv = np.asarray(sel, dtype=complex)
        out.append("%s.allclose(%s.asarray(%s, dtype=complex).ravel()%s, %s.asarray(%s) + 1j * %s.asarray(%s), rtol=%r, atol=%r, equal_nan=True)"
                   % (NP, NP, expr, pick, NP, py([float(x) for x in sv.real.tolist()]), NP, py([float(x) for x in sv.imag.tolist()]), rtol, atol))
    else:
        out.append("[str(_x) for _x in %s.asarray(%s, dtype=object).ravel()%s.tolist()] == %s"
                   % (NP, expr, pick, py([str(x) for x in np.asarray(sel, dtype=object).tolist()])))
    if pos is not None and kind in "biufc" and mags.size:
        total = float(np.sum(mags))
        out.append("abs(float(%s.sum(%s.nan_to_num(%s.abs(%s.asarray(%s, dtype=%s)), nan=0.0, posinf=0.0))) - %r) <= %r"
                   % (NP, NP, NP, NP, expr, "complex" if kind == "c" else "float", total, rtol * total + atol))
    return out


def scalar_value(expr, v):
    """A value assertion about a number (int, float, complex, numpy scalar)."""
    if isinstance(v, bool):
        return "bool(%s) is %r" % (expr, v)
    kind = getattr(getattr(v, "dtype", None), "kind", "")
    if isinstance(v, int) or (kind and kind in "iub"):
        return "int(%s) == %d" % (expr, int(v))
    c = complex(v)
    if c != c:
        return "complex(%s) != complex(%s)" % (expr, expr)
    if not math.isfinite(abs(c)):
        return "complex(%s) == complex(%r)" % (expr, c)
    rtol = rtol_of(getattr(v, "dtype", None))
    return "abs(complex(%s) - complex(%r)) <= %r" % (expr, c, rtol * abs(c))


def is_scalar(x):
    return isinstance(x, (bool, int, float, str)) or x is None


def assertions(expr, v, depth=0):
    """Candidate assertion expressions about the value of expr: its type,
    shape and dtype, and its values with tolerances derived from the
    recorded value (docs/mutants.md §4)."""
    out = []
    tm = type(v).__module__.split(".")[0]
    tn = type(v).__name__
    if v is None:
        return ["%s is None" % expr]
    out.append("type(%s).__name__ == %r" % (expr, tn))
    if isinstance(v, bool):
        out.append("bool(%s) is %r" % (expr, v))
        return out
    if tm == "numpy" and hasattr(v, "shape") and hasattr(v, "dtype") and hasattr(v, "ravel") and getattr(v, "ndim", 0) > 0:
        out.append("tuple(%s.shape) == %r" % (expr, tuple(int(x) for x in v.shape)))
        out.append("str(%s.dtype) == %r" % (expr, str(v.dtype)))
        try:
            import numpy as np
            out.extend(array_values(expr, np.asarray(v)))
        except Exception:
            pass
        return out
    if tm == "pandas" and hasattr(v, "shape"):
        out.append("tuple(%s.shape) == %r" % (expr, tuple(int(x) for x in v.shape)))
        if hasattr(v, "columns"):
            out.append("[str(_c) for _c in %s.columns] == %s" % (expr, py([str(c) for c in v.columns])))
        if hasattr(v, "dtype"):
            out.append("str(%s.dtype) == %r" % (expr, str(v.dtype)))
        elif hasattr(v, "dtypes") and hasattr(v, "columns") and len(v.columns) <= MAX_ITEMS:
            out.append("[str(_d) for _d in %s.dtypes] == %s" % (expr, py([str(d) for d in v.dtypes])))
        # Labels' names: what rename and rename_axis set.
        for attr in ("name", "index.names", "columns.names"):
            try:
                val = v
                for part in attr.split("."):
                    val = getattr(val, part)
                val = [repr(x) for x in val] if attr.endswith("names") else repr(val)
            except Exception:
                continue
            if attr.endswith("names"):
                out.append("[repr(_n) for _n in %s.%s] == %s" % (expr, attr, py(val)))
            else:
                out.append("repr(%s.%s) == %s" % (expr, attr, py(val)))
        try:
            import numpy as np
            arr = np.asarray(v)
            if arr.dtype.kind not in "biufc":
                arr = np.asarray(v, dtype=object)
            out.extend(array_values(expr, arr))
            if hasattr(v, "index") and hasattr(v, "columns") or (hasattr(v, "index") and hasattr(v, "name")):
                idx = np.asarray(v.index, dtype=object)
                pos = positions(idx.size)
                pick = "" if pos is None else "[%r]" % pos
                sel = idx if pos is None else idx[pos]
                out.append("[str(_i) for _i in %s.asarray(%s.index, dtype=object)%s.tolist()] == %s"
                           % (NP, expr, pick, py([str(x) for x in sel.tolist()])))
        except Exception:
            pass
        return out
    if isinstance(v, (int, float, complex)) or (tm == "numpy" and hasattr(v, "item")):
        try:
            f = complex(v)
            out = ["isinstance(%s, (int, float, complex)) or type(%s).__module__ == 'numpy'" % (expr, expr)]
            out.append(scalar_value(expr, v))
        except Exception:
            out.append("str(%s) == %r" % (expr, str(v)))
        return out
    if isinstance(v, (str, bytes)):
        if len(v) <= MAX_STR:
            out.append("%s == %r" % (expr, v))
        else:
            import hashlib
            data = v.encode("utf-8", "surrogatepass") if isinstance(v, str) else v
            enc = ".encode('utf-8', 'surrogatepass')" if isinstance(v, str) else ""
            out.append("len(%s) == %d" % (expr, len(v)))
            out.append("__import__('hashlib').sha256(%s%s).hexdigest() == %r" % (expr, enc, hashlib.sha256(data).hexdigest()))
        return out
    if isinstance(v, (list, tuple)):
        out.append("len(%s) == %d" % (expr, len(v)))
        if 0 < len(v) <= MAX_ITEMS and all(is_scalar(x) and not isinstance(x, float) for x in v):
            out.append("list(%s) == %s" % (expr, py(list(v))))
        elif 0 < len(v) <= MAX_ITEMS and all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in v):
            try:
                import numpy as np
                out.extend(array_values(expr, np.asarray(v, dtype=float)))
            except Exception:
                pass
        elif depth < 2:
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
        if depth < 2:
            simple = sorted((k for k in v if isinstance(k, (str, int)) and not isinstance(k, bool)), key=repr)
            for k in simple[:MAX_KEYS]:
                out.extend(assertions("%s[%r]" % (expr, k), v[k], depth + 1))
        return out
    if isinstance(v, (set, frozenset)):
        out.append("len(%s) == %d" % (expr, len(v)))
        if len(v) <= MAX_ITEMS and all(is_scalar(x) for x in v):
            out.append("sorted(repr(_x) for _x in %s) == %s" % (expr, py(sorted(repr(x) for x in v))))
        return out
    if hasattr(v, "__len__") and not isinstance(v, type):
        try:
            out.append("len(%s) == %d" % (expr, len(v)))
        except Exception:
            pass
    if depth < 2 and not isinstance(v, type) and not callable(v):
        out.extend(attribute_assertions(expr, v, depth))
    return out


def attribute_assertions(expr, v, depth):
    """Value assertions about the public data attributes of a result object
    (scipy's result classes: statistic, pvalue, ...), at most MAX_ATTRS."""
    out, n = [], 0
    for name in dir(v):
        if n >= MAX_ATTRS:
            break
        if name.startswith("_") or not name.isidentifier():
            continue
        try:
            with contextlib.redirect_stdout(io.StringIO()):
                a = getattr(v, name)
        except Exception:
            continue
        if callable(a) or isinstance(a, type) or type(a).__name__ == "module":
            continue
        tm = type(a).__module__.split(".")[0]
        if not (isinstance(a, (int, float, complex, str, bytes, list, tuple)) or tm in ("numpy", "pandas")):
            continue
        out.extend(assertions("%s.%s" % (expr, name), a, depth + 1))
        n += 1
    return out


def holds(expr, ns):
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            return bool(eval(expr, ns))
    except Exception:
        return False


class _ToResult(ast.NodeTransformer):
    """Rewrites a statement of the example onto the task's `result`: the
    name the target statement bound (`H = f(G)`), or the target call itself
    (`assert f(G) == 3`), becomes `result`."""

    def __init__(self, bound, call):
        self.bound, self.call = bound, call

    def visit_Name(self, node):
        if node.id == self.bound and isinstance(node.ctx, ast.Load):
            return ast.copy_location(ast.Name("result", ast.Load()), node)
        return node

    def generic_visit(self, node):
        if node is self.call:
            return ast.copy_location(ast.Name("result", ast.Load()), node)
        return super().generic_visit(node)


def is_check_call(stmt):
    """Whether stmt is a call of an assertion function (numpy.testing's
    assert_array_equal, assert_allclose, ...): it raises when the check
    fails."""
    if not (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call)):
        return False
    f = stmt.value.func
    name = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""
    return name.startswith("assert") and "raises" not in name and "warns" not in name


def _binds_names(stmt):
    return {n.id for n in ast.walk(stmt) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}


def _loads_names(stmt):
    return {n.id for n in ast.walk(stmt) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


def _mentions(node, leaf):
    return any((isinstance(n, ast.Name) and n.id == leaf) or (isinstance(n, ast.Attribute) and n.attr == leaf)
               for n in ast.walk(node))


def own_assertions(tree, idx, call, leaf, known):
    """The example's own checks of the target's result (a test's asserts
    and assertion-function calls) rewritten onto `result`, each with the
    statements between the target statement and itself that bind the names
    it uses (docs/protocol.md §7 Stage 3). A check is the assert holding the
    target call, or a later top-level check while the name the target
    statement bound still holds its result. Checks that mention the target
    (the hidden test must not call the API for the completion), use a name
    neither the context, builtins (known), their statements nor `result`
    bind, or whose statements mention the target, are left out.

    Returns [{"setup": [statement, ...], "check": source, "call": bool}]:
    call is true for an assertion-function call (run as a statement), false
    for an assert's expression."""
    st = tree.body[idx]
    out = []
    if isinstance(st, ast.Assert) or is_check_call(st):
        # In place: the call is found by identity (the tree is not used after).
        test = _ToResult(None, call).visit(st.test if isinstance(st, ast.Assert) else st.value)
        if not _mentions(test, leaf) and "result" in _loads_names(test) and _loads_names(test) <= known | {"result"}:
            out.append({"setup": [], "check": ast.unparse(test), "call": is_check_call(st)})
        return out
    if not (isinstance(st, ast.Assign) and st.value is call and len(st.targets) == 1 and isinstance(st.targets[0], ast.Name)):
        return out
    bound = st.targets[0].id
    later = []  # the statements since the target one, rewritten
    for s in tree.body[idx + 1:]:
        if bound in _binds_names(s):
            break  # the name no longer holds the target's result
        r = _ToResult(bound, None).visit(copy.deepcopy(s))
        if isinstance(s, ast.Assert) or is_check_call(s):
            check = r.test if isinstance(s, ast.Assert) else r.value
            need, setup = _loads_names(check), []
            for p in reversed(later):
                if _binds_names(p) & need and not isinstance(p, (ast.Assert, ast.Expr)):
                    setup.insert(0, p)
                    need = (need - _binds_names(p)) | _loads_names(p)
            if "result" not in _loads_names(check) or _mentions(check, leaf) or any(_mentions(p, leaf) for p in setup):
                later.append(r)
                continue
            if need <= known | {"result"}:
                out.append({"setup": [ast.unparse(p) for p in setup], "check": ast.unparse(check),
                            "call": is_check_call(s)})
        later.append(r)
    return out


def check_holds(a, ns):
    """Whether one of own_assertions' checks holds in a copy of ns (its
    setup may bind names; the copy keeps them out of ns)."""
    env = dict(ns)
    try:
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            for line in a["setup"]:
                exec(compile(line, "<example check>", "exec"), env)
            v = eval(compile(a["check"], "<example check>", "eval"), env)
        return True if a["call"] else bool(v)
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
    own = []
    for a in own_assertions(tree, idx, call, leaf, set(ns1) | set(dir(builtins))):
        if a not in own and check_holds(a, ns1) and check_holds(a, ns2):
            own.append(a)
    separates = [a for a in own if nss is None or "result" not in nss or not check_holds(a, nss)]
    in_place = []
    if not kept and not separates and nss is not None:
        kept, in_place = changed_inputs(used, call, ns1, ns2, nss)
    if not kept and not separates:
        return None, "no assertion separates the reference from a null stub"
    rec = {
        "context": context,
        "call": call_src,
        "masked": masked,
        "reference": ref,
        "assertions": kept,
        "example_assertions": own,
        "inputs": used,
        "in_place": in_place,
        "receiver": ast.unparse(call.func.value) if isinstance(call.func, ast.Attribute) else "",
        "args_src": ", ".join([ast.unparse(a) for a in call.args] +
                              [("**" if k.arg is None else k.arg + "=") + ast.unparse(k.value) for k in call.keywords]),
        "result_type": type(ns1["result"]).__module__.split(".")[0] + "." + type(ns1["result"]).__name__,
    }
    rec.update(call_shape(call, ns1))
    return rec, ""


def changed_inputs(used, call, ns1, ns2, nss):
    """Assertions on what the call changes in place (docs/protocol.md §7
    Stage 3): the state after the call of each context variable it
    receives (receiver or argument), kept where they hold on both
    reference runs and fail on the null-stub run (nss), which leaves the
    variable as the context made it. Modules, classes, callables and the
    result object itself are not inputs. Tried only when no assertion on
    the result separates the reference from the stub.

    Returns (assertions, names of the variables they check)."""
    kept, names = [], []
    res = ns1.get("result")
    for name in used:
        if name not in ns1 or name not in nss:
            continue
        v = ns1[name]
        if v is res or inspect.isroutine(v) or isinstance(v, type) or type(v).__name__ == "module":
            continue
        got = [a for a in assertions(name, v) if holds(a, ns1) and holds(a, ns2) and not holds(a, nss)]
        if got:
            kept.extend(got)
            names.append(name)
    return kept, names


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
    run_bootstrap(req.get("bootstrap"))
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
