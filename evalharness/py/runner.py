# novelapi evaluation runner (trusted; copied read-only to /job/runner.py).
#
# Reads the per-run nonce from stdin, then /job/job.json:
#   setup  - parts [A]-[G] of the script (novelapibench-protocol §4.1)
#   plan   - extraction tiers (§3) computed by the Go side, or null
#   code   - the completion when plan is null
#   test   - execution_test with the call-record check spliced in ("" = none)
#   infer_argv, normalise_test, randomize_seeds - booleans
#   entry_point - when set, the completion's function of that name is wrapped
#                 after the completion runs, and the target calls made inside
#                 it up to the end of the test go to a spy record of phase
#                 "entry" (tasks whose tests call the completion's function)
#   entry_check - with entry_point: the target named in the AssertionError
#                 raised when the test passed but the entry point made no
#                 target call
# and runs setup, completion and test as one flat script in one namespace.
# Results go only to /out/records.jsonl, one JSON record per line, each with
# the nonce, ending with a "done" record that counts the records before it
# (sandbox-spec P6). stdout is never read by the harness.
import ast
import inspect  # noqa: F401  (see below)
import json
import linecache
import os
import sys
import tokenize  # noqa: F401
import traceback

# inspect and tokenize are imported before any task code runs: a hidden
# setup may break stdlib imports that happen later (CodeUpdateArena's rename
# of itertools.product deletes the name that tokenize uses at import), and
# both the monitor (inspect) and traceback printing (linecache -> tokenize)
# import them lazily.

SCRIPT = "_solution.py"
# Bound at import, before any completion runs: a completion may rebind
# builtins or json's functions, and the runner's own checks must not follow.
_dumps, _loads = json.dumps, json.loads


def make_spy_hook(n_max=200):
    # The monitor's one-shot hook (recording_monitor.py pops it from the
    # script's globals during setup). It keeps per-phase call counts and the
    # solution phase's call records (frozen to JSON when made) in this
    # closure, where names the completion assigns cannot reach them; the
    # verdict's target_called and spy counts come from here (sandbox-spec
    # §4.6). Builtins are bound as defaults at definition time.
    st = {"phase": "setup", "counts": {}, "calls": [], "reg": None}

    class Hook:
        __slots__ = ()

        def call(self, name, st=st, str=str):
            c = st["counts"].setdefault(st["phase"], {})
            c[str(name)] = c.get(str(name), 0) + 1

        def record(self, rec, st=st, len=len, dumps=_dumps, repr=repr):
            if st["phase"] == "solution" and len(st["calls"]) < n_max:
                try:
                    st["calls"].append(dumps(rec, default=repr))
                except Exception:
                    pass

        def recording(self, st=st):
            return st["phase"] == "solution"

        def calls(self, st=st, loads=_loads):
            return [loads(c) for c in st["calls"]]

        def register(self, installed, counter, check, st=st, bool=bool):
            if st["reg"] is None:
                st["reg"] = {"installed": bool(installed), "counter": counter, "check": check}

    return Hook(), st


def public_count(g, isinstance=isinstance, list=list, int=int, len=len):
    c = g.get("_target_api_call_count")
    if isinstance(c, list) and len(c) > 0 and isinstance(c[0], int):
        return c[0]
    return None


def _clean(o):
    if isinstance(o, float):
        if o != o:
            return "nan"
        if o in (float("inf"), float("-inf")):
            return "inf" if o > 0 else "-inf"
        return o
    if isinstance(o, dict):
        return {str(k): _clean(v) for k, v in o.items()}
    if isinstance(o, (list, tuple)):
        return [_clean(v) for v in o]
    if o is None or isinstance(o, (bool, int, str)):
        return o
    return repr(o)[:200]


def parseable(code):
    try:
        ast.parse(code)
        return True
    except BaseException:
        return False


def select_tiers(tiers):
    for tier in tiers or []:
        best, best_len = "", -1
        for c in tier["cands"]:
            if len(c) > best_len and parseable(c):
                best, best_len = c, len(c)
        if best_len >= 0:
            return best
    return ""


