# novelapi mutant check (docs/mutants.md).
#
# Runs inside the sandbox. Reads /job/input.json: {"tasks": [{"task_id",
# "api_name", "prefix" (import line, hidden setup, context and leaf binding,
# as evaluation runs them), "completion" (the reference's masked region),
# "test" (execution_test after the end-check marker), "siblings" (sibling
# leaves to try first), "variant_wall" (seconds per mutant), "reference_wall"
# (seconds for the reference), "skip" ([name, what] of mutants that crashed
# the interpreter in an earlier run)}]} and writes
# /out/mutants.json: one report per task, rewritten after every variant so
# that a run cut short keeps what it decided.
#
# The reference and every mutant run in a fresh namespace without the spy;
# a mutant is "killed" when the test raises (a failed assertion or any
# other exception), "survived" when the test passes, "invalid" when the
# mutant itself raised (it is not a wrong answer a test could catch) and
# "equivalent" when its outputs equal the reference's (no test can tell).
import ast
import contextlib
import difflib
import importlib
import io
import json
import math
import signal
import sys
import traceback

MAX_SIBLINGS = 8      # sibling candidates tried per task
MAX_DROPPED = 4       # arguments dropped, one per mutant
MUTANT_KINDS = ("zero", "constant", "sibling-api", "dropped-argument", "changed-input")

# Accessors that read only a value's type, shape or size (an assertion made
# of these alone is structural; docs/mutants.md §2).
STRUCTURAL_ATTRS = {"shape", "dtype", "dtypes", "ndim", "size", "columns", "__name__", "__module__",
                    "__class__", "__qualname__", "nbytes", "itemsize"}
STRUCTURAL_CALLS = {"type", "isinstance", "issubclass", "len", "callable", "hasattr"}


# The constant mutant: an array of ones of the output's shape and dtype, or
# the output's type called without arguments (0, "", [], {}, an empty frame).
CONSTANT = "%s = __import__('numpy').ones_like(%s) if type(%s).__name__ == 'ndarray' else type(%s)()"


class VariantTimeout(BaseException):
    pass


def _alarm(signum, frame):
    raise VariantTimeout()


class _Sink(io.TextIOBase):
    def write(self, s):
        return len(s)


def execute(src, ns, name, wall):
    signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, wall)
    try:
        with contextlib.redirect_stdout(_Sink()), contextlib.redirect_stderr(_Sink()):
            exec(compile(src, name, "exec"), ns)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)


def describe(e):
    if isinstance(e, VariantTimeout):
        return "timed out"
    msg = str(e).strip().splitlines()
    return (type(e).__name__ + (": " + msg[0] if msg else ""))[:200]


def fresh_ns():
    # The check block's names, for tests that read them after the marker.
    return {"__name__": "__main__", "_target_api_call_count": [1], "_target_api_spy_installed": True}


def run_completion(task, completion, wall=None):
    """Runs prefix + completion; returns (namespace, error)."""
    wall = wall or task["variant_wall"]
    ns = fresh_ns()
    try:
        execute(task["prefix"], ns, "<setup>", wall)
    except BaseException as e:
        return None, "setup: " + describe(e)
    try:
        execute(completion, ns, "<completion>", wall)
    except BaseException as e:
        return None, describe(e)
    return ns, ""


def normalise_test(test):
    """The test as the evaluation runs it (docs/protocol.md §4.1 _ensure_test_called,
    as runner.py does): a top-level try/except around assertions gets an
    else branch raising AssertionError, and test_execution() is called when
    defined but never called."""
    try:
        tree = ast.parse(test)
    except SyntaxError:
        return test
    lines = test.split("\n")
    inserts = []
    for node in tree.body:
        if not isinstance(node, ast.Try) or not node.handlers or node.orelse or node.finalbody:
            continue
        if "assert " not in "\n".join(lines[node.lineno - 1:node.end_lineno]):
            continue
        h = node.handlers[0]
        exc = ast.unparse(h.type) if h.type is not None else "Exception"
        inserts.append((node.end_lineno, ["else:", "    raise AssertionError('Expected %s to be raised but it was not')" % exc.replace("'", "")]))
    for at, new in sorted(inserts, reverse=True):
        lines[at:at] = new
    out = "\n".join(lines)
    defined = any(isinstance(n, ast.FunctionDef) and n.name == "test_execution" for n in tree.body)
    called = any(isinstance(n, ast.Expr) and isinstance(n.value, ast.Call) and isinstance(n.value.func, ast.Name)
                 and n.value.func.id == "test_execution" for n in tree.body)
    if defined and not called:
        out = out.rstrip("\n") + "\ntest_execution()\n"
    return out


