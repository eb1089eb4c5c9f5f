# novelapi evaluation runner (trusted; copied read-only to /job/runner.py).
#
# Reads the per-run nonce from stdin, then /job/job.json:
#   setup  - parts [A]-[G] of the script (novelapibench-protocol §4.1)
#   plan   - extraction tiers (§3) computed by the Go side, or null
#   code   - the completion when plan is null
#   test   - execution_test with the call-record check spliced in ("" = none)
#   infer_argv, normalise_test, randomize_seeds - booleans
# and runs setup, completion and test as one flat script in one namespace.
# Results go only to /out/records.jsonl, one JSON record per line, each with
# the nonce, ending with a "done" record that counts the records before it
# (sandbox-spec P6). stdout is never read by the harness.
import ast
import json
import linecache
import os
import sys
import traceback

SCRIPT = "_solution.py"


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
        out.write(json.dumps(_clean(rec)) + "\n")
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
    parts = [(name, p.strip()) for name, p in (("setup", setup), ("solution", code), ("test", test))]
    parts = [(name, p) for name, p in parts if p]
    flat = "\n\n".join(p for _, p in parts)
    linecache.cache[SCRIPT] = (len(flat), None, flat.splitlines(True), SCRIPT)
    sys.argv = [SCRIPT] + argv
    g = {"__name__": "__main__", "__builtins__": __builtins__}

    def spy_state(phase):
        cnt = g.get("_target_api_call_count")
        calls = g.get("_target_api_calls")
        return {"type": "spy", "phase": phase,
                "installed": bool(g.get("_target_api_spy_installed", False)),
                "count": cnt[0] if isinstance(cnt, list) and cnt and isinstance(cnt[0], int) else -1,
                "calls": list(calls[:200]) if isinstance(calls, list) else []}

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
    for name, unit in units:
        phase = name
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
            traceback.print_exception(e)
            finish("raised", 1)
        emit({"type": "phase", "name": name})
    if not any(n == "test" for n, _ in units):
        emit(spy_state("solution"))
    finish("ok", 0)


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
