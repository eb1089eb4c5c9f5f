"""Extract S/E/M/C knowledge for a batch of APIs (docs/protocol.md §7, Stage 2).

Usage: python3 -I -B extract.py BATCH.json [OUT.jsonl]

BATCH.json: {"library": "numpy", "example_timeout": 20, "max_examples": 5, "cap": 12000,
             "tests": true, "test_dirs": [], "bootstrap": "", "names": "",
             "apis": [{"api_name", "kind", "compiled"?, "docs": [{code, lang, imports, source, origin}]}, ...]}

Writes one JSON line per API to OUT (default /out/results.jsonl), flushed
after each API so a batch killed half-way keeps what it finished:

  {"api_name", "ok", "error", "signature", "s_param": [{name, type, default,
   description, constraints}], "return_type", "instances", "instance_methods",
   "examples": [{code, status, reason, source, origin}], "mechanism": {text, words,
   sections}, "implementation", "implementation_note", "helpers": [...],
   "docstring_style", "s_origin"?}

An API marked "compiled" has no Python source: its S falls back to the
docstring's signature line and then a .pyi stub when the live signature
fails ("s_origin" says which), and "implementation_note" says why C is
unavailable.

The import aliases an example may use unimported are learned from the
library's docstrings (learned_aliases). "bootstrap" (the library's
bootstrap, docs/environments.md §8) runs first in this process and heads
every example, before its import lines. "names" binds names the library's
documentation uses unbound (django's request): an example that needs one and
gets it from nowhere else has its statements after its import lines.

"test_dirs" are folders of test modules the library does not install (a private
library's own tests/, copied under /job): they are mined before the installed suite.

Every example runs in its own python3 process (cwd a fresh directory under
/tmp) with a timeout. Python 3.11+, standard library only.
"""

import ast
import importlib
import inspect
import json
import os
import re
import subprocess
import sys
import tempfile
import textwrap
import time
import traceback
import types
import warnings

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # -I leaves the script dir out
from pyobj import code_target  # noqa: E402
import mine  # noqa: E402

NUMPY_HEADERS = {"parameters", "other parameters", "returns", "yields", "raises", "see also",
                 "notes", "references", "examples", "attributes", "methods", "warns",
                 "warnings", "receives", "example"}
GOOGLE_HEADERS = {"args", "arguments", "parameters", "params", "keyword args", "keyword arguments",
                  "kwargs", "returns", "return", "yields", "raises", "examples", "example",
                  "note", "notes", "attributes", "see also", "references", "todo", "warning",
                  "warnings"}
PARAM_SECTIONS = {"parameters", "other parameters", "args", "arguments", "params",
                  "keyword args", "keyword arguments", "kwargs", "attributes"}
DROP_NAMES = {"self", "cls", "args", "kwargs"}
STATIC_MARKERS = ("TimeoutExpired", "MemoryError", "FileNotFoundError", "ConnectionError",
                  "URLError", "HTTPError", "socket.gaierror", "gaierror", "NotImplementedError",
                  "Network is unreachable", "Temporary failure in name resolution")


# ---------------------------------------------------------------- resolution

def resolve(api_name):
    """Import api_name (module path + attribute chain); return (obj, module, owner)."""
    parts = api_name.split(".")
    mod = None
    i = len(parts)
    err = None
    while i > 0:
        try:
            mod = importlib.import_module(".".join(parts[:i]))
            break
        except ImportError as exc:
            err = exc
            i -= 1
    if mod is None:
        raise ImportError("cannot import any module of %s: %s" % (api_name, err))
    obj, owner = mod, None
    for name in parts[i:]:
        owner = obj
        if inspect.isclass(obj):
            raw = inspect.getattr_static(obj, name)
            if isinstance(raw, (staticmethod, classmethod)):
                raw = raw.__func__
            obj = raw
        else:
            obj = getattr(obj, name)
    return obj, mod, owner if inspect.isclass(owner) else None


MAX_INSTANCES = 3
TEMPLATE_RE = re.compile(r"%\(\w+\)s")


def public_instances(cls, api_name):
    """The public names of the objects of type cls in the modules along api_name's path.

    Returns (names, obj), names shortest path first and obj the object of the first:
    (["scipy.stats.triang", "scipy.stats.distributions.triang"], triang) for
    scipy.stats.distributions.triang_gen. Users call such an instance, not its class (scipy.stats
    distributions; reciprocal_gen has two, loguniform and reciprocal). ([], None) when cls is not
    a class or is the type of no public object, or of more than MAX_INSTANCES (numpy.ufunc is the
    type of hundreds, and none of them stands for it).
    """
    if not inspect.isclass(cls):
        return [], None
    parts = api_name.split(".")
    found, objs = {}, []
    for i in range(1, len(parts)):
        modname = ".".join(parts[:i])
        mod = sys.modules.get(modname)
        if not isinstance(mod, types.ModuleType):
            continue
        for k, v in list(vars(mod).items()):
            if k.startswith("_") or type(v) is not cls:
                continue
            found[modname + "." + k] = v
            if not any(v is o for o in objs):
                objs.append(v)
    if not objs or len(objs) > MAX_INSTANCES:
        return [], None
    names = sorted(found, key=lambda n: (n.count("."), n))
    return names, found[names[0]]


def instances_of(obj, owner, name, kind):
    """public_instances of a class API, or of a method's class with the method's name appended
    (scipy.stats.irwinhall.fit for scipy.stats.distributions.irwinhall_gen.fit); and the instance."""
    if kind == "class":
        return public_instances(obj, name)
    if kind == "method" and owner is not None:
        base, leaf = name.rsplit(".", 1)
        names, inst = public_instances(owner, base)
        return [n + "." + leaf for n in names], inst
    return [], None


# ---------------------------------------------------------------- docstrings

def sections(doc):
    """Split a cleaned docstring into (style, {section: [lines]}); key "" is the preamble."""
    lines = doc.splitlines()
    out = {"": []}
    style = "plain"
    cur = ""
    i = 0
    while i < len(lines):
        line = lines[i]
        s = line.strip()
        nxt = lines[i + 1].strip() if i + 1 < len(lines) else ""
        low = s.lower().rstrip(":")
        if s and nxt and set(nxt) <= set("-=~") and len(nxt) >= 3 and low in NUMPY_HEADERS \
                and not line.startswith(" "):
            cur = low
            out.setdefault(cur, [])
            style = "numpydoc"
            i += 2
            continue
        if s.endswith(":") and low in GOOGLE_HEADERS and not line.startswith(" ") and style != "numpydoc":
            cur = low
            out.setdefault(cur, [])
            style = "google"
            i += 1
            continue
        out.setdefault(cur, []).append(line)
        i += 1
    if style == "plain" and re.search(r"^\s*:(param|parameter|arg|type|returns?|rtype)\b", doc, re.M):
        style = "rest"
    return style, out


def indent_of(line):
    return len(line) - len(line.lstrip())


def parse_param_block(lines, style):
    """Return {name: (type|None, description)} from a parameters section."""
    out = {}
    lines = [l for l in lines]
    nonblank = [indent_of(l) for l in lines if l.strip()]
    if not nonblank:
        return out
    base = min(nonblank)
    cur_names, cur_type, desc = None, None, []

    def flush():
        if cur_names:
            text = clean_markup(" ".join(desc))
            for n in cur_names:
                out[n] = (cur_type, text)

    for line in lines:
        if not line.strip():
            desc.append("")
            continue
        if indent_of(line) == base:
            flush()
            s = line.strip()
            if style == "google":
                m = re.match(r"^(\*{0,2}[\w.]+)\s*(?:\(([^)]*)\))?\s*:\s*(.*)$", s)
                if m:
                    cur_names = [m.group(1).lstrip("*")]
                    cur_type = m.group(2)
                    desc = [m.group(3)]
                    continue
            if " : " in s or s.endswith(" :"):
                names, typ = s.split(" :", 1)
                typ = typ.strip() or None
            else:
                names, typ = s, None
            cur_names = [n.strip().lstrip("*") for n in names.split(",") if n.strip()]
            cur_type = typ
            desc = []
        else:
            desc.append(line.strip())
    flush()
    return out