def extract(plan):
    code = select_tiers(plan.get("main"))
    if code == "" and plan.get("tail") is not None:
        code = select_tiers(plan.get("tail"))
    if code.startswith("def solution():"):
        code = code.split("\n", 1)[1] if "\n" in code else ""
    elif "def solution():" in code:
        code = code.split("def solution():", 1)[1]
    return code


def infer_cli_argv(test):
    # The first literal list of strings in a .parse_args([...]),
    # .parse_args(args=[...]) or .parse_args_into_dataclasses(...) call (§4.1),
    # in ast.walk order.
    try:
        tree = ast.parse(test)
    except BaseException:
        return []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
            continue
        if node.func.attr not in ("parse_args", "parse_args_into_dataclasses"):
            continue
        cands = list(node.args[:1]) + [k.value for k in node.keywords if k.arg == "args"]
        for c in cands:
            if isinstance(c, (ast.List, ast.Tuple)) and all(
                    isinstance(e, ast.Constant) and isinstance(e.value, str) for e in c.elts):
                return [e.value for e in c.elts]
    return []


def normalise_test(test):
    # _ensure_test_called (§4.1): call test_execution() if defined and never
    # called at top level; give top-level try/except blocks that assert an
    # else branch raising AssertionError.
    try:
        tree = ast.parse(test)
    except BaseException:
        return test
    lines = test.split("\n")
    inserts = []
    for node in tree.body:
        if not isinstance(node, ast.Try) or not node.handlers or node.orelse or node.finalbody:
            continue
        seg = "\n".join(lines[node.lineno - 1:node.end_lineno])
        if "assert " not in seg:
            continue
        h = node.handlers[0]
        exc = ast.unparse(h.type) if h.type is not None else "Exception"
        inserts.append((node.end_lineno, ["else:", "    raise AssertionError('Expected %s to be raised but it was not')" % exc.replace("'", "")]))
    for at, new in sorted(inserts, reverse=True):
        lines[at:at] = new
    out = "\n".join(lines)
    defined = any(isinstance(n, ast.FunctionDef) and n.name == "test_execution" for n in tree.body)
    called = any(isinstance(n, ast.Expr) and isinstance(n.value, ast.Call)
                 and isinstance(n.value.func, ast.Name) and n.value.func.id == "test_execution"
                 for n in tree.body)
    if defined and not called:
        out = out.rstrip("\n") + "\ntest_execution()\n"
    return out


SEED_CALLS = {"seed", "manual_seed", "manual_seed_all", "set_seed", "seed_everything", "default_rng",
              "RandomState", "Random", "PRNGKey", "Generator"}
SEED_KWARGS = {"seed", "random_state", "random_seed", "rng_seed"}


class _Randomise(ast.NodeTransformer):
    # §4.5 step 2: constant seeds become random ones.
    def visit_Call(self, node):
        self.generic_visit(node)
        f = node.func
        name = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""
        rnd = ast.parse("__import__('random').randrange(1, 2**31)", mode="eval").body
        if name in SEED_CALLS and node.args and isinstance(node.args[0], ast.Constant):
            node.args[0] = ast.copy_location(rnd, node.args[0])
        for k in node.keywords:
            if k.arg in SEED_KWARGS and isinstance(k.value, ast.Constant) and type(k.value.value) is int:
                k.value = ast.copy_location(ast.parse("__import__('random').randrange(1, 2**31)", mode="eval").body, k.value)
        return node


def randomise(src):
    try:
        tree = _Randomise().visit(ast.parse(src))
        return ast.unparse(ast.fix_missing_locations(tree))
    except BaseException:
        return src


def _leaf_of(call):
    f = call.func
    if isinstance(f, ast.Attribute):
        return f.attr
    if isinstance(f, ast.Name):
        return f.id
    return None


