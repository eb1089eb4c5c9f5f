# novelapi evaluation runner (trusted; copied read-only to /job/runner.py).
#
# One sandbox run holds two processes (docs/threat-model.md):
#
#   the judge      this script as started: it reads the job, forks the
#                  candidate, and alone holds the task's test, the
#                  expected call records, the run's nonce and the records
#                  file. No code of the completion is ever loaded in it.
#   the candidate  the forked child: it runs the setup (parts [A]-[G] of
#                  docs/protocol.md §4.1) and the completion in one
#                  namespace, in a worker thread, and reports to the judge
#                  over a pipe: phases, an exception, the spy's state, and
#                  the values of the names the test reads, as plain data
#                  (plaindata.py). It then serves the judge's operations on
#                  the completion's objects (calls of the entry point,
#                  attribute reads) until the judge finishes it.
#
# The judge runs the test, with the call-record check spliced in (§4.5), in
# a fresh namespace over the import line and hidden setup, the values it
# decoded, and the spy's state as the candidate reported it; proxies stand
# for the completion's own objects.
#
# stdin carries, in order: a frame with the public job (setup, plan or
# code, flags), a line with the nonce, a frame with the secret job (test,
# expected records, reference), where a frame is a decimal length, a
# newline and that many bytes of JSON. The candidate is forked after the
# first frame is read and never sees the rest.
#
# Results go only to /out/records.jsonl, one JSON record per line, each
# with the nonce, ending with a "done" record that counts the records
# before it (docs/sandbox.md P6); they are written once the candidate and
# every process it started are gone. The judge exits 0 when the test
# passed, 1 when it did not, and 128+n when the candidate died of signal n
# (as a shell reports it). stdout is never read by the harness.
import _json
import _thread
import ast
import builtins
import importlib
import importlib.util
import inspect  # noqa: F401  (see below)
import json
import linecache
import os
import pickle
import queue
import re
import signal
import sys
import tokenize  # noqa: F401
import traceback
import types

# inspect and tokenize are imported before any task code runs: a hidden
# setup may break stdlib imports that happen later (CodeUpdateArena's rename
# of itertools.product deletes the name that tokenize uses at import), and
# both the monitor (inspect) and traceback printing (linecache -> tokenize)
# import them lazily.

SCRIPT = "_solution.py"
RUNNER = "/job/runner.py"
# Bound at import, before any completion runs.
_dumps, _loads = json.dumps, json.loads
# What the candidate's main thread reports through, bound at import: a
# module attribute the completion rebinds (os.write, queue.Empty,
# types.SimpleNamespace, json._default_encoder or json.JSONEncoder, which
# json.dumps looks up at each call) reaches it no more. Its JSON goes
# through the C encoder and scanner alone (_cdumps, _cloads).
_read, _write, _exit = os.read, os.write, os._exit
_Empty, _SimpleNamespace, _FunctionType = queue.Empty, types.SimpleNamespace, types.FunctionType
_c_make_encoder, _c_encode_str = _json.make_encoder, _json.encode_basestring_ascii
_c_scan = _json.make_scanner(json.JSONDecoder())


def _no_default(o):
    raise TypeError("%s is not JSON serializable" % type(o).__name__)


def _cdumps(o, default=None):
    # json.dumps(o, default=default) with the default separators and
    # ensure_ascii, through the C encoder only.
    enc = _c_make_encoder({}, default if default is not None else _no_default, _c_encode_str, None,
                          ": ", ", ", False, False, True)
    return "".join(enc(o, 0))


def _cloads(s):
    # json.loads of one JSON text without surrounding whitespace, through the
    # C scanner only.
    if type(s) is bytes:
        s = s.decode("utf-8")
    try:
        o, end = _c_scan(s, 0)
    except StopIteration:
        raise ValueError("not JSON")
    if end != len(s):
        raise ValueError("extra data after JSON")
    return o


def _sealed(g):
    # The runner's functions and its classes' methods rebuilt over a copy of
    # its globals g whose builtins are a copy taken now, before any task code
    # runs: a completion that rebinds builtins.sum (or len, dict, type) in the
    # candidate changes nothing the runner computes (docs/threat-model.md
    # §3.1). Returns the copy; its judge_main is the entry point.
    ns = dict(g)
    ns["__builtins__"] = dict(vars(builtins))

    def rebuild(f):
        n = _FunctionType(f.__code__, ns, f.__name__, f.__defaults__, f.__closure__)
        n.__kwdefaults__ = f.__kwdefaults__
        n.__qualname__ = f.__qualname__
        n.__doc__ = f.__doc__
        n.__dict__.update(f.__dict__)
        return n

    for k, v in list(ns.items()):
        if type(v) is _FunctionType and v.__globals__ is g:
            ns[k] = rebuild(v)
        elif isinstance(v, type) and v.__module__ == g["__name__"]:
            for a, m in list(vars(v).items()):
                if type(m) is _FunctionType and m.__globals__ is g:
                    setattr(v, a, rebuild(m))
    return ns

MAX_FRAME = 256 << 20   # bytes of one stdin frame or pipe message
TB_FRAMES = 40          # frames printed of one traceback (innermost)
MAX_RECORDS = 200       # call records the spy keeps