def rest_params(doc):
    out = {}
    types = {}
    for m in re.finditer(r"^\s*:(?:param|parameter|arg|argument)\s+(?:([^:]+?)\s+)?(\w+)\s*:(.*(?:\n(?!\s*:)\s+.*)*)",
                         doc, re.M):
        out[m.group(2)] = (m.group(1), clean_markup(m.group(3)))
    for m in re.finditer(r"^\s*:type\s+(\w+)\s*:(.*)$", doc, re.M):
        types[m.group(1)] = m.group(2).strip()
    return {k: (types.get(k) or t, d) for k, (t, d) in out.items()}


def parse_params(doc):
    style, secs = sections(doc)
    found = {}
    if style == "rest":
        return style, rest_params(doc), secs
    for name in ("parameters", "other parameters", "args", "arguments", "params",
                 "keyword args", "keyword arguments", "kwargs"):
        if name in secs:
            for k, v in parse_param_block(secs[name], style).items():
                found.setdefault(k, v)
    return style, found, secs


ROLE_RE = re.compile(r":[\w:.-]+:`(~?)([^`<]*?)(?:\s*<[^>]*>)?`")


def clean_markup(text):
    def role(m):
        t = m.group(2).strip()
        if m.group(1) == "~":
            t = t.rsplit(".", 1)[-1]
        return t
    text = ROLE_RE.sub(role, text)
    text = re.sub(r"``([^`]*)``", r"\1", text)
    text = re.sub(r"`([^`<]*?)(?:\s*<[^>]*>)?`_{0,2}", r"\1", text)
    text = re.sub(r"\*\*([^*]+)\*\*", r"\1", text)
    text = re.sub(r"(?<![\w*])\*([^*\s][^*]*)\*(?![\w*])", r"\1", text)
    text = re.sub(r"\[(\d+|[A-Za-z]\w*)\]_", "", text)
    text = re.sub(r"\s+", " ", text)
    return text.strip()


def prose(lines):
    """Markup-free prose from docstring lines: directives dropped except version notes."""
    out = []
    skip_indent = None
    for line in lines:
        s = line.strip()
        if skip_indent is not None:
            if not s or indent_of(line) > skip_indent:
                continue
            skip_indent = None
        m = re.match(r"^\.\.\s+(versionadded|versionchanged|deprecated)::\s*(\S+)\s*(.*)$", s)
        if m:
            word = {"versionadded": "Added", "versionchanged": "Changed",
                    "deprecated": "Deprecated"}[m.group(1)]
            out.append("%s in version %s%s" % (word, m.group(2), ("; " + m.group(3)) if m.group(3) else "."))
            skip_indent = indent_of(line)
            continue
        if s.startswith(".. ") or s.startswith(">>>") or s.startswith("..."):
            skip_indent = indent_of(line)
            continue
        if s.endswith("::"):
            out.append(s[:-1])
            skip_indent = indent_of(line)
            continue
        out.append(s)
    text = clean_markup(" ".join(out))
    return text


def sentences(text):
    return [s for s in re.split(r"(?<=[.!?])\s+(?=[A-Z(`\"'])", text) if s.strip()]


def mechanism(doc, secs, params, kind, api_name):
    """Docstring-grounded M: 50-150 words, markup removed (docs/protocol.md §1.2, §7)."""
    pre = list(secs.get("", []))
    # A signature-looking first line (C classes: "ndarray(shape, dtype=...)") is not prose.
    if pre and re.match(r"^[\w.]+\(.*\)?\s*$", pre[0].strip() or "x") and "(" in pre[0]:
        while pre and pre[0].strip():
            pre.pop(0)
    used = ["summary"]
    parts = [prose(pre)]
    words = len(" ".join(parts).split())
    if words < 50:
        for sec in ("notes", "note"):
            if sec in secs:
                parts.append(prose(secs[sec]))
                used.append(sec)
                break
    words = len(" ".join(parts).split())
    if words < 50:
        ret = secs.get("returns") or secs.get("return") or []
        rtext = prose([l for l in ret if l.startswith(" ")]) if ret else ""
        if rtext:
            parts.append("It returns " + rtext[0].lower() + rtext[1:] if rtext else "")
            used.append("returns")
    words = len(" ".join(parts).split())
    if words < 50 and params:
        bits = []
        for name, (_t, d) in params.items():
            first = sentences(d)[0] if d else ""
            bits.append("%s (%s)" % (name, first.rstrip(".")) if first else name)
        parts.append("Parameters: " + "; ".join(bits) + ".")
        used.append("parameters")
    text = " ".join(p for p in parts if p)
    text = re.sub(r"\s+", " ", text).strip()
    # Cut to at most 150 words at a sentence boundary.
    if len(text.split()) > 150:
        acc = []
        for s in sentences(text):
            if len(" ".join(acc + [s]).split()) > 150:
                break
            acc.append(s)
        text = " ".join(acc) if acc else " ".join(text.split()[:150])
    return {"text": text, "words": len(text.split()), "sections": used}


# ---------------------------------------------------------------- examples

def doctest_statements(lines):
    """Turn doctest lines into a list of (statement, expected output lines) pairs."""
    stmts = []
    cur, outl = None, []
    for line in lines:
        s = line.strip()
        if s.startswith(">>>"):
            if cur is not None:
                stmts.append((cur, outl))
            cur, outl = [s[4:] if s.startswith(">>> ") else s[3:]], []
        elif cur is not None and not outl and (s.startswith("...") and (s == "..." or s.startswith("... "))):
            cur.append(s[4:] if s.startswith("... ") else "")
        elif cur is not None and s:
            outl.append(line.rstrip())
        else:
            if cur is not None:
                stmts.append((cur, outl))
            cur, outl = None, []
    if cur is not None:
        stmts.append((cur, outl))
    return joined_statements([("\n".join(c).rstrip(), textwrap.dedent("\n".join(o)).splitlines())
                              for c, o in stmts])


def _parses(src):
    try:
        ast.parse(src)
    except SyntaxError:
        return False
    return True


def joined_statements(stmts):
    """stmts with xdoctest's reading of prompts: a run of statements without expected output
    (the run ends at the first that has one) whose statements do not all parse alone but which
    parses as a whole is one source, split again at its top-level statements. torch writes
    every line of a compound statement behind ">>>" (">>> def f(x):", ">>>     return x"); a
    statement's comment lines before it stay statements of their own. Runs whose every statement
    parses, or that do not parse as a whole, are left as they are."""
    out, i = [], 0
    while i < len(stmts):
        j = i
        while j < len(stmts) - 1 and not stmts[j][1]:
            j += 1
        run = stmts[i:j + 1]
        src = "\n".join(s for s, _ in run)
        if all(_parses(s) for s, _ in run) or not _parses(src):
            out += run
            i = j + 1
            continue
        lines = src.splitlines()
        body = ast.parse(src).body
        prev = 0
        for k, node in enumerate(body):
            start, end = node.lineno - 1, node.end_lineno
            if getattr(node, "decorator_list", None):
                start = min(d.lineno for d in node.decorator_list) - 1
            start = max(start, prev)
            if end <= prev:  # "a = 1; b = 2": one line, one statement
                continue
            out += [(l, []) for l in lines[prev:start] if l.strip()]
            out.append(("\n".join(lines[start:end]).rstrip(), run[-1][1] if k == len(body) - 1 else []))
            prev = end
        out += [(l, []) for l in lines[prev:] if l.strip()]
        i = j + 1
    return out