def run_test(task, ns):
    """Runs the test in ns; returns "" when it passed, else why it failed."""
    try:
        execute(task["test"], ns, "<test>", task["variant_wall"])
    except BaseException as e:
        return describe(e) or "failed"
    return ""


# Mutant outputs within this relative distance of the reference's (and
# within it times the largest magnitude, elementwise) are the same answer:
# the tolerance of float64 value assertions (docs/mutants.md §1, §4).
EQ_RTOL = 1e-6


def close_arrays(a, b):
    """Whether numeric arrays b and a agree within EQ_RTOL of a's scale."""
    import numpy as np
    a = np.asarray(a)
    b = np.asarray(b)
    if a.shape != b.shape:
        return False
    if a.dtype.kind not in "biufc" or b.dtype.kind not in "biufc":
        return bool(np.array_equal(a, b))
    if a.dtype.kind in "biu" and b.dtype.kind in "biu":
        return bool(np.array_equal(a, b))
    mags = np.abs(a[np.isfinite(a)])
    scale = float(np.max(mags)) if mags.size else 0.0
    return bool(np.allclose(b, a, rtol=EQ_RTOL, atol=EQ_RTOL * scale, equal_nan=True))


def same(a, b, depth=0):
    """Whether b is the same answer as a as far as a test should tell: equal
    types and structure, equal labels, integers and strings, and floats
    within EQ_RTOL (an equivalent mutant)."""
    if a is b:
        return True
    if type(a) is not type(b) or depth > 6:
        return False
    try:
        if a is None or isinstance(a, (bool, int, str, bytes)):
            return a == b
        if isinstance(a, (float, complex)):
            return a == b or (a != a and b != b) or abs(a - b) <= EQ_RTOL * abs(a)
        mod = type(a).__module__.split(".")[0]
        if mod == "numpy" and hasattr(a, "shape") and hasattr(a, "dtype"):
            if getattr(a, "shape", None) != getattr(b, "shape", None) or a.dtype != b.dtype:
                return False
            return close_arrays(a, b)
        if mod == "pandas" and hasattr(a, "equals"):
            if bool(a.equals(b)):
                ok = True
            elif hasattr(a, "dtypes") and hasattr(a, "to_numpy"):
                da = list(a.dtypes) if hasattr(a.dtypes, "__iter__") else [a.dtypes]
                db = list(b.dtypes) if hasattr(b.dtypes, "__iter__") else [b.dtypes]
                ok = [str(x) for x in da] == [str(x) for x in db] and close_arrays(a.to_numpy(), b.to_numpy())
            else:
                ok = False
            for attr in ("index", "columns", "name"):
                if ok and hasattr(a, attr):
                    x, y = getattr(a, attr), getattr(b, attr)
                    ok = bool(x.equals(y)) and list(getattr(x, "names", [])) == list(getattr(y, "names", [])) if hasattr(x, "equals") else x == y
            return ok
        if isinstance(a, (list, tuple)):
            return len(a) == len(b) and all(same(x, y, depth + 1) for x, y in zip(a, b))
        if isinstance(a, dict):
            return a.keys() == b.keys() and all(same(a[k], b[k], depth + 1) for k in a)
        if isinstance(a, (set, frozenset)):
            return a == b
        r = a == b
        if isinstance(r, bool) and r:
            return True
        if hasattr(a, "__dict__") and vars(a) and not callable(a):
            return same(dict(vars(a)), dict(vars(b)), depth + 1)
        ra, rb = repr(a), repr(b)
        return " at 0x" not in ra and ra == rb
    except Exception:
        return False


def assigned_names(tree):
    out = []
    for st in tree.body:
        targets = []
        if isinstance(st, ast.Assign):
            targets = st.targets
        elif isinstance(st, (ast.AnnAssign, ast.AugAssign)):
            targets = [st.target]
        for t in targets:
            for n in ast.walk(t):
                if isinstance(n, ast.Name) and n.id not in out:
                    out.append(n.id)
    return out