def judge_fields(code, reference, leaf):
    # The AST fields of the judge prompt (novelapibench-protocol §5.2), in
    # ast.walk (breadth-first) order.
    out = {"reference_call": "<unknown>", "api_called_leaf": "<none>", "kwargs": "{}"}
    if leaf:
        try:
            tree = ast.parse(reference or "")
            out["reference_call"] = leaf + "(...)"
            for node in ast.walk(tree):
                if isinstance(node, ast.Call) and _leaf_of(node) == leaf:
                    out["reference_call"] = ast.unparse(node)[:240]
                    break
        except BaseException:
            out["reference_call"] = "<unparseable>"
    try:
        calls = [n for n in ast.walk(ast.parse(code)) if isinstance(n, ast.Call)]
    except BaseException:
        calls = []
    target = [c for c in calls if leaf and _leaf_of(c) == leaf]
    if target:
        out["api_called_leaf"] = leaf
        kw = {k.arg or "**": ast.unparse(k.value) for k in target[0].keywords}
        out["kwargs"] = json.dumps(kw)[:400]
    elif calls:
        out["api_called_leaf"] = _leaf_of(calls[0]) or "<none>"
    return out


def wrap_entry(g, entry, priv, callable=callable, dict=dict, str=str, getattr=getattr, setattr=setattr):
    # Wrap g[entry] so that the target calls made while it runs (outermost
    # call only) are counted, in total and per target name, from the spy
    # hook's private counts (make_spy_hook; the phase never changes inside
    # one call), so a completion that writes _target_api_call_count cannot
    # fake them. The wrapper lives in the runner's module with its builtins
    # bound here, so names the script rebinds (an update that shadows a
    # builtin, a patched builtins module) cannot break it. Returns the
    # state, or None when the completion defined no such callable.
    f = g.get(entry)
    if not callable(f):
        return None
    state = {"count": 0, "apis": {}, "depth": 0}

    def snapshot():
        return dict(priv["counts"].get(priv["phase"], {}))

    def counted(*a, **kw):
        outer = state["depth"] == 0
        if outer:
            before = snapshot()
        state["depth"] += 1
        try:
            return f(*a, **kw)
        finally:
            state["depth"] -= 1
            if outer:
                for k, v in snapshot().items():
                    d = v - before.get(k, 0)
                    if d > 0:
                        state["count"] += d
                        state["apis"][str(k)] = state["apis"].get(str(k), 0) + d

    for attr in ("__name__", "__qualname__", "__doc__", "__module__"):
        try:
            setattr(counted, attr, getattr(f, attr))
        except Exception:
            pass
    counted.__wrapped__ = f
    g[entry] = counted
    return state


def frames_of(tb):
    out = []
    while tb is not None:
        f = tb.tb_frame
        out.append({"file": f.f_code.co_filename, "func": f.f_code.co_name, "line": tb.tb_lineno,
                    "module": str(f.f_globals.get("__name__", ""))})
        tb = tb.tb_next
    return out[-40:]