# How much of a doctest's expected output an example keeps, as comments
# under its statement.
OUTPUT_LINES = 6
OUTPUT_CHARS = 100


OUTPUT_PREFIX, OUTPUT_CONT = "# -> ", "#    "


def output_comment(out):
    """Expected doctest output as comment lines ("# -> ..."), cut to OUTPUT_LINES lines."""
    if not out:
        return ""
    lines = [l[:OUTPUT_CHARS] for l in out[:OUTPUT_LINES]]
    if len(out) > OUTPUT_LINES:
        lines.append("...")
    return "\n".join((OUTPUT_PREFIX if i == 0 else OUTPUT_CONT) + l for i, l in enumerate(lines))


PLOT_RE = re.compile(r"\b(plt|matplotlib|pyplot|fig|ax|axes)\b|\.plot\(|\.hist\(")


METHOD_LINE_RE = re.compile(r"^([A-Za-z_]\w*)\((.*)\)$")
MAX_INSTANCE_METHODS = 16


def documented_methods(secs):
    """The call forms a docstring's Methods section lists ("pdf(x, c, loc=0, scale=1)"), in order,
    at most MAX_INSTANCE_METHODS: for an instance whose class signature is not how it is called."""
    out = []
    for line in secs.get("methods", []):
        if line.startswith((" ", "\t")):
            continue
        m = METHOD_LINE_RE.match(line.strip())
        if m and len(out) < MAX_INSTANCE_METHODS:
            out.append(m.group(0))
    return out


def bound_names(tree):
    """Names a statement binds: assignment targets, defs, classes, imports."""
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            out.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.add(node.name)
        elif isinstance(node, ast.alias):
            out.add((node.asname or node.name).split(".")[0])
    return out


def loaded_names(tree):
    return {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


def statements_code(lines):
    """The doctest statements of lines as one script, and the number dropped.

    Statements marked +SKIP, plotting ones and unparsable ones are dropped, and so are later
    statements that use a name only a dropped statement bound (`left, right = ax.get_xlim()`
    dropped, then `print(left)`), which would fail with a NameError. A statement's expected
    doctest output follows it as comment lines ("# -> (array([1, 2]), ...)"), so readers see
    what it returns. Returns (code or None, number of statements dropped).
    """
    stmts = doctest_statements(lines)
    kept, dropped = [], 0
    gone = set()   # names bound only by dropped statements
    bound = set()  # names bound by kept statements
    for st, out in stmts:
        st = re.sub(r"\s*#\s*doctest:.*$", "", st, flags=re.M) if "doctest: +SKIP" not in st else st
        try:
            tree = ast.parse(st)
        except SyntaxError:
            dropped += 1
            continue
        binds = bound_names(tree)
        # A name the statement binds itself (a loop or comprehension
        # variable) is not a use of a dropped statement's binding.
        if "doctest: +SKIP" in st or PLOT_RE.search(st) or (loaded_names(tree) - binds) & gone:
            dropped += 1
            gone |= binds - bound
            continue
        gone -= binds
        bound |= binds
        comment = output_comment([mine.MARKER_RE.sub("", l) for l in out])
        kept.append(st + "\n" + comment if comment else st)
    if not kept:
        return None, dropped
    return "\n".join(kept) + "\n", dropped


def doctest_head(code, leaf):
    """The statements of a doctest script code up to its last top-level statement that names
    leaf, with that statement's output comment lines; None when that is all of code or none names
    leaf. A doctest whose later statements need what the example never makes (torch's
    lr_scheduler examples go on with "train(...)" in a loop) still shows the API at work."""
    try:
        body = ast.parse(code).body
    except SyntaxError:
        return None
    lines = code.splitlines()
    last = None
    for node in body:
        if mine.mentions("\n".join(lines[node.lineno - 1:node.end_lineno]), leaf):
            last = node
    if last is None or last is body[-1]:
        return None
    end = last.end_lineno
    while end < len(lines) and lines[end].startswith((OUTPUT_PREFIX, OUTPUT_CONT)):
        end += 1
    return "\n".join(lines[:end]) + "\n"


def build_example(doc, secs):
    """The doctest statements of doc's Examples section (the whole docstring when it has none)
    as one script (statements_code)."""
    section = None
    for name in ("examples", "example"):
        if name in secs:
            section = secs[name]
            break
    lines = section if section is not None else doc.splitlines()
    return statements_code(lines)


REACH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "reach.py")


def run_example(code, leaf, timeout, codes=None, beside=None):
    """Run code in its own python3 process under a fresh directory: (status, reason). With
    codes (api_codes), an example that runs cleanly without running any of them has failed:
    it uses another object of the same name. With beside, a directory, the fresh directory
    holds links to what beside holds, as a test's files are beside it (with_files)."""
    return run_recorded(code, leaf, timeout, codes, beside=beside)[:2]


def with_files(d, beside):
    """Links in directory d to the files and folders of directory beside but its Python
    modules and caches: a test of the installed suite reads its data files relative to its
    module (astropy's get_pkg_data_filename("data/html.html"), os.path.dirname(__file__)) or
    to the directory its setup changes into, and its example runs as a script of d."""
    try:
        names = sorted(os.listdir(beside))
    except OSError:
        return
    for n in names:
        if n.endswith((".py", ".pyc")) or n == "__pycache__" or n.startswith("."):
            continue
        try:
            os.symlink(os.path.join(beside, n), os.path.join(d, n))
        except OSError:
            continue