def loaded_names(tree):
    return {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


def classify_assertions(test_tree, outputs):
    """Counts the test's statements that read an output's values and those
    that read only its type, shape or size (docs/mutants.md §2)."""
    value = structural = 0
    for st in test_tree.body:
        parents = {}
        for node in ast.walk(st):
            for child in ast.iter_child_nodes(node):
                parents[child] = node
        reads, reads_value = False, False
        for node in ast.walk(st):
            if not (isinstance(node, ast.Name) and node.id in outputs and isinstance(node.ctx, ast.Load)):
                continue
            reads = True
            cur, structural_use = node, False
            while cur in parents:
                p = parents[cur]
                if isinstance(p, ast.Attribute) and p.attr in STRUCTURAL_ATTRS:
                    structural_use = True
                    break
                if isinstance(p, ast.Call) and isinstance(p.func, ast.Name) and p.func.id in STRUCTURAL_CALLS and cur in p.args:
                    structural_use = True
                    break
                cur = p
            if not structural_use:
                reads_value = True
        if reads_value:
            value += 1
        elif reads:
            structural += 1
    return value, structural


def is_target_call(node, leaf):
    if not isinstance(node, ast.Call):
        return False
    f = node.func
    return (isinstance(f, ast.Name) and f.id == leaf) or (isinstance(f, ast.Attribute) and f.attr == leaf)


def target_call(tree, leaf):
    for node in ast.walk(tree):
        if is_target_call(node, leaf):
            return node
    return None


class Rename(ast.NodeTransformer):
    """Renames the leaf to another name wherever the completion uses it."""

    def __init__(self, leaf, to):
        self.leaf, self.to = leaf, to

    def visit_Name(self, node):
        if node.id == self.leaf:
            node.id = self.to
        return node

    def visit_Attribute(self, node):
        self.generic_visit(node)
        if node.attr == self.leaf:
            node.attr = self.to
        return node

    def visit_ImportFrom(self, node):
        for a in node.names:
            if a.name == self.leaf:
                a.name = self.to
        return node


def sibling_candidates(api_name, leaf, hints):
    """Public callables beside the target (same module or class), most
    similar names first, the hints before them."""
    parts = api_name.split(".")[:-1]
    parent = None
    for i in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except Exception:
            continue
        try:
            for p in parts[i:]:
                obj = getattr(obj, p)
            parent = obj
        except Exception:
            parent = None
        break
    names = []
    if parent is not None:
        for n in dir(parent):
            if n.startswith("_") or n == leaf:
                continue
            try:
                v = getattr(parent, n)
            except Exception:
                continue
            if callable(v) and not isinstance(v, type) and type(v).__name__ != "module":
                names.append(n)
    names.sort(key=lambda n: (-difflib.SequenceMatcher(None, leaf, n).ratio(), n))
    out = [h for h in hints if h and h != leaf]
    for n in names:
        if n not in out:
            out.append(n)
    return out[:MAX_SIBLINGS + len(hints)]


def outputs_of(ns, outputs):
    return [ns.get(n) for n in outputs]


def check(task, report, flush):
    leaf = task["api_name"].rsplit(".", 1)[-1]
    completion = task["completion"]
    task["test"] = normalise_test(task["test"])
    try:
        comp_tree = ast.parse(completion)
        test_tree = ast.parse(task["test"])
    except SyntaxError as e:
        report["reference"] = "error"
        report["reference_error"] = "syntax error: %s" % e
        return
    read = loaded_names(test_tree)
    outputs = [n for n in assigned_names(comp_tree) if n in read]
    report["outputs"] = outputs
    report["value_assertions"], report["structural_assertions"] = classify_assertions(test_tree, set(outputs))
    # The reference has the task's whole timeout; a reference that runs out
    # of it decides nothing about the test.
    ref_ns, err = run_completion(task, completion, task["reference_wall"])
    if ref_ns is None:
        report["reference"] = "timeout" if err.endswith("timed out") else "error"
        report["reference_error"] = err
        return
    why = run_test(task, ref_ns)
    if why:
        report["reference"] = "fails_test"
        report["reference_error"] = why
        return
    report["reference"] = "pass"
    ref_out = outputs_of(ref_ns, outputs)
    flush()

    skip = {(k[0], k[1]) for k in task.get("skip") or []}

    def decide(name, code, what=""):
        """The outcome of one mutant, and the namespace it ran in. A mutant
        that killed the interpreter in an earlier run (task["skip"]) is
        invalid without running again."""
        m = {"name": name, "code": code}
        if what:
            m["what"] = what
        if (name, what) in skip:
            m["outcome"], m["detail"] = "invalid", "it crashed the interpreter"
            return m, None
        report["running"] = [name, what]
        flush()
        ns, err = run_completion(task, code)
        report.pop("running", None)
        if ns is None:
            m["outcome"], m["detail"] = "invalid", err
        elif outputs and all(n in ns for n in outputs) and same(ref_out, outputs_of(ns, outputs)):
            m["outcome"] = "equivalent"
        else:
            why = run_test(task, ns)
            m["outcome"] = "killed" if why else "survived"
            if why:
                m["detail"] = why
        return m, ns

    def add(m):
        report["mutants"].append(m)
        flush()

    # Result-level mutants: a wrong value of the right type and shape, and
    # a constant of the right type.
    if outputs:
        add(decide("zero", completion + "\n" + "\n".join("%s = %s * 0" % (n, n) for n in outputs))[0])
        add(decide("constant", completion + "\n" + "\n".join(CONSTANT % (n, n, n, n) for n in outputs))[0])
    else:
        report["notes"].append("the completion assigns no variable the test reads: no result-level mutant")
    if not task["api_name"]:
        # A HumanEval-style task: nothing names the call to mutate.
        report["notes"].append("the task names no API: no call-level mutant")
        return
    call = target_call(comp_tree, leaf)
    if call is None:
        report["notes"].append("the completion does not call " + leaf + " by name: no call-level mutant")
        return
    # sibling-api: the first sibling that runs and answers differently,
    # preferring one whose outputs have the reference's types.
    fallback = None
    for cand in sibling_candidates(task["api_name"], leaf, task.get("siblings") or []):
        m, ns = decide("sibling-api", ast.unparse(Rename(leaf, cand).visit(ast.parse(completion))), cand)
        if m["outcome"] in ("invalid", "equivalent"):
            continue
        if [type(x) for x in outputs_of(ns, outputs)] == [type(x) for x in ref_out]:
            fallback = m
            break
        if fallback is None:
            fallback = m
    if fallback is not None:
        add(fallback)
    else:
        report["notes"].append("no sibling of " + leaf + " runs and answers differently")
    # dropped-argument: each argument of the target call left out in turn.
    n_args = len(call.args) + len(call.keywords)
    dropped = 0
    for i in range(n_args - 1, -1, -1):
        if dropped >= MAX_DROPPED:
            break
        tree = ast.parse(completion)
        c = target_call(tree, leaf)
        if i < len(c.args):
            what = ast.unparse(c.args[i])
            del c.args[i]
        else:
            k = c.keywords[i - len(c.args)]
            what = ("**" if k.arg is None else k.arg + "=") + ast.unparse(k.value)
            del c.keywords[i - len(c.args)]
        m = decide("dropped-argument", ast.unparse(tree), what)[0]
        if m["outcome"] in ("invalid", "equivalent"):
            continue
        add(m)
        dropped += 1
    # changed-input: the call's first named input (or its receiver) changed
    # before the call.
    subject = None
    for a in call.args:
        if isinstance(a, ast.Name):
            subject = a.id
            break
    if subject is None and isinstance(call.func, ast.Attribute) and isinstance(call.func.value, ast.Name):
        subject = call.func.value.id
    if subject is not None and subject not in outputs:
        for change in ("%s * 2 + 1", "%s[::-1]", "%s[1:]"):
            stmt = "%s = %s\n" % (subject, change % subject)
            m = decide("changed-input", stmt + completion, stmt.strip())[0]
            if m["outcome"] in ("invalid", "equivalent"):
                continue
            add(m)
            break


def main():
    with open("/job/input.json") as f:
        req = json.load(f)
    reports = []

    def flush():
        with open("/out/mutants.json.tmp", "w") as f:
            json.dump(reports, f)
        import os
        os.replace("/out/mutants.json.tmp", "/out/mutants.json")

    for task in req["tasks"]:
        report = {"task_id": task["task_id"], "reference": "", "mutants": [], "notes": []}
        reports.append(report)
        try:
            check(task, report, flush)
        except BaseException:
            report["notes"].append("checker error: " + traceback.format_exc(limit=3)[-400:])
        report["done"] = True
        flush()


main()