def _load_codec():
    spec = importlib.util.spec_from_file_location("novelapi_plaindata", "/job/plaindata.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


# --- extraction, test normalisation, judge fields (pure functions) ---


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


# What APICoder's harness takes for the names of a completion
# (private_eval/execution.py, convert_back).
_NAME = re.compile(r"\b[a-zA-Z_][a-zA-Z0-9_]*\b")


def join_completion(code, j):
    # A completion of a task whose completions continue its prompt
    # (HumanEval-style pools, docs/importers.md "Joining a completion"),
    # joined as the pool's own harness joins it, prompt + completion: an
    # extracted completion that repeats the prompt (or its part after the
    # context) runs after "runs", the prompt's part after the context that
    # runs, with the repeat given once; else a completion whose text as
    # written parses after the prompt's part the solver reads continues
    # it, and runs after "runs" exactly as written; else the extracted
    # completion runs alone, in place of the masked region. Returns the
    # head that runs before the completion's own text, that text, and how
    # it was joined ("repeats", "continues", "").
    for shown in j.get("shown") or []:
        if code.startswith(shown):
            return j.get("runs") or "", code[len(shown):], "repeats"
    raw = j.get("response") or ""
    if raw.strip() and parseable((j.get("rest") or "") + raw):
        return j.get("runs") or "", raw, "continues"
    return "", code, ""


def translate_back(code, pairs):
    # A completion of a renamed pool's task (MonkeyEval, BeatNumEval) in
    # the names of the library the environment has, as the pool's own
    # harness translates the text that continues the renamed prompt
    # before running the original prompt and test (docs/importers.md
    # "APICoder"): "error!" when the text names an original name that is
    # not also a renamed one, else each renamed name is replaced by its
    # original, pair after pair, in the table's order, by plain substring
    # replacement. Returns the translation and the original name that gave
    # "error!" (None).
    originals = {o for o, _ in pairs}
    renamed = {r for _, r in pairs}
    for name in _NAME.findall(code):
        if name in originals and name not in renamed:
            return "error!", name
    for o, r in pairs:
        code = code.replace(r, o)
    return code, None


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


def test_names(test):
    # The names the test reads, in first-seen order: the completion's
    # values it needs.
    try:
        tree = ast.parse(test)
    except BaseException:
        return []
    seen = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            seen.setdefault(node.id, True)
    return list(seen)


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
    # The AST fields of the judge prompt (docs/protocol.md §5.2), in
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


def layout_of(raw):
    # Where each part sits in the flat script, so that the harness can tell
    # the user "line N of your code" instead of a line of the assembled
    # script: start is its first line in the flat script, lines its line
    # count, lead the blank lines strip() removed before it.
    out, at = [], 1
    for name, p in raw:
        if p.strip():
            lead = p[:len(p) - len(p.lstrip())].count("\n")
            out.append({"name": name, "start": at, "lines": p.strip().count("\n") + 1, "lead": lead})
            at += p.strip().count("\n") + 2
    return out


# --- byte-level I/O (no buffering: the candidate must not inherit
# unread stdin in a buffer) ---


def read_exact(fd, n):
    chunks, got = [], 0
    while got < n:
        b = _read(fd, min(n - got, 1 << 20))
        if not b:
            raise EOFError("short read")
        chunks.append(b)
        got += len(b)
    return b"".join(chunks)


def read_line(fd, limit=64):
    out = bytearray()
    while True:
        b = _read(fd, 1)
        if not b:
            raise EOFError("short read")
        if b == b"\n":
            return bytes(out)
        out += b
        if len(out) > limit:
            raise ValueError("line too long")


def read_frame(fd):
    n = int(read_line(fd).decode("ascii"))
    if n < 0 or n > MAX_FRAME:
        raise ValueError("bad frame length")
    return _loads(read_exact(fd, n).decode("utf-8"))


def write_all(fd, data):
    view = memoryview(data)
    while view:
        n = _write(fd, view)
        view = view[n:]


class Lines:
    """Newline-terminated messages from a pipe, each at most MAX_FRAME bytes."""

    def __init__(self, fd):
        self.fd, self.buf = fd, bytearray()

    def next(self):
        while True:
            i = self.buf.find(b"\n")
            if i >= 0:
                line = bytes(self.buf[:i])
                del self.buf[:i + 1]
                return line
            if len(self.buf) > MAX_FRAME:
                raise ValueError("message too long")
            b = _read(self.fd, 1 << 16)
            if not b:
                return None
            self.buf += b


# --- shared: exception records and bounded tracebacks ---


def _tail_tb(tb):
    # The innermost TB_FRAMES entries of a traceback, as a new traceback.
    # The walk follows tb_next only: reading tb_frame raises an audit event
    # (the candidate's hook runs for each), so a traceback a million frames
    # deep is walked in milliseconds and only its tail's frames are read.
    last = []
    while tb is not None:
        last.append(tb)
        if len(last) > 4 * TB_FRAMES:
            del last[:-TB_FRAMES]
        tb = tb.tb_next
    out = None
    for t in reversed(last[-TB_FRAMES:]):
        out = types.TracebackType(out, t.tb_frame, t.tb_lasti, t.tb_lineno)
    return out


def _shorten(e):
    # Cuts the traceback of e and of the exceptions chained to it (at most
    # 20) to their innermost TB_FRAMES frames, before anything reads them.
    seen = 0
    while e is not None and seen < 20:
        try:
            tb = BaseException.__getattribute__(e, "__traceback__")
            if tb is not None:
                BaseException.with_traceback(e, _tail_tb(tb))
            e = e.__cause__ or e.__context__
        except BaseException:
            return
        seen += 1


def frames_of(tb):
    # The last TB_FRAMES frames of a traceback, outermost first.
    tb = _tail_tb(tb)
    out = []
    while tb is not None:
        out.append((tb.tb_frame, tb.tb_lineno))
        tb = tb.tb_next
    return [{"file": f.f_code.co_filename, "func": f.f_code.co_name, "line": line,
             "module": str(f.f_globals.get("__name__", ""))} for f, line in out]


def format_tb(e, keep=None):
    # The traceback of e as Python prints it, with only the innermost
    # TB_FRAMES frames of each exception in the chain and without the
    # runner's own frames. keep filters FrameSummary objects.
    _shorten(e)
    try:
        te = traceback.TracebackException.from_exception(e, limit=-TB_FRAMES)
    except BaseException:
        return "%s: <unprintable exception>\n" % type(e).__name__
    if keep is not None:
        t = te
        seen = 0
        while t is not None and seen < 20:
            t.stack = traceback.StackSummary.from_list([fs for fs in t.stack if keep(fs)])
            t = t.__cause__ or t.__context__
            seen += 1
    try:
        return "".join(te.format())
    except BaseException:
        return "%s: <unprintable exception>\n" % type(e).__name__


def _not_runner(fs):
    return fs.filename not in (RUNNER, "/job/plaindata.py")


def exception_record(phase, e, target=None):
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
    return plain(rec)


def plain(o, depth=0):
    # o rebuilt from exact builtin types with the base types' own methods,
    # so that what leaves the worker runs no code of the completion when
    # it is encoded.
    t = type(o)
    if o is None or t is bool:
        return o
    if depth > 20:
        return None
    if int in t.__mro__ and t is not bool:
        return int.__index__(o)
    if float in t.__mro__:
        return float.__float__(o)
    if str in t.__mro__:
        return str.__str__(o)
    if bytes in t.__mro__:
        return bytes.__bytes__(o) if hasattr(bytes, "__bytes__") else bytes(memoryview(o))
    if dict in t.__mro__:
        return {plain(k, depth + 1) if type(k) is not str else k: plain(v, depth + 1) for k, v in dict.items(o)}
    if list in t.__mro__ or tuple in t.__mro__:
        return [plain(v, depth + 1) for v in (list.__iter__(o) if list in t.__mro__ else tuple.__iter__(o))]
    return None


# --- the candidate process ---


def make_spy_hook():
    # The monitor's one-shot hook (recording_monitor.py pops it from the
    # script's globals during setup). It keeps per-phase call counts and the
    # solution phase's call records (frozen to JSON when made) in this
    # closure, which the completion's names, frames and gc cannot reach
    # (the audit hook below); the spy record comes from here (docs/sandbox.md
    # §4.6). The hook is a plain namespace of closures: no class of ours
    # holds state where object.__subclasses__() would find it.
    st = {"phase": "setup", "counts": {}, "calls": [], "reg": None}

    def call(name):
        c = st["counts"].setdefault(st["phase"], {})
        c[name] = c.get(name, 0) + 1

    def record(rec):
        if st["phase"] == "solution" and len(st["calls"]) < MAX_RECORDS:
            try:
                st["calls"].append(_cdumps(rec, default=repr))
            except Exception:
                pass

    def recording():
        # False once the records are full: the spy then builds none.
        return st["phase"] == "solution" and len(st["calls"]) < MAX_RECORDS

    def calls():
        return [_cloads(c) for c in st["calls"]]

    def register(installed, counter, check, made=None, ns=None, failed=None):
        if st["reg"] is None:
            st["reg"] = {"installed": bool(installed), "counter": counter, "made": list(made or []),
                         "ns": tuple(ns) if type(ns) is tuple else (),
                         "failed": plain(failed) if type(failed) is dict else {}}

    return _SimpleNamespace(call=call, record=record, recording=recording, calls=calls, register=register), st


def public_count(g):
    c = g.get("_target_api_call_count")
    if type(c) is list and len(c) > 0 and type(c[0]) is int:
        return c[0]
    return None


def tampered(g, priv, pub_start):
    # Why the completion's phase cannot be trusted, or "": it rebound or wrote
    # the monitor's call counter (the check block reads it), so its value
    # differs from what the spy itself counted.
    reg = priv["reg"]
    if reg is None:
        return ""
    if g.get("_target_api_call_count") is not reg["counter"]:
        return "the completion rebound _target_api_call_count"
    seen = sum(priv["counts"].get("solution", {}).values())
    now = public_count(g)
    if pub_start is not None and (now is None or now - pub_start != seen):
        return "the completion wrote _target_api_call_count (it reads %s, the spy counted %d calls)" % (
            "?" if now is None else now - pub_start, seen)
    return ""


def _serve(inq, outq):
    # The worker thread (started with _thread, so no Thread object holds
    # its arguments): runs each job it is given and hands back its result.
    # The setup, the completion and every operation on the completion's
    # objects run here, with no frame of the runner's main thread below.
    while True:
        fn, a = inq.get()
        try:
            outq.put((True, fn(*a)))
        except BaseException as e:
            outq.put((False, e))
        fn = a = None


def _exec_unit(unit, g):
    exec(unit, g)


def _raised_note(g, e):
    # The spy's note on the target call this exception left, if any
    # (novelapi extension of §4.4).
    for exc, note in list(g.get("_target_api_raised") or []):
        chain, seen = e, 0
        while chain is not None and seen < 10:
            if chain is exc:
                info = dict(note)
                info["chained"] = chain is not e
                return info
            chain = chain.__cause__ or chain.__context__
            seen += 1
    return None


def _report_exception(phase, e, g):
    # Prints the traceback as the flat script would have (bounded) and
    # returns the exception record. Runs in the worker: str(e) is the
    # completion's code.
    rec = exception_record(phase, e, _raised_note(g, e))
    text = format_tb(e, _not_runner)
    try:
        sys.stderr.write(text)
        sys.stderr.flush()
    except BaseException:
        pass
    return rec, plain(text[-20000:])


MAX_VALUES = 128 << 20  # bytes of the encoded values the test reads


def _encode_values(g, names, codec_mod, codec, handles, spies):
    out, missing, size = {}, [], 0
    for n in names:
        if n not in g:
            missing.append(n)
            continue
        v = g[n]
        data = _encode_value(v, codec_mod, codec, handles, spies)
        size += len(data)
        if size > MAX_VALUES:
            return None, None
        out[n] = codec_mod.b64(data)
    return out, missing


def _probe_pid(pid):
    return None


def _encode_value(v, codec_mod, codec, handles, spies):
    # v as data the judge's decoder accepts: whole; else with each library
    # object the allow-list refuses as a handle (a dict holding a
    # re.Pattern stays a dict); else as one handle.
    for parts in (False, True):
        try:
            data = codec_mod.encode(v, codec, handles.add, spies, parts)
            codec_mod.decode(data, codec, _probe_pid)
            return data
        except BaseException:
            pass
    return codec_mod.encode_pid(("h", handles.add(v), codec_mod.tname(type(v))))


class Handles:
    """The completion's objects the judge holds proxies for, by id."""

    def __init__(self):
        self.objs = []
        self.index = {}

    def add(self, o):
        k = id(o)
        i = self.index.get(k)
        if i is not None and self.objs[i] is o:
            return i
        self.objs.append(o)
        self.index[k] = len(self.objs) - 1
        return len(self.objs) - 1


_OPS = {
    "getattr": lambda o, name: getattr(o, name),
    "setattr": lambda o, name, v: setattr(o, name, v),
    "delattr": lambda o, name: delattr(o, name),
    "call": lambda o, a, kw: o(*a, **kw),
    "getitem": lambda o, k: o[k],
    "setitem": lambda o, k, v: o.__setitem__(k, v),
    "delitem": lambda o, k: o.__delitem__(k),
    "len": lambda o: len(o),
    "iter": lambda o: iter(o),
    "next": lambda o: next(o),
    "bool": lambda o: bool(o),
    "repr": lambda o: repr(o),
    "str": lambda o: str(o),
    "format": lambda o, spec: format(o, spec),
    "int": lambda o: int(o),
    "float": lambda o: float(o),
    "complex": lambda o: complex(o),
    "index": lambda o: o.__index__(),
    "enter": lambda o: o.__enter__(),
    "exit": lambda o, a: o.__exit__(*a),
    "binop": lambda o, name, other: getattr(o, name)(other),
    "unop": lambda o, name: getattr(o, name)(),
    "cmp": lambda o, name, other: getattr(o, name)(other),
}
_REFLECT = (list, dict, set, bytearray)


def _rpc(req, handles, codec_mod, codec, spies, g, quiet):
    # One operation of the judge on a completion's object; runs in the
    # worker. Returns the reply message. quiet(True) stops counting target
    # calls as the completion's while the runner formats an exception or
    # encodes the result (Python 3.13's traceback calls textwrap.dedent,
    # which calls re.sub), quiet(False) resumes.
    op = req.get("op")
    fn = _OPS.get(op)
    h = req.get("h")
    if fn is None or type(h) is not int or not 0 <= h < len(handles.objs):
        return {"t": "reply", "bad": True}
    target = handles.objs[h]

    def load_handle(pid):
        if pid[0] == "h":
            return handles.objs[pid[1]]
        return _Unavailable(pid[1])

    class _Args(pickle.Unpickler):
        def persistent_load(self, pid):
            return load_handle(pid)

    import io as _io
    args = _Args(_io.BytesIO(codec_mod.unb64(req.get("a") or ""))).load()
    try:
        value = fn(target, *args)
    except BaseException as e:
        quiet(True)
        try:
            return _rpc_exception(e, handles, codec_mod, codec, spies, g)
        finally:
            quiet(False)
    quiet(True)
    try:
        return _rpc_reply(op, args, value, handles, codec_mod, codec, spies)
    finally:
        quiet(False)


def _rpc_exception(e, handles, codec_mod, codec, spies, g):
    rec = exception_record("test", e, _raised_note(g, e))
    text = format_tb(e, _not_runner)
    eargs = None
    try:
        data = codec_mod.encode(tuple(e.args), codec, handles.add, spies)
        codec_mod.decode(data, codec, _probe_pid)
        eargs = codec_mod.b64(data)
    except BaseException:
        pass
    # The traceback without its header and exception line: the judge
    # prints it inside its own.
    lines = text.splitlines(True)
    body = [ln for ln in lines if not ln.startswith("Traceback (most recent call last)")][:-1]
    return {"t": "reply", "exc": rec, "args": eargs, "tb": plain("".join(body)[-20000:])}


def _rpc_reply(op, args, value, handles, codec_mod, codec, spies):
    rep = {"t": "reply"}
    rep["ok"] = codec_mod.b64(_encode_value(value, codec_mod, codec, handles, spies))
    if op == "call":
        # The judge's own mutable arguments, as the call left them.
        a, kw = args
        mut = {}
        for k, v in list(enumerate(a)) + [("k:" + str(n), v) for n, v in kw.items()]:
            if type(v) in _REFLECT or type(v).__name__ == "ndarray" and type(v).__module__ == "numpy":
                try:
                    mut[str(k)] = codec_mod.b64(codec_mod.encode(v, codec, handles.add, spies))
                except BaseException:
                    pass
        if mut:
            rep["m"] = mut
    return rep


class _Unavailable:
    # A judge object that could not cross to the completion (a function
    # the test defines): any use raises.
    __slots__ = ("name",)

    def __init__(self, name):
        self.name = name

    def __getattr__(self, attr):
        raise TypeError("novelapi: the test's %s cannot be passed to the completion's process" % self.name)

    def __call__(self, *a, **kw):
        raise TypeError("novelapi: the test's %s cannot be passed to the completion's process" % self.name)


def make_audit_hook(private, sol_start, tamper):
    # A sys.addaudithook hook that keeps the runner's state out of the
    # completion's reach (docs/threat-model.md): the completion's code may
    # not obtain a frame (sys._getframe, a traceback's, a generator's, also
    # through inspect or traceback.walk_*), walk the garbage collector,
    # trace or profile, register monitoring callbacks, add audit hooks,
    # build code objects, use ctypes, open /proc/*/mem, read the defaults
    # of the monitor's functions that hold the spy's hook or a spy's
    # context, or replace the code of a function of the monitor (which
    # would hand it those defaults). private holds the runner's and the
    # monitor's namespaces. A refused event is reported to the judge
    # (HARNESS_TAMPER) before it raises.
    trusted_dirs = tuple(sorted({os.path.dirname(os.__file__) + "/"} |
                                {p.rstrip("/") + "/" for p in sys.path if p.startswith("/usr/")} | {"/job/"}))
    busy = set()
    get_ident = _thread.get_ident
    getframe = sys._getframe
    frame_attrs = frozenset(("tb_frame", "gi_frame", "cr_frame", "ag_frame"))
    always = frozenset(("sys._current_frames", "sys._current_exceptions", "sys.settrace", "sys.setprofile",
                        "sys._settraceallthreads", "sys._setprofileallthreads", "sys.monitoring.register_callback",
                        "sys.addaudithook", "code.__new__"))
    by_caller = frozenset(("sys._getframe", "gc.get_objects", "gc.get_referrers", "gc.get_referents"))
    watched = always | by_caller | frozenset(("object.__getattr__", "object.__setattr__", "open", "compile",
                                              "marshal.loads"))
    walkers = frozenset(("walk_stack", "walk_tb"))
    priv = frozenset(id(d) for d in private if d is not None)

    def untrusted(f):
        # Whether frame f runs the completion's code (its lines of the
        # flat script, or code it compiled), seen through inspect and
        # traceback's frame walkers.
        for _ in range(12):
            if f is None:
                return False
            c = f.f_code
            fn = c.co_filename
            if fn == SCRIPT:
                return f.f_lineno >= sol_start
            if fn.startswith("<frozen "):
                return False
            if not fn.startswith(trusted_dirs):
                return True
            if fn.endswith("/inspect.py") or (fn.endswith("/traceback.py") and c.co_name in walkers):
                f = f.f_back
                continue
            return False
        return False

    def refuse(why):
        tamper.put("the completion used " + why)
        raise RuntimeError("novelapi: %s is not available to the completion" % why)

    def hook(event, args):
        if event not in watched:
            return
        tid = get_ident()
        if tid in busy:
            return
        busy.add(tid)
        try:
            if event in always:
                refuse(event)
            if event.startswith("ctypes.") or event in by_caller:
                if untrusted(getframe(1)):
                    refuse(event)
                return
            if event == "object.__getattr__":
                if len(args) < 2:
                    return
                name = args[1]
                if name in frame_attrs:
                    if untrusted(getframe(1)):
                        refuse(name)
                elif name in ("__defaults__", "__kwdefaults__"):
                    gl = getattr(args[0], "__globals__", None)
                    if id(gl) in priv:
                        d = getattr(args[0], name, None)
                        vals = d.values() if type(d) is dict else d if type(d) is tuple else ()
                        if any(type(v) is _SimpleNamespace for v in vals):
                            refuse("the spy's hook")
                return
            if event == "object.__setattr__":
                if len(args) >= 2 and type(args[1]) is str and args[1] == "__code__" and type(args[0]) is _FunctionType \
                        and id(args[0].__globals__) in priv:
                    refuse("a new __code__ for a function of the monitor")
                return
            if event == "open":
                p = args[0] if args else None
                if isinstance(p, bytes):
                    p = p.decode("utf-8", "replace")
                if isinstance(p, str) and p.startswith("/proc/") and (
                        p.endswith("/mem") or "/map_files" in p or p.endswith("/pagemap")):
                    refuse(p)
                return
            if event == "compile":
                fn = args[1] if len(args) > 1 else None
                if isinstance(fn, bytes):
                    fn = fn.decode("utf-8", "replace")
                if isinstance(fn, str) and (fn == SCRIPT or fn.startswith(trusted_dirs)) and untrusted(getframe(1)):
                    refuse("compile() with the file name " + fn)
                return
            if event == "marshal.loads":
                f = getframe(1)
                if f is not None and not f.f_code.co_filename.startswith("<frozen ") and untrusted(f):
                    refuse(event)
        finally:
            busy.discard(tid)

    return hook


def candidate_main(job, parts, req_fd, chan_fd):
    # The forked candidate. parts are (name, stripped text) of setup and
    # solution; never returns.
    fd = os.open(os.devnull, os.O_RDONLY)
    os.dup2(fd, 0)
    os.close(fd)
    sys.stdin = open(os.devnull)
    req = Lines(req_fd)
    line = req.next()
    first = _cloads(line) if line else None
    if type(first) is not dict or first.get("abort"):
        _exit(0)
    token = first["token"]

    def send(rec):
        rec["k"] = token
        write_all(chan_fd, (_cdumps(rec) + "\n").encode("utf-8"))

    streams = (sys.stdout, sys.stderr)

    def end(code):
        # Flushes the streams the process started with, through their
        # type's method (the completion may have replaced sys.stdout or set
        # an instance attribute flush).
        for st in streams:
            try:
                type(st).flush(st)
            except BaseException:
                pass
        try:
            send({"t": "done"})
        except BaseException:
            pass
        _exit(code)

    codec_mod = sys.modules["novelapi_plaindata"]
    codec = codec_mod.Codec(job.get("tops") or [], job.get("refs") or [])
    sys.argv = [SCRIPT] + list(first.get("argv") or [])
    module = types.ModuleType("__main__")
    g = module.__dict__
    g["__builtins__"] = builtins
    sys.modules["__main__"] = module
    hook, priv = make_spy_hook()
    g["__novelapi_spy_hook__"] = hook
    prefix = "\n\n".join(p for _, p in parts)
    linecache.cache[SCRIPT] = (len(prefix), None, prefix.splitlines(True), SCRIPT)
    units, offset, sol_start = [], 0, 1 << 30
    for name, p in parts:
        if name == "solution":
            sol_start = offset + 1
        units.append((name, compile("\n" * offset + p, SCRIPT, "exec", dont_inherit=True)))
        offset += p.count("\n") + 2
    inq, outq, tamper = queue.SimpleQueue(), queue.SimpleQueue(), queue.SimpleQueue()
    _thread.start_new_thread(_serve, (inq, outq))

    def run(fn, *a):
        inq.put((fn, a))
        return outq.get()

    def spy_record(phase):
        reg = priv["reg"]
        if reg is not None:
            per = priv["counts"].get("solution", {})
            return {"type": "spy", "phase": phase, "installed": reg["installed"], "count": sum(per.values()),
                    "calls": list(priv["calls"]), "apis": dict(per), "private": True, "failed": reg["failed"]}
        return {"type": "spy", "phase": phase, "installed": False, "count": -1, "calls": [], "apis": {}}

    def check_tamper():
        try:
            why = tamper.get_nowait()
        except _Empty:
            return
        send({"t": "spy", "rec": spy_record("solution")})
        send({"t": "tamper", "reason": plain(why)})
        end(1)

    pub_start = None
    for name, unit in units:
        priv["phase"] = name
        if name == "solution":
            pub_start = public_count(g)
            reg = priv["reg"] or {}
            sys.addaudithook(make_audit_hook((globals(),) + reg.get("ns", ()), sol_start, tamper))
        ok, v = run(_exec_unit, unit, g)
        check_tamper()
        if not ok:
            # The runner's own formatting is no call of the completion's.
            priv["phase"] = "runner"
            ok2, rep = run(_report_exception, name, v, g)
            v = None
            check_tamper()
            if not ok2:
                send({"t": "tamper", "reason": "the exception could not be reported"})
                end(1)
            send({"t": "exception", "rec": rep[0]})
            send({"t": "spy", "rec": spy_record(name)})
            end(1)
        if name == "solution":
            why = tampered(g, priv, pub_start)
            if why:
                send({"t": "spy", "rec": spy_record("solution")})
                send({"t": "tamper", "reason": why})
                end(1)
        send({"t": "phase", "name": name})
    send({"t": "spy", "rec": spy_record("solution")})
    priv["phase"] = "test"
    handles = Handles()
    spies = {}
    reg = priv["reg"]
    if reg is not None:
        for spy, path in reg["made"]:
            spies[id(spy)] = path
    names = [n for n in first.get("exports") or [] if type(n) is str]
    priv["phase"] = "runner"
    ok, v = run(_encode_values, g, names, codec_mod, codec, handles, spies)
    priv["phase"] = "test"
    check_tamper()
    if not ok:
        send({"t": "tamper", "reason": "the completion's values could not be encoded"})
        end(1)
    # The entry point's target calls (pool.Task.SpyScope entry_point): the
    # completion's own calls at any time of the run, counted by the spy's
    # hook: while its code ran (the solution phase) and while it served the
    # judge's operations on its objects (the test phase: calls of the entry
    # point, and of anything the entry point returned or installed).
    def quiet(on):
        priv["phase"] = "runner" if on else "test"

    def entry_counts():
        apis = {}
        for ph in ("solution", "test"):
            for k, n in priv["counts"].get(ph, {}).items():
                apis[k] = apis.get(k, 0) + n
        return sum(apis.values()), apis

    if v[0] is None:
        send({"t": "toolarge"})
        end(1)
    send({"t": "values", "v": v[0], "missing": v[1]})
    while True:
        line = req.next()
        if line is None:
            end(1)
        r = _cloads(line)
        if type(r) is not dict:
            end(1)
        if r.get("op") == "finish":
            entry_count, entry_apis = entry_counts()
            rec = {"type": "spy", "phase": "entry", "installed": bool(reg["installed"]) if reg else False,
                   "count": entry_count, "calls": [], "apis": entry_apis}
            send({"t": "entry", "rec": rec})
            end(0)
        ok, rep = run(_rpc, r, handles, codec_mod, codec, spies, g, quiet)
        check_tamper()
        if not ok:
            send({"t": "tamper", "reason": "an operation could not be answered"})
            end(1)
        send(rep)


# --- the judge ---


class Tamper(BaseException):
    """The candidate broke the protocol or reported tampering (reported:
    its runner said so and ends next). A BaseException, so that a test's
    `except Exception` around a call of the completion does not hide it."""

    def __init__(self, msg, reported=False):
        super().__init__(msg)
        self.reported = reported


class CandidateDied(BaseException):
    """The candidate ended without finishing."""


class Channel:
    """The candidate's messages, each checked for the token."""

    def __init__(self, fd, token):
        self.lines, self.token = Lines(fd), token
        self.done = False

    def next(self):
        try:
            line = self.lines.next()
        except ValueError as e:
            raise Tamper("the completion's process sent a message over %d bytes" % MAX_FRAME) from e
        if line is None:
            raise CandidateDied()
        try:
            m = _loads(line)
        except ValueError:
            raise Tamper("the completion's process sent a malformed message")
        if type(m) is not dict or m.get("k") != self.token or type(m.get("t")) is not str:
            raise Tamper("a message without the run's token reached the judge (written by the completion?)")
        if self.done:
            raise Tamper("messages after the candidate's done message")
        if m["t"] == "done":
            self.done = True
        return m

    def drain(self):
        # Reads up to the candidate's done message (it flushes its output
        # first), ignoring what comes before.
        try:
            while not self.done:
                self.next()
        except (Tamper, CandidateDied):
            pass


_remote_classes = {}


class RemoteError(Exception):
    """An exception of a class the completion defined."""


def make_remote(client):
    # The proxy class for the completion's own objects. Every operation is
    # sent to the candidate; a comparison with anything but another proxy
    # is not (a completion's object cannot claim to equal the test's
    # value: Python falls back to identity).

    class CompletionObject:
        __slots__ = ("_nv_h", "_nv_t")

        def __getattr__(self, name):
            # Special names are never asked for: library code probes them
            # (__array_interface__ would let the completion name memory).
            if name.startswith("_nv_") or (name.startswith("__") and name.endswith("__")):
                raise AttributeError(name)
            return client.op("getattr", self, name)

        def __setattr__(self, name, v):
            if name.startswith("_nv_"):
                object.__setattr__(self, name, v)
            else:
                client.op("setattr", self, name, v)

        def __delattr__(self, name):
            client.op("delattr", self, name)

        def __call__(self, *a, **kw):
            return client.call(self, a, kw)

        def __getitem__(self, k):
            return client.op("getitem", self, k)

        def __setitem__(self, k, v):
            client.op("setitem", self, k, v)

        def __delitem__(self, k):
            client.op("delitem", self, k)

        def __len__(self):
            n = client.op("len", self)
            if type(n) is not int or n < 0:
                raise TypeError("len() of the completion's object is not a non-negative int")
            return n

        def __iter__(self):
            it = client.op("iter", self)
            if not issubclass(type(it), CompletionObject):
                return iter(it)
            return it

        def __next__(self):
            return client.op("next", self)

        def __bool__(self):
            b = client.op("bool", self)
            if type(b) is not bool:
                raise TypeError("bool() of the completion's object is not a bool")
            return b

        def __repr__(self):
            r = client.op("repr", self)
            return r if type(r) is str else "<completion object>"

        def __str__(self):
            r = client.op("str", self)
            return r if type(r) is str else "<completion object>"

        def __format__(self, spec):
            r = client.op("format", self, spec)
            return r if type(r) is str else "<completion object>"

        def __int__(self):
            return _exact(client.op("int", self), int)

        def __float__(self):
            return _exact(client.op("float", self), float)

        def __complex__(self):
            return _exact(client.op("complex", self), complex)

        def __index__(self):
            return _exact(client.op("index", self), int)

        def __enter__(self):
            return client.op("enter", self)

        def __exit__(self, *a):
            return client.op("exit", self, a)

        __hash__ = object.__hash__

    def binop(name):
        def f(self, other):
            return client.op("binop", self, name, other)
        f.__name__ = name
        return f

    def cmp(name):
        def f(self, other):
            if not issubclass(type(other), CompletionObject):
                return NotImplemented
            return client.op("cmp", self, name, other)
        f.__name__ = name
        return f

    def unop(name):
        def f(self):
            return client.op("unop", self, name)
        f.__name__ = name
        return f

    for n in ("add", "sub", "mul", "matmul", "truediv", "floordiv", "mod", "pow", "lshift", "rshift", "and",
              "xor", "or"):
        setattr(CompletionObject, "__%s__" % n, binop("__%s__" % n))
        setattr(CompletionObject, "__r%s__" % n, binop("__r%s__" % n))
    for n in ("eq", "ne", "lt", "le", "gt", "ge"):
        setattr(CompletionObject, "__%s__" % n, cmp("__%s__" % n))
    for n in ("neg", "pos", "abs", "invert"):
        setattr(CompletionObject, "__%s__" % n, unop("__%s__" % n))
    return CompletionObject


# Modules whose types a handle may not claim (see _proxy_class).
_DATA_MODULES = frozenset({"__main__", "builtins", "numpy", "pandas"})


def _proxy_class(base, kinds, t):
    # The proxy class of the completion's objects of type t ("module:qualname"):
    # a subclass of base that bears t's names, so that a test reading
    # type(result).__name__ or __module__ reads what plain Python reads
    # (docs/threat-model.md §4). The names are the only thing taken from
    # the completion; past 1,000 types the proxies share base. A type of
    # the completion's script, or one that claims a module whose classes
    # cross as data (a real numpy array never arrives as a handle), keeps
    # base's names: a class of its own named ndarray stays what it is.
    cls = kinds.get(t)
    if cls is not None:
        return cls
    mod, sep, qual = t.partition(":")
    if not sep or not qual or len(kinds) >= 1000 or mod.partition(".")[0] in _DATA_MODULES:
        return base
    cls = type(qual.rsplit(".", 1)[-1], (base,), {"__slots__": (), "__module__": mod, "__qualname__": qual})
    kinds[t] = cls
    return cls


def _exact(v, t):
    if type(v) is not t:
        raise TypeError("the completion's object converted to %s, not %s" % (type(v).__name__, t.__name__))
    return v


class Client:
    """The judge's side of the operations on the completion's objects."""

    def __init__(self, req_fd, chan, codec_mod, codec):
        self.req_fd, self.chan = req_fd, chan
        self.codec_mod, self.codec = codec_mod, codec
        self.Remote = make_remote(self)
        self.kinds = {}
        self.by_h = {}
        self.last_exc = None
        self.broken = None  # the Tamper or CandidateDied an operation ended with

    def proxy(self, h, t):
        if type(h) is not int or h < 0:
            raise Tamper("bad handle")
        p = self.by_h.get(h)
        if p is None:
            t = str(t)[:200]
            cls = _proxy_class(self.Remote, self.kinds, t)
            p = cls.__new__(cls)
            object.__setattr__(p, "_nv_h", h)
            object.__setattr__(p, "_nv_t", t)
            self.by_h[h] = p
        return p

    def persistent(self, pid):
        # A persistent id of the candidate's encoder (plaindata.Encoder).
        if type(pid) is not tuple or not pid or type(pid[0]) is not str:
            raise Tamper("bad persistent id")
        kind = pid[0]
        if kind == "h" and len(pid) == 3:
            return self.proxy(pid[1], pid[2])
        if kind == "mod" and len(pid) == 2 and type(pid[1]) is str:
            m = self.codec.module(pid[1])
            return m if m is not None else _Opaque("module " + pid[1])
        if kind == "ref" and len(pid) == 2 and type(pid[1]) is str:
            return self.codec.ref(pid[1])
        if kind == "nt" and len(pid) == 4:
            try:
                return self.codec_mod.namedtuple_of(pid[1], pid[2], pid[3])
            except self.codec_mod.RefusedError as e:
                raise Tamper(str(e))
        if kind == "tensor" and len(pid) == 5:
            try:
                return self.codec_mod.tensor_of(self.codec, *pid[1:])
            except self.codec_mod.RefusedError as e:
                raise Tamper(str(e))
        if kind == "plain" and len(pid) == 2:
            v = pid[1]
            if type(v) not in (int, float, complex, str, bytes, tuple, list, dict, set, frozenset) and \
                    type(v).__name__ != "ndarray":
                raise Tamper("bad plain value")
            return v
        raise Tamper("bad persistent id %r" % (kind,))

    def decode(self, b64):
        try:
            data = self.codec_mod.unb64(b64)
            return self.codec_mod.decode(data, self.codec, self.persistent)
        except Tamper:
            raise
        except BaseException as e:
            raise Tamper("the completion's process sent a value the judge refuses (%s: %s)" % (
                type(e).__name__, str(e)[:200]))

    def encode(self, value):
        remote = self.Remote

        class Enc(pickle.Pickler):
            def persistent_id(self, obj):
                if issubclass(type(obj), remote):
                    return ("h", object.__getattribute__(obj, "_nv_h"))
                if isinstance(obj, (types.FunctionType, type)) and getattr(obj, "__module__", None) in ("__main__", None):
                    return ("x", getattr(obj, "__qualname__", "object"))
                if type(obj) is _Opaque:
                    return ("x", obj.what)
                return None

        import io as _io
        f = _io.BytesIO()
        Enc(f, protocol=4).dump(value)
        return self.codec_mod.b64(f.getvalue())

    def op(self, op, target, *args):
        return self._send(op, target, args)

    def call(self, target, a, kw):
        return self._send("call", target, (a, kw))

    def _send(self, op, target, args):
        if self.broken is not None:
            raise self.broken
        try:
            return self._exchange(op, target, args)
        except (Tamper, CandidateDied) as e:
            self.broken = e
            raise

    def _exchange(self, op, target, args):
        h = object.__getattribute__(target, "_nv_h")
        write_all(self.req_fd, (_dumps({"op": op, "h": h, "a": self.encode(args)}) + "\n").encode("utf-8"))
        m = self.chan.next()
        if m.get("t") == "tamper":
            raise Tamper(str(m.get("reason"))[:500], reported=True)
        if m.get("t") != "reply" or m.get("bad"):
            raise Tamper("the completion's process answered an operation with %r" % (m.get("t"),))
        if "exc" in m:
            raise self.remote_exception(m)
        value = self.decode(m.get("ok"))
        if op == "call" and type(m.get("m")) is dict:
            a, kw = args
            for k, b in m["m"].items():
                orig = a[int(k)] if k.isdigit() and int(k) < len(a) else kw.get(k[2:]) if k.startswith("k:") else None
                if orig is not None:
                    _reflect(orig, self.decode(b))
        return value

    def remote_exception(self, m):
        rec = m.get("exc")
        if type(rec) is not dict:
            raise Tamper("bad exception reply")
        name, mod = str(rec.get("exc", "Exception")), str(rec.get("exc_module", ""))
        cls = None
        if mod == "builtins":
            c = getattr(builtins, name, None)
            if isinstance(c, type) and issubclass(c, BaseException):
                cls = c
        else:
            try:
                c = self.codec.ref(mod + "." + name)
                if isinstance(c, type) and issubclass(c, BaseException):
                    cls = c
            except BaseException:
                pass
        if cls is None:
            key = (mod, name)
            cls = _remote_classes.get(key)
            if cls is None:
                cls = type(name if name.isidentifier() else "RemoteError", (RemoteError,), {"__module__": mod or "?"})
                _remote_classes[key] = cls
        args = None
        if m.get("args"):
            try:
                args = self.decode(m["args"])
            except Tamper:
                args = None
        if type(args) is not tuple:
            args = (str(rec.get("msg", "")),)
        try:
            e = cls(*args)
        except BaseException:
            e = cls.__new__(cls)
            e.args = (str(rec.get("msg", "")),)
        try:
            e.__novelapi_remote__ = {"rec": rec, "tb": str(m.get("tb") or "")}
        except BaseException:
            pass
        self.last_exc = e
        return e


def _reflect(orig, new):
    # Applies the completion's in-place changes to a mutable argument.
    t = type(orig)
    try:
        if t is list and type(new) is list:
            orig[:] = new
        elif t is dict and type(new) is dict:
            orig.clear()
            orig.update(new)
        elif t is set and type(new) is set:
            orig.clear()
            orig.update(new)
        elif t is bytearray and type(new) is bytearray:
            orig[:] = new
        elif t.__name__ == "ndarray" and type(new) is t and new.shape == orig.shape and new.dtype == orig.dtype:
            if orig.flags.writeable:
                orig[...] = new
    except BaseException:
        pass


class _Opaque:
    """A value of the completion that cannot be rebuilt in the judge."""
    __slots__ = ("what",)

    def __init__(self, what):
        self.what = what

    def __repr__(self):
        return "<%s of the completion>" % self.what


def make_check(calls):
    # The call-record check (§4.5) over the spy's records: every expected
    # record reproduced by at least one of the completion's own target
    # calls (subset, order-free, any-match).
    import math

    def match(e, a):
        if isinstance(e, dict):
            return isinstance(a, dict) and all(k in a and match(v, a[k]) for k, v in e.items())
        if isinstance(e, list):
            return isinstance(a, list) and len(a) == len(e) and all(match(x, y) for x, y in zip(e, a))
        if isinstance(e, float) and isinstance(a, (int, float)) and not isinstance(a, bool):
            return math.isclose(e, a, rel_tol=1e-6, abs_tol=1e-9)
        return e == a

    def check(expected_json):
        expected = _loads(expected_json)
        for i, e in enumerate(expected):
            if not any(match(e, a) for a in calls):
                raise AssertionError(
                    "no call to the target API reproduces reference call %d/%d (%s)"
                    % (i + 1, len(expected), "arguments differ" if "args" in e else "return value differ"))
    return check


def _spy_from(m):
    rec = m.get("rec")
    if type(rec) is not dict:
        raise Tamper("bad spy record")
    calls = rec.get("calls") or []
    if type(calls) is not list or len(calls) > MAX_RECORDS:
        raise Tamper("bad spy calls")
    parsed = []
    for c in calls:
        if type(c) is not str:
            raise Tamper("bad spy call record")
        try:
            parsed.append(_loads(c))
        except ValueError:
            raise Tamper("bad spy call record")
    apis = rec.get("apis") or {}
    count = rec.get("count")
    if type(apis) is not dict or type(count) is not int or any(type(v) is not int for v in apis.values()):
        raise Tamper("bad spy counts")
    failed = rec.get("failed") or {}
    if type(failed) is not dict:
        raise Tamper("bad spy failures")
    return {"type": "spy", "phase": str(rec.get("phase", "solution")), "installed": rec.get("installed") is True,
            "count": count, "calls": parsed, "apis": {str(k): v for k, v in apis.items()},
            "private": rec.get("private") is True,
            "failed": {str(k)[:300]: str(v)[:400] for k, v in list(failed.items())[:20]}}


def _nondumpable():
    # Neither the candidate nor anything it starts may read this process's
    # memory or file descriptors (ptrace rules for a non-dumpable process).
    try:
        import ctypes
        ctypes.CDLL(None, use_errno=True).prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE
    except BaseException:
        pass


def _kill_others():
    # Ends every other process of the sandbox (the candidate's children,
    # daemons it left) before the records are written, when this process
    # runs in a PID namespace of its own.
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("NSpid:") and len(line.split()) > 2:
                    os.kill(-1, signal.SIGKILL)
                    break
    except BaseException:
        pass


_scandir, _unlink, _rmdir, _chmod = os.scandir, os.unlink, os.rmdir, os.chmod


def _clear_out(path="/out"):
    # Empties the record channel before the records are written, once
    # every other process of the sandbox is gone: what the completion left
    # there (it shares the directory) is never read, and a full /out must
    # not cost the records (docs/sandbox.md P6). Directories it made
    # unreadable are opened up first.
    try:
        _chmod(path, 0o700)
        with _scandir(path) as it:
            entries = list(it)
    except OSError:
        return
    for ent in entries:
        try:
            if ent.is_dir(follow_symlinks=False):
                _clear_out(ent.path)
                _rmdir(ent.path)
            else:
                _unlink(ent.path)
        except OSError:
            pass


def judge_main():
    pub = read_frame(0)
    codec_mod = _load_codec()
    sys.modules["novelapi_plaindata"] = codec_mod
    codec = codec_mod.Codec(pub.get("tops") or [], pub.get("refs") or [])
    recs = []
    emit = recs.append
    emit({"type": "start"})
    code = extract(pub["plan"]) if pub.get("plan") is not None else (pub.get("code") or "")
    extract_rec = {"type": "extract", "code": code}
    join = pub.get("join")
    if join:
        head, own, joined = join_completion(code, join)
        unrenamed = None
        if join.get("keywords"):
            own, unrenamed = translate_back(own, join["keywords"])
        written = code if joined != "continues" else join.get("response") or ""
        code = head + own
        extract_rec.update(code=code, written=written, unrenamed=unrenamed, joined=joined)
    emit(extract_rec)
    setup = pub.get("setup") or ""
    if pub.get("randomize_seeds"):
        setup = randomise(setup)
        code = randomise(code) if parseable(code) else code
    if pub.get("bootstrap"):
        try:
            exec(compile(pub["bootstrap"], "<novelapi bootstrap>", "exec", dont_inherit=True), {"__name__": "__main__"})
        except BaseException:
            pass  # the setup runs it again and reports the failure
    for m in pub.get("preimport") or []:
        try:
            importlib.import_module(m)
        except BaseException:
            pass
    raw_pre = (("setup", setup), ("solution", code))
    parts = [(name, p.strip()) for name, p in raw_pre if p.strip()]
    req_r, req_w = os.pipe()
    chan_r, chan_w = os.pipe()
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:
        try:
            os.close(req_w)
            os.close(chan_r)
            candidate_main(pub, parts, req_r, chan_w)
        except BaseException:
            pass
        os._exit(70)
    os.close(req_r)
    os.close(chan_w)
    _nondumpable()
    state = {"status": None, "killed": False, "chan": None}
    nonce = read_line(0).decode("ascii").strip()
    sec = read_frame(0)

    def wait_child():
        # Reaps the candidate; one that has not said done is killed first
        # (its own death by a signal is reported, never ours).
        if state["status"] is None:
            chan = state["chan"]
            if chan is None or not chan.done:
                try:
                    os.kill(pid, signal.SIGKILL)
                    state["killed"] = True
                except OSError:
                    pass
            _, st = os.waitpid(pid, 0)
            state["status"] = st
        return state["status"]

    def died():
        # Reaps a candidate whose pipe closed; returns its status.
        if state["status"] is None:
            _, st = os.waitpid(pid, 0)
            state["status"] = st
        return state["status"]

    def finish(status, exit_code):
        try:
            os.close(req_w)
        except OSError:
            pass
        st = wait_child()
        _kill_others()
        _clear_out()
        if os.WIFSIGNALED(st) and not state["killed"]:
            # The candidate died of a signal: this run reports it as its own
            # (sandbox Result.Signal), after the records.
            status, exit_code = "signal", 128 + os.WTERMSIG(st)
            emit({"type": "candidate", "signal": os.WTERMSIG(st)})
        emit({"type": "done", "status": status, "n": len(recs)})
        with open(os.path.join("/out", "records.jsonl"), "w") as out:
            for rec in recs:
                rec["nonce"] = nonce
                out.write(_dumps(_clean(rec)) + "\n")
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        except BaseException:
            pass
        os._exit(exit_code)

    if sec.get("judge_leaf") is not None:
        extract_rec["judge"] = judge_fields(code, sec.get("reference") or "", sec["judge_leaf"])
    test = sec.get("test") or ""
    if test and sec.get("normalise_test", True):
        test = normalise_test(test)
    argv = infer_cli_argv(sec.get("execution_test") or test) if sec.get("infer_argv", True) else []
    raw = raw_pre + (("test", test),)
    emit({"type": "layout", "parts": layout_of(raw)})
    flat = "\n\n".join(p.strip() for _, p in raw if p.strip())
    entry = pub.get("entry_point") or ""

    def abort():
        write_all(req_w, b'{"abort": true}\n')

    try:
        compile(flat, SCRIPT, "exec", dont_inherit=True)
        at = 0
        for name, p in parts:
            compile("\n" * at + p, SCRIPT, "exec", dont_inherit=True)
            at += p.count("\n") + 2
    except BaseException as e:
        # SyntaxError, ValueError (NUL bytes), RecursionError, MemoryError.
        abort()
        # A setup or test that does not compile by itself is the task's
        # defect, whatever the completion is.
        for name, p in raw:
            if name == "solution" or not p.strip():
                continue
            try:
                compile(p.strip(), "<the task's %s>" % name, "exec", dont_inherit=True)
            except BaseException as e2:
                emit({"type": "harness_error", "msg": "the task's %s does not compile: %s: %s" % (
                    name, type(e2).__name__, str(e2)[:300])})
                sys.stderr.write(format_tb(e, _not_runner))
                finish("raised", 1)
        emit(exception_record("compile", e))
        sys.stderr.write(format_tb(e, _not_runner))
        finish("raised", 1)
    # The names the test reads, from the completion's namespace: never a
    # builtin (the test keeps the real ones), nor, when the judge binds the
    # monitor's names from the spy's own report, one of those. (A task
    # without the spy may carry the stock monitor in its context, whose
    # public state its test then reads.)
    builtin_names = set(dir(builtins))
    monitor = ("_target_api", "_spy_") if pub.get("targets") else ()
    exports = [n for n in test_names(test) if n not in builtin_names and not (monitor and n.startswith(monitor))
               and not (n.startswith("__") and n.endswith("__"))]
    if entry and entry not in exports:
        exports.append(entry)
    token = os.urandom(16).hex()
    write_all(req_w, (_dumps({"token": token, "argv": argv, "exports": exports}) + "\n").encode("utf-8"))
    chan = Channel(chan_r, token)
    state["chan"] = chan
    spy = None
    values = None
    try:
        while values is None:
            m = chan.next()
            t = m["t"]
            if t == "phase":
                if m.get("name") not in ("setup", "solution"):
                    raise Tamper("bad phase")
                emit({"type": "phase", "name": m["name"]})
            elif t == "spy":
                spy = _spy_from(m)
            elif t == "tamper":
                chan.drain()
                if spy is not None:
                    emit(spy)
                emit({"type": "tamper", "reason": str(m.get("reason"))[:500]})
                print("novelapi: harness tamper: " + str(m.get("reason"))[:500], file=sys.stderr)
                finish("tamper", 1)
            elif t == "exception":
                rec = m.get("rec")
                if type(rec) is not dict or rec.get("phase") not in ("setup", "solution"):
                    raise Tamper("bad exception record")
                rec["type"] = "exception"
                while True:
                    m2 = chan.next()
                    if m2["t"] == "spy":
                        spy = _spy_from(m2)
                    elif m2["t"] == "done":
                        break
                    else:
                        raise Tamper("unexpected %r after an exception" % m2["t"])
                emit(rec)
                if spy is not None:
                    emit(spy)
                finish("raised", 1)
            elif t == "values":
                values = m
            elif t == "toolarge":
                chan.drain()
                if spy is not None:
                    emit(spy)
                e = MemoryError("novelapi: the values the test reads exceed %d MiB" % (MAX_VALUES >> 20))
                emit(exception_record("test", e))
                print("MemoryError: " + str(e), file=sys.stderr)
                finish("raised", 1)
            else:
                raise Tamper("unexpected message %r" % t)
    except Tamper as e:
        emit({"type": "tamper", "reason": str(e)[:500]})
        print("novelapi: harness tamper: " + str(e)[:500], file=sys.stderr)
        finish("tamper", 1)
    except CandidateDied:
        st = died()
        if os.WIFSIGNALED(st):
            if spy is not None:
                emit(spy)
            finish("signal", 1)
        code_ = os.WEXITSTATUS(st) if os.WIFEXITED(st) else -1
        if spy is not None:
            emit(spy)
        emit({"type": "tamper", "reason": "the completion's process exited with status %d before the runner finished "
                                          "(sys.exit or os._exit in the completion?)" % code_})
        finish("tamper", 1)

    # The test, in the judge.
    client = Client(req_w, chan, codec_mod, codec)
    if spy is None:
        spy = {"type": "spy", "phase": "solution", "installed": False, "count": -1, "calls": [], "apis": {}}
    tg = {"__name__": "__main__", "__builtins__": builtins}
    try:
        if pub.get("judge_setup"):
            exec(compile(pub["judge_setup"], "<novelapi judge setup>", "exec", dont_inherit=True), tg)
    except BaseException as e:
        emit(spy)
        emit({"type": "harness_error", "msg": "the task's import line or hidden setup failed in the judge: %s: %s" % (
            type(e).__name__, str(e)[:300])})
        finish("raised", 1)
    targets = list(pub.get("targets") or [])
    if targets:
        tg.update({
            "_target_api_name": targets[0], "_target_api_names": targets,
            "_target_api_spy_installed": spy["installed"], "_target_api_call_count": [max(spy["count"], 0)],
            "_target_api_counts": dict(spy["apis"]), "_target_api_calls": list(spy["calls"]),
            "_target_api_recording": [False], "_target_api_raised": [],
            "_spy_check_calls": make_check(spy["calls"]),
        })
    emit(spy)
    try:
        vals = values.get("v")
        missing = values.get("missing")
        if type(vals) is not dict or type(missing) is not list:
            raise Tamper("bad values message")
        for n, b in vals.items():
            if n not in exports:
                raise Tamper("a value the judge did not ask for")
            tg[n] = client.decode(b)
        for n in missing:
            if n in exports:
                tg.pop(n, None)
    except Tamper as e:
        emit({"type": "tamper", "reason": str(e)[:500]})
        print("novelapi: harness tamper: " + str(e)[:500], file=sys.stderr)
        finish("tamper", 1)
    emit({"type": "phase", "name": "values"})
    status, code_ = "ok", 0
    if test.strip():
        offset = sum(p.count("\n") + 2 for _, p in parts)
        try:
            unit = compile("\n" * offset + test.strip(), SCRIPT, "exec", dont_inherit=True)
            linecache.cache[SCRIPT] = (len(flat), None, flat.splitlines(True), SCRIPT)
            exec(unit, tg)
            if client.broken is not None:
                raise client.broken
            emit({"type": "phase", "name": "test"})
        except Tamper as e:
            if e.reported:
                chan.drain()
            emit({"type": "tamper", "reason": str(e)[:500]})
            print("novelapi: harness tamper: " + str(e)[:500], file=sys.stderr)
            finish("tamper", 1)
        except CandidateDied:
            st = died()
            if not os.WIFSIGNALED(st):
                emit({"type": "tamper", "reason": "the completion's process exited during the test "
                                                  "(sys.exit or os._exit in the completion?)"})
                finish("tamper", 1)
            finish("signal", 1)
        except BaseException as e:
            if client.broken is not None:
                # The test caught what ended an operation; it still decides.
                b = client.broken
                if isinstance(b, Tamper):
                    emit({"type": "tamper", "reason": str(b)[:500]})
                    finish("tamper", 1)
                st = died()
                if os.WIFSIGNALED(st):
                    finish("signal", 1)
                emit({"type": "tamper", "reason": "the completion's process exited during the test"})
                finish("tamper", 1)
            remote = getattr(e, "__novelapi_remote__", None)
            rec = exception_record("test", e)
            rec["frames"] = [f for f in rec["frames"] if f["file"] == SCRIPT]
            text = format_tb(e, lambda fs: fs.filename == SCRIPT)
            if remote is not None:
                r = remote["rec"]
                for k in ("exc", "exc_module", "msg", "name", "name_from", "obj_module", "obj_name", "target"):
                    if k in r:
                        rec[k] = r[k]
                if type(r.get("frames")) is list:
                    rec["frames"] = (rec["frames"] + r["frames"])[-TB_FRAMES:]
                lines = text.splitlines(True)
                text = "".join(lines[:-1]) + remote["tb"] + lines[-1] if lines else remote["tb"]
                rec["remote"] = True
            emit(rec)
            sys.stderr.write(text)
            status, code_ = "raised", 1
    if status == "ok" or entry:
        try:
            write_all(req_w, b'{"op": "finish"}\n')
            m = chan.next()
            if m.get("t") != "entry":
                raise Tamper("unexpected %r at the end" % m.get("t"))
            er = m.get("rec")
            if type(er) is not dict or type(er.get("count")) is not int:
                raise Tamper("bad entry record")
            er = {"type": "spy", "phase": "entry", "installed": er.get("installed") is True, "count": er["count"],
                  "calls": [], "apis": {str(k): v for k, v in (er.get("apis") or {}).items() if type(v) is int}}
            if chan.next().get("t") != "done":
                raise Tamper("no done message")
        except Tamper as e:
            emit({"type": "tamper", "reason": str(e)[:500]})
            print("novelapi: harness tamper: " + str(e)[:500], file=sys.stderr)
            finish("tamper", 1)
        except CandidateDied:
            st = died()
            if os.WIFSIGNALED(st):
                finish("signal", 1)
            emit({"type": "tamper", "reason": "the completion's process exited before the runner finished"})
            finish("tamper", 1)
        if entry:
            emit(er)
            if status == "ok" and sec.get("entry_check") and not er["count"] > 0:
                e = AssertionError("solution did not call target API " + sec["entry_check"])
                emit(exception_record("test", e))
                print("AssertionError: " + str(e), file=sys.stderr)
                status, code_ = "raised", 1
    finish(status, code_)


if __name__ == "__main__":
    _sealed(globals())["judge_main"]()