def run_recorded(code, leaf, timeout, codes=None, record=None, beside=None):
    """run_example, and the set of code objects under the directory record that started while
    code ran (reach.py; empty without record): (status, reason, started)."""
    try:
        compile(code, "<example>", "exec")
    except SyntaxError as exc:
        return "failed", "syntax error: %s" % exc, set()
    started = set()
    with tempfile.TemporaryDirectory(dir="/tmp") as d:
        if beside:
            with_files(d, beside)
        path = os.path.join(d, "example.py")
        with open(path, "w") as f:
            f.write(code)
        env = dict(os.environ)
        env.setdefault("MPLBACKEND", "Agg")
        argv = [sys.executable, "-I", "-B", path]
        report = os.path.join(d, ".reached")
        if codes or record:
            with open(os.path.join(d, ".codes.json"), "w") as f:
                json.dump({"codes": codes or [], "record": record}, f)
            argv = [sys.executable, "-I", "-B", REACH, os.path.join(d, ".codes.json"), path, report]
        try:
            p = subprocess.run(argv, cwd=d, env=env,
                               stdin=subprocess.DEVNULL, capture_output=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            if re.search(r"\b%s\b" % re.escape(leaf), code):
                return "static", "execution blocked by environment (TimeoutExpired after %ss); static checks pass" % timeout, started
            return "failed", "timed out after %ss" % timeout, started
        reached = os.path.exists(report)
        if record:
            try:
                with open(report + ".codes") as f:
                    started = {tuple(c) for c in json.load(f)}
            except (OSError, ValueError):
                pass
    if p.returncode == 0:
        if codes and not reached:
            return "failed", "runs cleanly but never runs the API's code (another object named %s)" % leaf, started
        return "executed", "runs cleanly", started
    err = p.stderr.decode("utf-8", "replace").strip().splitlines()
    last = err[-1] if err else "exit status %d" % p.returncode
    if any(m in last for m in STATIC_MARKERS) and re.search(r"\b%s\b" % re.escape(leaf), code):
        return "static", "execution blocked by environment (%s); static checks pass" % last[:200], started
    return "failed", last[:300], started


# How many candidates of each source beyond doctests are tried per API, and how long the
# examples of one API may run in all, as a multiple of the example timeout.
TRIES_PER_SOURCE = 3
BUDGET_TIMEOUTS = 3


def docstring_origin(target):
    """{file, line} of target's source (line of its definition); {} when unknown."""
    try:
        return {"file": inspect.getsourcefile(target) or "", "line": inspect.getsourcelines(target)[1]}
    except (OSError, TypeError):
        return {}


def block_to_code(raw):
    """A documentation block as runnable code: doctest blocks become their statements
    (statements_code), other blocks stay; None for one that does not parse or does nothing
    (mine.inert: a literal block of data)."""
    if mine.is_doctest(raw):
        code, _ = statements_code(raw.splitlines())
        return code
    code = "\n".join(mine.MARKER_RE.sub("", l) for l in raw.splitlines())
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return None
    return None if mine.inert(tree) else code


def gather_examples(api, cfg, ctx, leaf, doc, secs, target, obj, owner=None):
    """The examples of one API from each source in order of trust (doctest, docstring code
    blocks, documentation pages, the installed test suite), each executed in its own process.
    Sources after the doctest are tried until max_examples are served or the time budget is
    spent; every tried example is returned with its status, source and origin."""
    max_served = cfg.get("max_examples", 5)
    timeout = cfg.get("example_timeout", 20)
    budget = BUDGET_TIMEOUTS * timeout
    spent = 0.0
    out = []
    origin = docstring_origin(target)

    # A method found by its name in documentation pages or tests may belong to
    # another class (Series.replace for Block.replace): such an example must run
    # the method's own code. Functions and classes are matched by identity.
    codes = api_codes(obj) if api.get("kind") == "method" else None

    def run(code, source, org, imports=None, note="", pctx=None, alt=None):
        """Runs code and records it; alt, the same block without its page's setup, runs when
        code fails (an earlier block that binds a name it uses may hold placeholders)."""
        status = run1(code, source, org, imports, note, pctx)
        if status == "failed" and alt and alt != code and spent <= budget:
            status = run1(alt, source, org, imports, note, pctx)
        return status

    def bare(code, with_setup, c, imports=None):
        """code as the alternative of with_setup when it needs nothing with_setup gave."""
        return code if with_setup != code and not mine.missing(code, c, imports) else None

    def run1(code, source, org, imports=None, note="", pctx=None):
        nonlocal spent
        code, added = mine.with_prelude(code, pctx or ctx, imports)
        code = cfg.get("bootstrap", "") + code
        if any(e["code"] == code for e in out):
            return "duplicate"  # the docs render the docstring's own example
        if not mine.runs_leaf(code, leaf):
            out.append(dict({"code": code, "status": "failed", "source": source,
                             "reason": "names the API only in functions it never calls"}, **({"origin": org} if org else {})))
            return "failed"
        t0 = time.monotonic()
        beside = os.path.dirname((org or {}).get("file") or "") if source == "tests" else None
        status, reason = run_example(code, leaf, timeout, codes if source in ("docs", "other-docstring", "tests") else None,
                                     beside)
        spent += time.monotonic() - t0
        if note and status != "failed":
            reason += note
        ex = {"code": code, "status": status, "reason": reason, "source": source}
        if org:
            ex["origin"] = org
        out.append(ex)
        return status

    def served():
        return sum(1 for e in out if e["status"] != "failed")

    kind = api.get("kind", "function")
    tried_tests = 0
    doctest_code = None
    if doc:
        doctest_code, dropped = build_example(doc, secs)
        if doctest_code:
            note = "; %d plotting/skipped doctest statements removed" % dropped if dropped else ""
            if run(doctest_code, "docstring", dict(origin), note=note) == "failed":
                head = doctest_head(doctest_code, leaf)
                if head:
                    run(head, "docstring", dict(origin), note=note + "; the doctest up to its last statement "
                        "that names the API (the whole failed: %s)" % out[-1]["reason"][:150])
    candidates = []
    if doc:
        for c in mine.docstring_blocks(doc, leaf, skip_doctest=False)[:TRIES_PER_SOURCE]:
            org = dict(origin)
            if "line" in org:
                org["line"] = org["line"] + c["origin"]["line"]
            c["origin"] = org
            candidates.append(c)
    candidates.extend((api.get("docs") or [])[:TRIES_PER_SOURCE])
    for c in candidates:
        if served() >= max_served or spent > budget:
            break
        code = c.get("code")
        if c.get("lang") and not mine.python_lang(c["lang"]):
            continue
        if code is None and c.get("doctest"):
            code, _ = statements_code(c["doctest"].splitlines())
            if code and doctest_code and code.strip() in doctest_code:
                continue
        elif code is not None:
            code = block_to_code(code)
        if not code or not mine.mentions(code, leaf):
            continue
        imports = None
        if c.get("imports"):
            try:
                imports = mine.import_lines(ast.parse(c["imports"]))
            except SyntaxError:
                imports = None
        alt = None
        if c.get("setup"):
            code, alt = mine.with_setup(code, c["setup"], ctx, imports, block_to_code), code
            alt = bare(alt, code, ctx, imports)
        if c["source"] != "docstring-block" and not mine.calls_api(mine.with_prelude(code, ctx, imports)[0], obj, leaf, kind):
            continue
        run(code, c["source"], c.get("origin"), imports, alt=alt)
    tried = 0
    for code, pctx, org, alone in other_docstring_examples(ctx["top"], ctx, leaf, target, 3 * TRIES_PER_SOURCE, owner):
        if served() >= max_served or spent > budget or tried >= TRIES_PER_SOURCE:
            break
        if not mine.calls_api(mine.with_prelude(code, pctx)[0], obj, leaf, kind):
            continue
        tried += 1
        run(code, "other-docstring", org, pctx=pctx, alt=bare(alone, code, pctx))
    if cfg.get("tests") and served() < max_served and spent <= budget:
        def reaches(code, imports):
            full = mine.with_prelude(code, ctx, imports)[0]
            return mine.imports_ok(full) and mine.calls_api(full, obj, leaf, kind)

        for c in mine.test_examples(test_corpus(ctx["top"]), leaf, api["api_name"], 3 * TRIES_PER_SOURCE, reaches, kind):
            if served() >= max_served or spent > budget or tried_tests >= TRIES_PER_SOURCE:
                break
            tried_tests += 1
            run(c["code"], "tests", c["origin"], c["imports"])
    if served() == 0 and spent <= budget:
        spent += module_test_examples(out, api, cfg, ctx, leaf, target, obj, doc, budget - spent)
    return out


# How many examples the docstrings and tests of an API's module that do not name it give at
# most, and how many of each source run anew for one API (the runs of the batch's other APIs are
# reused).
MODULE_TEST_SERVED = 2
MODULE_TEST_RUNS = TRIES_PER_SOURCE
_MODULE_RUNS = {}  # (file, test or line) -> (code, status, reason, code objects started)


def module_test_examples(out, api, cfg, ctx, leaf, target, obj, doc, budget):
    """Appends to out the examples of the API's own module that do not name it but run its code,
    at most MODULE_TEST_SERVED; returns the seconds spent. They come from the code blocks of its
    own docstring and the docstrings of its module's objects (module_docstring_examples: pydantic's
    FieldInfo.from_annotation runs while the class its docstring shows is defined), then from the
    tests of its module (mine.module_test_examples: a reader class reached through
    Table.read(format=...)). Each runs once per batch under reach.py, which records every code
    object of the library it starts but those its import lines alone start (import_started), so
    the other APIs of the batch reuse the run; at most MODULE_TEST_RUNS of each source run anew
    for this API."""
    want = {tuple(c) for c in own_codes(obj) or []}
    top = sys.modules.get(ctx["top"])
    root = os.path.dirname(getattr(top, "__file__", None) or "")
    module_file = docstring_origin(target).get("file")
    if not want or not root or not module_file:
        return 0.0
    timeout = cfg.get("example_timeout", 20)
    spent, served = 0.0, 0

    def accept(code, imports):
        return mine.imports_ok(mine.with_prelude(code, ctx, imports)[0])

    names = {leaf}
    if api.get("kind") == "method":
        names.add(api["api_name"].rsplit(".", 2)[-2])
    docstrings = [{"code": code, "source": source, "origin": org, "key": (org.get("file"), org.get("line"), code), "pctx": pctx}
                  for code, pctx, org, source in module_docstring_examples(ctx, leaf, target, doc, module_file,
                                                                            4 * TRIES_PER_SOURCE)]
    callers = mine.module_callers(module_file, names)
    tests = (dict(c, key=(c["origin"]["file"], c["origin"]["test"]))
             for c in mine.module_test_examples(test_corpus(ctx["top"]), module_file, 4 * TRIES_PER_SOURCE, accept, callers)
             if cfg.get("tests"))
    for cands, what in ((docstrings, "an example of its module"), (tests, "a test of its module")):
        fresh = 0
        for c in cands:
            if served >= MODULE_TEST_SERVED or spent > budget:
                return spent
            key = c["key"]
            if key not in _MODULE_RUNS:
                if fresh >= MODULE_TEST_RUNS:
                    continue
                code = mine.with_prelude(c["code"], c.get("pctx") or ctx, c.get("imports"))[0]
                if "pctx" in c and not mine.imports_ok(code):
                    continue
                fresh += 1
                code = cfg.get("bootstrap", "") + code
                t0 = time.monotonic()
                beside = os.path.dirname(c["origin"].get("file") or "") if c["source"] == "tests" else None
                status, reason, started = run_recorded(code, leaf, timeout, record=root + os.sep, beside=beside)
                _MODULE_RUNS[key] = (code, status, reason, started - import_started(code, cfg, leaf, timeout, root))
                spent += time.monotonic() - t0
                if _MODULE_RUNS[key][1] != "executed" or not (_MODULE_RUNS[key][3] & want):
                    reason = _MODULE_RUNS[key][2] if _MODULE_RUNS[key][1] != "executed" else \
                        "runs cleanly but never runs the API's code"
                    out.append({"code": code, "status": "failed", "reason": reason, "source": c["source"],
                                "origin": c["origin"]})
                    continue
            code, status, reason, started = _MODULE_RUNS[key]
            if status != "executed" or not (started & want) or any(e["code"] == code for e in out):
                continue
            served += 1
            out.append({"code": code, "status": "executed", "source": c["source"], "origin": c["origin"],
                        "reason": reason + "; runs the API's code through %s that does not name it" % what})
    return spent


def _with_and_without_setup(code, setup, ctx):
    """code with its docstring's earlier blocks as setup (mine.with_setup), then code alone when
    that differs and needs nothing the setup gave."""
    full = mine.with_setup(code, setup, ctx, None, block_to_code)
    return [full] + ([code] if full != code and not mine.missing(code, ctx) else [])


def module_docstring_examples(ctx, leaf, target, doc, module_file, limit):
    """Up to limit candidate examples of the API from docstrings of its own module that do not
    name its leaf, as (code, prelude context, origin, source): the code blocks of its own
    docstring doc first (source "docstring-block"), then the doctests and code blocks of the
    docstrings of the objects the module defines, and of the module, shorter first
    ("other-docstring"). Whether one runs the API's code is decided when it runs."""
    own = docstring_origin(target)
    found = []
    for b in mine.docstring_blocks(doc or "", leaf, skip_doctest=False, named=False):
        code = b.get("code")
        if code is None:
            code, _ = statements_code(b["doctest"].splitlines())
        if code:
            org = dict(own)
            if "line" in org:
                org["line"] += b["origin"]["line"]
            for c in _with_and_without_setup(code, b["setup"], ctx):
                found.append(((0, len(code)), c, ctx, org, "docstring-block"))
    entries, _ = docstring_index(ctx["top"])
    own_doc = inspect.cleandoc(doc) if doc else None
    for d, o, modname in entries:
        if d == own_doc or o is target:
            continue
        if isinstance(o, types.ModuleType):
            t, org = o, {"file": getattr(o, "__file__", None) or "", "line": 1}
        else:
            t = code_target(o)
            org = docstring_origin(t)
        if not org.get("file") or os.path.realpath(org["file"]) != os.path.realpath(module_file):
            continue
        pctx = dict(ctx)
        pctx["modules"] = []
        for m in [getattr(t, "__module__", None), modname] + ctx["modules"]:
            if isinstance(m, str) and m in sys.modules and m not in pctx["modules"]:
                pctx["modules"].append(m)
        codes = []
        code, _ = build_example(d, sections(d)[1])
        if code and not mine.mentions(code, leaf):
            codes.append((code, 0))
        for b in mine.docstring_blocks(d, leaf, skip_doctest=True, named=False):
            codes += [(c, b["origin"]["line"]) for c in _with_and_without_setup(b["code"], b["setup"], pctx)]
        for code, line in codes:
            o2 = dict(org)
            if line and "line" in o2:
                o2["line"] += line
            found.append(((1, len(code)), code, pctx, o2, "other-docstring"))
    found.sort(key=lambda f: f[0])
    return [f[1:] for f in found[:limit]]


_IMPORT_RUNS = {}  # the import lines of an example -> code objects they start


def import_started(code, cfg, leaf, timeout, root):
    """The code objects under root that the bootstrap and the top-level import statements of
    code start by themselves, run once per batch for each such block: what runs while the
    library imports (a reader registered at import) is no use of an API by the test."""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return set()
    lines = "\n".join(ast.unparse(n) for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom)))
    text = cfg.get("bootstrap", "") + lines + "\n"
    if text not in _IMPORT_RUNS:
        _IMPORT_RUNS[text] = run_recorded(text, leaf, timeout, record=root + os.sep)[2]
    return _IMPORT_RUNS[text]