def main():
    nonce = sys.stdin.readline().strip()
    try:
        sys.stdin.close()
        sys.stdin = open(os.devnull)
    except Exception:
        pass
    out = open(os.path.join("/out", "records.jsonl"), "w")
    count = [0]

    def emit(rec):
        rec["nonce"] = nonce
        out.write(_dumps(_clean(rec)) + "\n")
        out.flush()
        count[0] += 1

    def finish(status, code):
        emit({"type": "done", "status": status, "n": count[0]})
        out.close()
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        except Exception:
            pass
        os._exit(code)

    with open("/job/job.json") as f:
        job = json.load(f)
    emit({"type": "start"})
    if job.get("plan") is not None:
        code = extract(job["plan"])
    else:
        code = job.get("code") or ""
    rec = {"type": "extract", "code": code}
    if job.get("judge_leaf") is not None:
        rec["judge"] = judge_fields(code, job.get("reference") or "", job["judge_leaf"])
    emit(rec)
    setup = job.get("setup") or ""
    test = job.get("test") or ""
    if job.get("randomize_seeds"):
        setup = randomise(setup)
        code = randomise(code) if parseable(code) else code
    if test and job.get("normalise_test", True):
        test = normalise_test(test)
    argv = infer_cli_argv(job.get("execution_test") or test) if job.get("infer_argv", True) else []
    raw = (("setup", setup), ("solution", code), ("test", test))
    parts = [(name, p.strip()) for name, p in raw]
    parts = [(name, p) for name, p in parts if p]
    flat = "\n\n".join(p for _, p in parts)
    # Where each part sits in the flat script, so that the harness can tell
    # the user "line N of your code" instead of a line of the assembled
    # script: start is its first line in the flat script, lines its line
    # count, lead the blank lines strip() removed before it.
    layout, at = [], 1
    for name, p in raw:
        if p.strip():
            lead = p[:len(p) - len(p.lstrip())].count("\n")
            layout.append({"name": name, "start": at, "lines": p.strip().count("\n") + 1, "lead": lead})
            at += p.strip().count("\n") + 2
    emit({"type": "layout", "parts": layout})
    linecache.cache[SCRIPT] = (len(flat), None, flat.splitlines(True), SCRIPT)
    sys.argv = [SCRIPT] + argv
    g = {"__name__": "__main__", "__builtins__": __builtins__}
    hook, priv = make_spy_hook()
    g["__novelapi_spy_hook__"] = hook
    verify = job.get("verify") or None

    def spy_state(phase):
        if priv["reg"] is not None and "solution" in priv["counts_at"]:
            # The hook's own state (the units ran apart): what the spy saw
            # during the solution phase, whatever the completion assigned.
            per = priv["counts_at"]["solution"]
            return {"type": "spy", "phase": phase, "installed": priv["reg"]["installed"],
                    "count": sum(per.values()), "calls": hook.calls(), "apis": dict(per), "private": True}
        cnt = g.get("_target_api_call_count")
        calls = g.get("_target_api_calls")
        per = g.get("_target_api_counts")
        return {"type": "spy", "phase": phase,
                "installed": bool(g.get("_target_api_spy_installed", False)),
                "count": cnt[0] if isinstance(cnt, list) and cnt and isinstance(cnt[0], int) else -1,
                "calls": list(calls[:200]) if isinstance(calls, list) else [],
                "apis": {str(k): v for k, v in per.items() if isinstance(v, int)} if isinstance(per, dict) else {}}

    entry = job.get("entry_point") or ""
    entry_state = [None]

    def entry_record():
        # The entry point's target calls; when the script ran as one unit
        # (no wrap was possible) the whole count, marked unattributed.
        st = entry_state[0]
        if st is not None:
            return {"type": "spy", "phase": "entry", "installed": bool(g.get("_target_api_spy_installed", False)),
                    "count": st["count"], "calls": [], "apis": dict(st["apis"])}
        rec = spy_state("entry")
        rec["calls"] = []
        rec["unattributed"] = bool(units and units[0][0] == "all")
        if not rec["unattributed"]:
            rec["count"], rec["apis"] = 0, {}
        return rec

    try:
        compile(flat, SCRIPT, "exec", dont_inherit=True)
    except BaseException as e:
        # SyntaxError, ValueError (NUL bytes), RecursionError, MemoryError.
        emit_exception(emit, "compile", e)
        traceback.print_exception(e)
        finish("raised", 1)
    try:
        # Compile each part at its line offset so that tracebacks show the
        # flat script's lines; fall back to one unit if a part fails alone.
        units = []
        offset = 0
        for name, p in parts:
            units.append((name, compile("\n" * offset + p, SCRIPT, "exec", dont_inherit=True)))
            offset += p.count("\n") + 2
    except BaseException:
        units = [("all", compile(flat, SCRIPT, "exec", dont_inherit=True))]
    emit({"type": "phase", "name": "compiled"})
    priv["counts_at"] = {}
    pub_start = [None]
    for name, unit in units:
        phase = name
        priv["phase"] = name
        if name == "solution":
            pub_start[0] = public_count(g)
        if name == "test":
            emit(spy_state("solution"))
        try:
            exec(unit, g)
        except BaseException as e:
            st = spy_state(phase)
            info = None
            for exc, note in list(g.get("_target_api_raised") or []):
                chain, seen = e, 0
                while chain is not None and seen < 10:
                    if chain is exc:
                        info = dict(note)
                        info["chained"] = chain is not e
                        break
                    chain = chain.__cause__ or chain.__context__
                    seen += 1
                if info:
                    break
            emit_exception(emit, phase, e, info)
            if phase != "test":
                emit(st)
            if entry and phase in ("test", "all"):
                emit(entry_record())
            traceback.print_exception(e)
            finish("raised", 1)
        if name == "solution":
            priv["counts_at"]["solution"] = dict(priv["counts"].get("solution", {}))
            why = tampered(g, priv, pub_start[0])
            if why:
                emit(spy_state("solution"))
                emit({"type": "tamper", "reason": why})
                print("novelapi: harness tamper: " + why, file=sys.stderr)
                finish("tamper", 1)
        emit({"type": "phase", "name": name})
        if entry and name == "solution":
            entry_state[0] = wrap_entry(g, entry, priv)
    if not any(n == "test" for n, _ in units):
        emit(spy_state("solution"))
    if verify and "solution" in priv["counts_at"]:
        # The test passed; confirm the monitor's assertions from the hook's
        # own state, in case the completion disabled the in-script ones.
        msg = ""
        if sum(priv["counts_at"]["solution"].values()) == 0:
            msg = "solution did not call target API " + str(verify.get("target"))
        elif verify.get("expected") is not None and priv["reg"] is not None:
            try:
                priv["reg"]["check"](_dumps(verify["expected"]))
            except AssertionError as e:
                msg = str(e)
            except Exception as e:
                msg = "call-record check failed: %s: %s" % (type(e).__name__, e)
        if msg:
            e = AssertionError(msg)
            emit_exception(emit, "test", e)
            print("AssertionError: " + msg, file=sys.stderr)
            finish("raised", 1)
    if entry:
        rec = entry_record()
        emit(rec)
        if job.get("entry_check") and not rec["count"] > 0:
            e = AssertionError("solution did not call target API " + job["entry_check"])
            emit_exception(emit, "test", e)
            print("AssertionError: " + str(e), file=sys.stderr)
            finish("raised", 1)
    finish("ok", 0)