def own_codes(obj):
    """api_codes of a routine; for a class, those of the functions it defines itself (methods,
    properties' getters); None when there are none."""
    if not inspect.isclass(obj):
        return api_codes(obj)
    out = []
    for v in list(vars(obj).values()):
        out += api_codes(v.fget if isinstance(v, property) else v) or []
    return out or None


def api_codes(obj):
    """The code object of a routine API as a [[co_filename, co_firstlineno, co_name]] list
    (decorators unwrapped, a property's getter); None when it has none (compiled code)."""
    f = obj.__func__ if isinstance(obj, (staticmethod, classmethod)) else obj
    f = code_target(f)
    c = getattr(f, "__code__", None)
    if not isinstance(c, types.CodeType):
        return None
    return [[c.co_filename, c.co_firstlineno, c.co_name]]


_DOCSTRINGS = {}
IDENT_RE = re.compile(r"[A-Za-z_]\w*")


def docstring_index(library):
    """The public docstrings of the library that hold examples (doctest lines, code blocks), as
    a list of (docstring, object, module name), and {identifier: [indexes]} over them; made once
    per batch and grown by the modules loaded since (an API of the batch imports
    sqlalchemy.dialects.oracle, whose docstrings the batch's earlier APIs did not load). Modules'
    and methods' docstrings count, as the library's reference renders them (SQLAlchemy documents
    each dialect in its module's docstring)."""
    entries, by, seen, done = _DOCSTRINGS.setdefault(library, ([], {}, set(), set()))
    for name in sorted(sys.modules):
        if name in done or (name != library and not name.startswith(library + ".")):
            continue
        done.add(name)
        if any(seg.startswith("_") for seg in name.split(".")):
            continue
        try:
            items = [("", sys.modules[name])] + list(vars(sys.modules[name]).items())
        except Exception:  # noqa: BLE001
            continue
        for k, v in items:
            if k.startswith("_") or id(v) in seen or (k and isinstance(v, types.ModuleType)):
                continue
            seen.add(id(v))
            objs = [v]
            if inspect.isclass(v):
                try:
                    objs += [m for mk, m in vars(v).items() if not mk.startswith("_")]
                except Exception:  # noqa: BLE001
                    pass
            for o in objs:
                try:
                    d = o.__doc__ if (callable(o) or isinstance(o, (property, types.ModuleType))) else None
                except Exception:  # noqa: BLE001
                    continue
                if not isinstance(d, str) or not (">>>" in d or "```" in d or "::" in d):
                    continue
                seen.add(id(o))
                i = len(entries)
                entries.append((inspect.cleandoc(d), o, name))
                for ident in set(IDENT_RE.findall(d)):
                    by.setdefault(ident, []).append(i)
    return entries, by


def other_docstring_examples(library, ctx, leaf, target, limit, owner=None):
    """Up to limit examples of the API from the docstrings of the library's other public objects
    that use its leaf name (a class's docstring showing its methods, a function's example
    that calls another), those of owner (a method's class: BaggingClassifier's example calls
    its predict) first, then those that call the leaf, shortest first: (code, prelude context
    of the docstring's own module, origin, the code without the docstring's earlier blocks as
    setup). Each docstring gives its doctest statements and its code blocks that name leaf."""
    entries, by = docstring_index(library)
    own = getattr(target, "__doc__", None)
    own = inspect.cleandoc(own) if isinstance(own, str) else None
    found = []
    calls = re.compile(r"(?<![\w])%s\s*\(" % re.escape(leaf))
    refs = by.get(leaf, [])
    for i in refs[:200] + [i for i in refs[200:] if owner is not None and entries[i][1] is owner]:
        doc, o, modname = entries[i]
        if doc == own or o is target:
            continue
        codes = []
        code, _ = build_example(doc, sections(doc)[1])
        if code and mine.mentions(code, leaf):
            codes.append((code, 0, None))
        for b in mine.docstring_blocks(doc, leaf, skip_doctest=True):
            codes.append((b["code"], b["origin"]["line"], b["setup"]))
        for code, line, setup in codes:
            found.append(((owner is None or o is not owner, 0 if calls.search(code) else 1, len(code)), code, o, modname,
                          line, setup))
    found.sort(key=lambda f: f[0])
    out = []
    for _score, code, o, modname, line, setup in found[:limit]:
        if isinstance(o, types.ModuleType):
            t, org = o, {"file": getattr(o, "__file__", None) or "", "line": 1}
        else:
            t = code_target(o)
            org = docstring_origin(t)
        if line and "line" in org:
            org["line"] += line
        pctx = dict(ctx)
        pctx["modules"] = []
        for m in [getattr(t, "__module__", None), modname] + ctx["modules"]:
            if isinstance(m, str) and m in sys.modules and m not in pctx["modules"]:
                pctx["modules"].append(m)
        alone = code
        if setup:
            code = mine.with_setup(code, setup, pctx, None, block_to_code)
        out.append((code, pctx, org, alone))
    return out


_CORPORA = {}
TEST_DIRS = []  # the batch's "test_dirs": a private library's own test folders, under /job
_PUBLIC = {}