def tampered(g, priv, pub_start):
    # Why the completion's phase cannot be trusted, or "": it rebound or wrote
    # the monitor's call counter (the check block reads it), so its value
    # differs from what the spy itself counted.
    reg = priv["reg"]
    if reg is None:
        return ""
    if g.get("_target_api_call_count") is not reg["counter"]:
        return "the completion rebound _target_api_call_count"
    seen = sum(priv["counts_at"].get("solution", {}).values())
    now = public_count(g)
    if pub_start is not None and (now is None or now - pub_start != seen):
        return "the completion wrote _target_api_call_count (it reads %s, the spy counted %d calls)" % (
            "?" if now is None else now - pub_start, seen)
    return ""


def emit_exception(emit, phase, e, target=None):
    t = type(e)
    rec = {"type": "exception", "phase": phase, "exc": t.__name__,
           "exc_module": getattr(t, "__module__", ""), "msg": str(e)[:1000],
           "frames": frames_of(e.__traceback__)}
    if isinstance(e, NameError):
        rec["name"] = getattr(e, "name", None)
    if isinstance(e, AttributeError):
        rec["name"] = getattr(e, "name", None)
        try:
            obj = getattr(e, "obj", None)
            rec["obj_module"] = getattr(obj, "__name__", None) if isinstance(obj, type(sys)) else \
                getattr(obj, "__module__", None)
            rec["obj_name"] = getattr(obj, "__name__", None)
        except Exception:
            pass
    if isinstance(e, ImportError):
        rec["name"] = getattr(e, "name", None)
        rec["name_from"] = getattr(e, "name_from", None)
    if target is not None:
        rec["target"] = target
    emit(rec)


if __name__ == "__main__":
    main()