def public_names(top):
    """mine.PublicNames of the library top, read again for the modules the batch loaded since."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if top not in _PUBLIC:
            _PUBLIC[top] = mine.PublicNames(top)
        _PUBLIC[top].update()
    return _PUBLIC[top].names()


def test_corpus(top):
    """The test suite of package top, read once per batch: the folders of TEST_DIRS, then the
    installed suite."""
    if top not in _CORPORA:
        _CORPORA[top] = mine.TestCorpus(top, TEST_DIRS)
    return _CORPORA[top]


# ---------------------------------------------------------------- source

def strip_docstrings(tree):
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(getattr(body[0], "value", None), ast.Constant) \
                    and isinstance(body[0].value.value, str):
                body.pop(0)
                if not body:
                    body.append(ast.Pass())
    return tree


def clean_source(target):
    src = textwrap.dedent(inspect.getsource(target))
    tree = ast.parse(src)
    return ast.unparse(strip_docstrings(tree)), tree


def implementation(obj, owner, cap):
    """C: source without docstrings plus same-module helpers, one level deep (§7)."""
    target = code_target(obj)
    try:
        primary, tree = clean_source(target)
    except (OSError, TypeError, SyntaxError, IndentationError) as exc:
        return "", "no_source: %s" % (str(exc)[:200] or type(exc).__name__), []
    if len(primary) > cap:
        return "", "too_long: %d chars > %d" % (len(primary), cap), []
    modname = getattr(target, "__module__", None)
    mod = sys.modules.get(modname) if modname else None
    names, attrs = [], []
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id not in names:
            names.append(node.id)
        elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) \
                and node.value.id in ("self", "cls") and node.attr not in attrs:
            attrs.append(node.attr)
    helpers = []
    seen = {id(target)}
    if mod is not None:
        for n in names:
            g = mod.__dict__.get(n)
            g2 = code_target(g) if g is not None else None
            if g2 is None or id(g2) in seen:
                continue
            if not (inspect.isfunction(g2) or inspect.isclass(g2)):
                continue
            if getattr(g2, "__module__", None) != modname:
                continue
            seen.add(id(g2))
            helpers.append(("%s.%s" % (modname, n), g2))
    if owner is not None:
        for a in attrs:
            raw = inspect.getattr_static(owner, a, None)
            if isinstance(raw, (staticmethod, classmethod)):
                raw = raw.__func__
            if isinstance(raw, property):
                raw = raw.fget
            if not inspect.isfunction(raw) or id(raw) in seen:
                continue
            if getattr(raw, "__module__", None) != modname:
                continue
            seen.add(id(raw))
            helpers.append(("%s.%s.%s" % (modname, owner.__name__, a), raw))
    out = primary
    used, skipped = [], 0
    for name, h in helpers:
        try:
            hs, _ = clean_source(h)
        except (OSError, TypeError, SyntaxError, IndentationError):
            continue
        block = "\n\n# --- helper: %s ---\n%s" % (name, hs)
        if len(out) + len(block) > cap:
            skipped += 1
            continue
        out += block
        used.append(name)
    note = "source" + ("; %d helpers over the cap left out" % skipped if skipped else "")
    return out, note, used


# ---------------------------------------------------------------- S

def fmt_annotation(ann):
    if ann is inspect.Parameter.empty:
        return None
    if isinstance(ann, str):
        return ann
    try:
        return inspect.formatannotation(ann)
    except Exception:  # noqa: BLE001
        return repr(ann)


def signature_target(obj, kind):
    target = code_target(obj)
    if kind == "class" and inspect.isclass(target):
        for base in target.__mro__:
            if base is object:
                break
            if "__init__" in base.__dict__ and inspect.isfunction(base.__dict__["__init__"]):
                return base.__dict__["__init__"]
        return target
    if kind == "function" and not (inspect.isroutine(obj) or inspect.isclass(obj)):
        return obj  # instance: its __call__ signature
    return obj


def s_params(obj, kind, descs):
    try:
        sig = inspect.signature(signature_target(obj, kind))
    except (TypeError, ValueError):
        return None, [], None
    out = []
    for p in sig.parameters.values():
        if p.name in DROP_NAMES:
            continue
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) and p.name in ("args", "kwargs", "kwds"):
            continue
        typ = fmt_annotation(p.annotation)
        dtyp, desc = descs.get(p.name, (None, ""))
        if typ is None and dtyp:
            typ = clean_markup(dtyp)
        default = None if p.default is inspect.Parameter.empty else no_address(repr(p.default))
        out.append({"name": p.name, "type": typ, "default": default,
                    "description": desc or "", "constraints": None})
    ret = fmt_annotation(sig.return_annotation)
    return no_address(str(sig)), out, ret


# A default's repr can hold the object's address, which differs in every
# process: it is cut, as discovery does (introspect.py).
ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+>")


def no_address(text):
    return ADDRESS.sub(">", text) if text else text


# ---------------------------------------------------------------- S of compiled APIs

SIGLINE_RE = re.compile(r"^([A-Za-z_][\w.]*)\s*(\(.*\))\s*(?:->\s*(.+))?$")
OPTIONAL_GROUP_RE = re.compile(r"\[[^\[\]]*\]")


def ast_signature(args, returns, descs):
    """(signature, s_param, return_type) from a parsed def's arguments; defaults and
    annotations stay as written (they are not evaluated)."""
    sig = "(%s)" % ast.unparse(args) + (" -> " + ast.unparse(returns) if returns is not None else "")
    pos = args.posonlyargs + args.args
    defaults = [None] * (len(pos) - len(args.defaults)) + list(args.defaults)
    named = list(zip(pos, defaults)) + list(zip(args.kwonlyargs, args.kw_defaults))
    out = []
    for a, d in named:
        if a.arg in DROP_NAMES:
            continue
        typ = ast.unparse(a.annotation) if a.annotation is not None else None
        dtyp, desc = descs.get(a.arg, (None, ""))
        if typ is None and dtyp:
            typ = clean_markup(dtyp)
        out.append({"name": a.arg, "type": typ, "default": ast.unparse(d) if d is not None else None,
                    "description": desc or "", "constraints": None})
    return sig, out, ast.unparse(returns) if returns is not None else None


def docstring_signature(doc, leaf, descs):
    """S from the call signature a compiled API's docstring opens with, the
    convention of C extensions ("matvec(x1, x2, /, out=None, *, casting='same_kind',
    ...[, signature, axes, axis])"): optional groups in brackets are left out.
    None when the first line is not a signature of leaf."""
    first = next((l.strip() for l in doc.splitlines() if l.strip()), "")
    m = SIGLINE_RE.match(first)
    if not m or m.group(1).rsplit(".", 1)[-1] != leaf:
        return None
    params = m.group(2)
    while OPTIONAL_GROUP_RE.search(params):
        params = OPTIONAL_GROUP_RE.sub("", params)
    try:
        fn = ast.parse("def _%s%s: pass" % (params, " -> " + m.group(3) if m.group(3) else "")).body[0]
    except SyntaxError:
        try:
            fn = ast.parse("def _%s: pass" % params).body[0]
        except SyntaxError:
            return None
    return ast_signature(fn.args, fn.returns, descs)


def stub_files(obj, api_name):
    """The .pyi stubs that may declare api_name: beside its parent module and its defining module."""
    mods = []
    parts = api_name.split(".")
    for i in range(len(parts) - 1, 0, -1):
        m = sys.modules.get(".".join(parts[:i]))
        if isinstance(m, types.ModuleType):
            mods.append(m)
            break
    dm = sys.modules.get(getattr(obj, "__module__", None) or "")
    if isinstance(dm, types.ModuleType):
        mods.append(dm)
    out = []
    for m in mods:
        f = getattr(m, "__file__", None)
        if not isinstance(f, str):
            continue
        stem, _ext = os.path.splitext(f)
        for cand in (stem + ".pyi", os.path.join(os.path.dirname(f), "__init__.pyi") if stem.endswith("__init__") else None):
            if cand and os.path.exists(cand) and cand not in out:
                out.append(cand)
    return out


def stub_signature(obj, api_name, kind, descs):
    """S from a .pyi stub: the def of a function, or a class's __init__ (else
    __new__). Returns (signature, s_param, return_type, stub path) or None."""
    leaf = api_name.rsplit(".", 1)[-1]
    for path in stub_files(obj, api_name):
        try:
            with open(path, "rb") as f:
                tree = ast.parse(f.read())
        except (OSError, SyntaxError, ValueError):
            continue
        for node in tree.body:
            if kind != "class" and isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == leaf:
                return ast_signature(node.args, node.returns, descs) + (path,)
            if kind == "class" and isinstance(node, ast.ClassDef) and node.name == leaf:
                defs = {n.name: n for n in node.body if isinstance(n, ast.FunctionDef)}
                init = defs.get("__init__") or defs.get("__new__")
                if init is not None:
                    return ast_signature(init.args, None, descs) + (path,)
    return None


def stub_relpath(path):
    i = path.find("-packages/")
    return path[i + len("-packages/"):] if i >= 0 else path


def class_source_by_methods(cls, cap):
    """C of a Python class that inspect cannot find because its __module__ names
    another module (numpy.errstate and numpy.vectorize say "numpy"): the file of
    its methods' code, and the class statement there. ("", why) when there is none."""
    path = None
    for v in list(vars(cls).values()):
        f = v.__func__ if isinstance(v, (staticmethod, classmethod)) else v
        f = getattr(f, "fget", f)
        code = getattr(f, "__code__", None)
        if code is not None and code.co_filename.endswith(".py") and os.path.exists(code.co_filename):
            path = code.co_filename
            break
    if path is None:
        return "", None
    try:
        with open(path, "rb") as fh:
            tree = ast.parse(fh.read())
    except (OSError, SyntaxError, ValueError):
        return "", None
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name == cls.__name__:
            text = ast.unparse(strip_docstrings(ast.Module(body=[node], type_ignores=[])))
            if len(text) > cap:
                return "", "too_long: %d chars > %d" % (len(text), cap)
            return text, "source (found through its methods' code in %s)" % stub_relpath(path)
    return "", None


def compiled_kind(obj):
    """What a compiled API is, for C's reason: 'numpy.ufunc', 'builtin_function_or_method', ..."""
    target = obj
    try:
        target = inspect.unwrap(obj)
    except Exception:  # noqa: BLE001
        pass
    if inspect.isclass(target):
        return "a class defined in compiled code"
    t = type(target)
    name = getattr(target, "__qualname__", None) or getattr(target, "__name__", None) or ""
    mod = getattr(target, "__module__", None) or ""
    what = ("%s.%s" % (mod, name)).strip(".") if name else ""
    return "compiled %s%s" % (t.__module__ + "." + t.__qualname__ if t.__module__ != "builtins" else t.__qualname__,
                              " " + what if what and target is not obj else "")


def doc_return_type(secs):
    for name in ("returns", "return", "yields"):
        lines = [l for l in secs.get(name, []) if l.strip()]
        if not lines:
            continue
        first = lines[0].strip()
        if " : " in first:
            return clean_markup(first.split(" : ", 1)[1])
        if re.match(r"^[\w.\[\], |]+$", first) and len(first) < 80:
            return clean_markup(first)
        m = re.match(r"^([\w.\[\], |]+):\s", first)
        if m:
            return m.group(1)
    return None


# ---------------------------------------------------------------- main

def one(api, cfg):
    name = api["api_name"]
    kind = api.get("kind", "function")
    rec = {"api_name": name, "ok": False, "error": None}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        obj, _mod, owner = resolve(name)
    # An object that is neither a routine nor a class: a callable instance
    # such as scipy.stats.irwinhall, listed as a function.
    is_object = not (inspect.isroutine(obj) or inspect.isclass(obj))
    doc = getattr(obj, "__doc__", None)
    if kind == "function" and is_object and not isinstance(doc, str):
        doc = type(obj).__doc__
    doc = inspect.cleandoc(doc) if isinstance(doc, str) else ""
    instances, inst = instances_of(obj, owner, name, kind)
    filled = None  # the instance's docstring, when the examples come from it
    if kind == "class" and TEMPLATE_RE.search(doc):
        # A class docstring with unfilled %(name)s templates (scipy.stats'
        # *_gen classes) is filled on its instance. The examples come from
        # there; M and S keep the class's own text without the templates,
        # which fill in boilerplate shared by every such class.
        idoc = getattr(inst, "__doc__", None)
        if isinstance(idoc, str) and not TEMPLATE_RE.search(idoc):
            filled = inspect.cleandoc(idoc)
        doc = inspect.cleandoc(TEMPLATE_RE.sub("", doc))
    style, descs, secs = parse_params(doc)
    if kind == "class" and not descs:
        init = getattr(code_target(obj), "__init__", None)
        idoc = getattr(init, "__doc__", None)
        if isinstance(idoc, str) and idoc is not object.__init__.__doc__:
            _s, descs, _x = parse_params(inspect.cleandoc(idoc))
    sig, params, ret = s_params(obj, kind, descs)
    if api.get("compiled"):
        # No Python source: S comes from the live signature (which reads
        # __text_signature__), else the docstring's signature line, else a
        # .pyi stub (docs/protocol.md §7, Stage 2 departures).
        rec["s_origin"] = "introspected"
        if sig is None or not params:  # no signature, or only (*args, **kwargs): ufuncs, C types
            got = docstring_signature(doc, name.rsplit(".", 1)[-1], descs)
            if got is not None:
                (sig, params, r2), rec["s_origin"] = got, "docstring_signature"
                ret = ret or r2
            else:
                got = stub_signature(obj, name, kind, descs)
                if got is not None:
                    sig, params, r2, path = got
                    ret = ret or r2
                    rec["s_origin"] = "stub:" + stub_relpath(path)
                elif sig is None:
                    rec["s_origin"] = "none"
    if ret is None:
        ret = doc_return_type(secs)
    if ret is None and kind == "class":
        ret = name
    rec.update({"signature": sig, "s_param": params, "return_type": ret, "docstring_style": style,
                "instances": instances})
    leaf = name.rsplit(".", 1)[-1]
    example_doc, esecs = doc, secs
    if filled is not None:
        example_doc, esecs = filled, parse_params(filled)[2]
        rec["instance_methods"] = documented_methods(esecs)
    elif is_object and callable(obj):
        # The API is itself such an instance (scipy.stats.irwinhall): its
        # signature is (*args, **kwds); its docstring lists the call forms.
        rec["instance_methods"] = documented_methods(secs)
    ctx = mine.context(name, getattr(code_target(obj), "__module__", None), cfg.get("library", ""),
                       cfg.get("aliases") or {}, cfg.get("standins") or {}, public_names(name.split(".")[0]))
    rec["examples"] = gather_examples(api, cfg, ctx, leaf, example_doc, esecs, code_target(obj), obj, owner)
    rec["mechanism"] = mechanism(doc, secs, descs, kind, name) if doc else {"text": "", "words": 0, "sections": []}
    impl, note, helpers = implementation(obj, owner, cfg.get("cap", 12000))
    if api.get("compiled") and not impl:
        found, how = class_source_by_methods(code_target(obj), cfg.get("cap", 12000)) \
            if inspect.isclass(code_target(obj)) else ("", None)
        if found:
            impl, note = found, how
        else:
            note = "unavailable: " + (how or "no Python source (%s)" % compiled_kind(obj))
    rec.update({"implementation": impl, "implementation_note": note, "helpers": helpers})
    rec["ok"] = True
    return rec


# ---------------------------------------------------------------- import aliases

IMPORT_AS_RE = re.compile(r"^\s*(?:>>>|\.\.\.)?\s*import\s+([A-Za-z_][\w.]*)\s+as\s+([A-Za-z_]\w*)\s*$", re.M)
MIN_ALIAS_COUNT = 2  # an "import M as A" seen once may be one docstring's choice


def library_docstrings(library):
    """The docstrings of the public objects of the library's public modules loaded by importing it."""
    docs, seen = [], set()
    for name in sorted(sys.modules):
        if name != library and not name.startswith(library + "."):
            continue
        if any(seg.startswith("_") for seg in name.split(".")):
            continue
        mod = sys.modules.get(name)
        try:
            items = list(vars(mod).items())
            if isinstance(getattr(mod, "__doc__", None), str):
                docs.append(mod.__doc__)
        except Exception:  # noqa: BLE001
            continue
        for k, v in items:
            if k.startswith("_") or id(v) in seen:
                continue
            seen.add(id(v))
            try:
                d = v.__doc__ if (inspect.isroutine(v) or inspect.isclass(v) or callable(v)) else None
            except Exception:  # noqa: BLE001
                continue
            if isinstance(d, str) and d:
                docs.append(d)
    return docs


MAX_ALIAS_TEST_FILES = 300


def test_import_lines(library):
    """The "import M as A" lines of the first MAX_ALIAS_TEST_FILES modules of the library's
    installed test suite, one string per module (xarray's docstrings use xr without importing
    it; its tests import it)."""
    out = []
    corpus = test_corpus(library)
    for path in corpus.files[:MAX_ALIAS_TEST_FILES]:
        text = corpus.read(path)
        if " as " in text:
            out.append("\n".join(m.group(0) for m in IMPORT_AS_RE.finditer(text)))
    return out


def learned_aliases(library):
    """The import aliases the library's own docstrings use, as {alias: "import M as A"}
    (docs/protocol.md §7, Stage 2 departures): for each module M the most common A of its
    "import M as A" lines (ties: the first in sort order), seen at least MIN_ALIAS_COUNT times,
    when M can be imported here; an alias used for several modules stands for the one it was
    seen with most. No table per library: numpy's and pandas' docstrings give np, pd and plt,
    networkx's nx. The same rule as bundles.LearnAliases."""
    import importlib.util
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            importlib.import_module(library)
    except Exception:  # noqa: BLE001
        return {}
    counts = {}
    for d in library_docstrings(library) + test_import_lines(library):
        if " as " not in d:
            continue
        for m, a in IMPORT_AS_RE.findall(d):
            counts.setdefault(m, {}).setdefault(a, 0)
            counts[m][a] += 1
    best = {}  # alias -> (count, module)
    for m, byalias in counts.items():
        a, n = min(byalias.items(), key=lambda kv: (-kv[1], kv[0]))
        if n < MIN_ALIAS_COUNT or a == m:
            continue
        try:
            if importlib.util.find_spec(m.split(".")[0]) is None:
                continue
        except (ImportError, ValueError):
            continue
        if a not in best or n > best[a][0] or (n == best[a][0] and m < best[a][1]):
            best[a] = (n, m)
    return {a: "import %s as %s" % (m, a) for a, (n, m) in best.items()}


def main(argv):
    with open(argv[1]) as f:
        cfg = json.load(f)
    out_path = argv[2] if len(argv) > 2 else "/out/results.jsonl"
    os.makedirs(os.path.dirname(out_path) or ".", exist_ok=True)
    boot_error = None
    if cfg.get("bootstrap"):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                exec(compile(cfg["bootstrap"], "<bootstrap>", "exec"), {"__name__": "__novelapi_bootstrap__"})
        except Exception as exc:  # noqa: BLE001 - each API then reports its own failure
            boot_error = "bootstrap: %s: %s" % (type(exc).__name__, str(exc)[:300])
    TEST_DIRS[:] = cfg.get("test_dirs") or []
    if cfg.get("apis"):
        cfg["aliases"] = learned_aliases(cfg["apis"][0]["api_name"].split(".")[0])
    cfg["standins"] = mine.standins(cfg.get("names") or "")
    with open(out_path, "a") as out:
        for api in cfg["apis"]:
            try:
                rec = one(api, cfg)
            except Exception as exc:  # noqa: BLE001 - one bad API must not stop the batch
                err = "%s: %s" % (type(exc).__name__, str(exc)[:300])
                if boot_error:
                    err += " (after %s)" % boot_error
                rec = {"api_name": api["api_name"], "ok": False, "error": err}
            out.write(json.dumps(rec) + "\n")
            out.flush()
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv))
    except SystemExit:
        raise
    except BaseException:  # noqa: BLE001
        traceback.print_exc()
        sys.exit(1)
