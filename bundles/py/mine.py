"""Example sources beyond doctests (docs/protocol.md §7 Stage 2, novelapi's example sources).

Shared by extract.py (copied into /job beside it). Each function returns candidate examples as
dicts {code, source, origin: {package, file, line}} that extract.py then executes one by one:

- docstring_blocks: reST code blocks (``.. code-block:: python``, ``.. sourcecode::``,
  ``.. code::``, ``::`` literal blocks) and Markdown fences inside a docstring;
- doc_blocks: code blocks of the library's documentation pages, mined by the Go side from the
  Debian -doc package and passed in the batch;
- test_examples: test functions of the library's installed test suite that call the API, cut
  down to the statements the call needs.

with_prelude adds the import lines an example needs and does not have: what its source imports,
the import aliases learned from the library's docstrings, and names of the API's own module. Python 3.11+, standard library only.
"""

import ast
import builtins
import importlib
import os
import re
import sys
import textwrap

BUILTINS = set(dir(builtins))
PY_LANGS = {"", "python", "py", "python3", "py3", "pycon", "ipython", "ipython3", "pycon3",
            "python+sql", "pycon+sql", "default"}
DIRECTIVE_RE = re.compile(r"^(\s*)\.\.\s+(code-block|sourcecode|code|doctest|testcode|ipython)::\s*(\S*)\s*$")
FENCE_RE = re.compile(r"^(\s*)(`{3,}|~{3,})\s*([\w+.-]*)(.*)$")
MARKER_RE = re.compile(r"\{(sql|execsql|stop|opensql|printsql|exec)\}")
MAX_BLOCK_LINES = 80


# ---------------------------------------------------------------- names

def bound_and_loaded(tree):
    """(names bound anywhere in tree, names loaded in order of first use)."""
    bound, loaded = set(), []
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            if isinstance(node.ctx, ast.Load):
                if node.id not in loaded:
                    loaded.append(node.id)
            else:
                bound.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound.add(node.name)
        elif isinstance(node, ast.alias):
            bound.add((node.asname or node.name).split(".")[0])
        elif isinstance(node, ast.arg):
            bound.add(node.arg)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            bound.add(node.name)
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            bound.update(node.names)
        elif isinstance(node, ast.MatchAs) and node.name:
            bound.add(node.name)
    return bound, loaded


def unbound_names(code):
    """The names code loads but neither binds nor gets from builtins, in order of first use;
    None when code does not parse."""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return None
    bound, loaded = bound_and_loaded(tree)
    return [n for n in loaded if n not in bound and n not in BUILTINS]


def import_lines(tree):
    """{name: import line} for the top-level import statements of a module tree."""
    out = {}
    for node in tree.body:
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.asname:
                    out[a.asname] = "import %s as %s" % (a.name, a.asname)
                else:
                    top = a.name.split(".")[0]
                    out.setdefault(top, "import %s" % a.name)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            for a in node.names:
                if a.name == "*":
                    continue
                name = a.asname or a.name
                out[name] = "from %s import %s" % (node.module, a.name) + (" as %s" % a.asname if a.asname else "")
    return out


def _module_has(modname, name):
    mod = sys.modules.get(modname)
    if mod is None:
        try:
            mod = importlib.import_module(modname)
        except Exception:  # noqa: BLE001
            return False
    try:
        return hasattr(mod, name)
    except Exception:  # noqa: BLE001
        return False


def with_prelude(code, ctx, source_imports=None):
    """code with the import lines it needs in front, and the lines added.

    Each name code uses without binding is looked up in turn in source_imports (what the
    example's own source imports), the aliases learned from the library's docstrings
    (ctx["aliases"]), the library's top-level name, and the public names of
    the API's module and of the library (from MOD import NAME). Names found nowhere are left: the
    example then fails with a NameError and is not served.
    """
    names = unbound_names(code)
    if not names:
        return code, []
    lines = []
    for n in names:
        line = None
        if source_imports and n in source_imports:
            line = source_imports[n]
        elif n in ctx.get("aliases", {}):
            line = ctx["aliases"][n]
        elif n == ctx["top"]:
            line = "import " + n
        elif not n.startswith("_"):
            for modname in ctx["modules"]:
                if _module_has(modname, n):
                    line = "from %s import %s" % (modname, n)
                    break
        if line and line not in lines:
            lines.append(line)
    if not lines:
        return code, []
    return "\n".join(lines) + "\n" + code, lines


def context(api_name, obj_module, library, aliases=None):
    """What with_prelude needs of one API: its library's top-level name and the modules whose
    public names an example may use unimported (the object's module, the API's path, the library)."""
    top = api_name.split(".")[0]
    mods = []
    for m in (obj_module, api_name.rsplit(".", 1)[0], top):
        if m and m not in mods and m in sys.modules:
            mods.append(m)
    return {"top": top, "modules": mods, "library": library, "aliases": aliases or {}}


def with_setup(code, setup, ctx, imports, convert):
    """code preceded by the earlier blocks of its page that bind names it uses and that
    with_prelude cannot import (a tutorial page defines User, then queries it), nearest first,
    closed over what those blocks use in turn, at most MAX_SETUP_LINES lines. convert turns a
    block into runnable code or None. Returns code unchanged when it needs nothing."""
    need = set(unresolved(code, ctx, imports))
    if not need or not setup:
        return code
    blocks = []
    for raw in setup:
        c = convert(raw)
        if not c:
            continue
        try:
            tree = ast.parse(c)
        except SyntaxError:
            continue
        b, _ = bound_and_loaded(tree)
        blocks.append((c, b))
    chosen = set()
    lines = 0
    for i in range(len(blocks) - 1, -1, -1):
        c, b = blocks[i]
        if not (b & need):
            continue
        n = len(c.splitlines())
        if lines + n > MAX_SETUP_LINES:
            break
        chosen.add(i)
        lines += n
        need = (need - b) | set(unresolved(c, ctx, imports))
    if not chosen:
        return code
    return "\n".join(blocks[i][0].rstrip("\n") for i in sorted(chosen)) + "\n" + code


MAX_SETUP_LINES = 150


def unresolved(code, ctx, imports):
    """The names code uses unbound that neither its source's imports nor the usual aliases
    give (a page's setup binds them before the names of the API's module are tried)."""
    names = unbound_names(code) or []
    return [n for n in names if not ((imports and n in imports) or n in ctx.get("aliases", {}) or n == ctx["top"])]


def _resolve_chain(node, env):
    """The object a dotted Name/Attribute chain names, with env resolving the root name; raises
    LookupError when it cannot."""
    if isinstance(node, ast.Name):
        if node.id not in env:
            raise LookupError(node.id)
        return env[node.id]
    if isinstance(node, ast.Attribute):
        base = _resolve_chain(node.value, env)
        try:
            return getattr(base, node.attr)
        except Exception as exc:  # noqa: BLE001
            raise LookupError(node.attr) from exc
    raise LookupError(type(node).__name__)


def _same(a, b):
    try:
        import pyobj
        return a is b or pyobj.code_target(a) is pyobj.code_target(b)
    except Exception:  # noqa: BLE001
        return False


def calls_api(code, obj, leaf, kind):
    """Whether code reaches the API object obj by its leaf name: a name or dotted path that an
    import of code resolves to obj, or, for a method, an attribute of a value code makes
    itself. False when every use of leaf resolves to another object (networkx's
    approximation.average_clustering is not networkx.average_clustering)."""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return False
    env = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                try:
                    mod = importlib.import_module(a.name)
                except Exception:  # noqa: BLE001
                    continue
                if a.asname:
                    env[a.asname] = mod
                else:
                    env[a.name.split(".")[0]] = sys.modules.get(a.name.split(".")[0], mod)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            try:
                mod = importlib.import_module(node.module)
            except Exception:  # noqa: BLE001
                continue
            for a in node.names:
                if a.name != "*" and hasattr(mod, a.name):
                    env[a.asname or a.name] = getattr(mod, a.name)
    unknown = False
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id == leaf and isinstance(node.ctx, ast.Load):
            if node.id in env:
                if _same(env[node.id], obj):
                    return True
            else:
                unknown = True
        elif isinstance(node, ast.Attribute) and node.attr == leaf:
            try:
                base = _resolve_chain(node.value, env)
            except LookupError:
                if kind == "method":
                    unknown = True
                continue
            try:
                if _same(getattr(base, leaf), obj):
                    return True
            except Exception:  # noqa: BLE001
                continue
    return unknown and kind == "method"


# ---------------------------------------------------------------- blocks

def mentions(code, leaf):
    return re.search(r"(?<![\w])%s(?![\w])" % re.escape(leaf), code) is not None


def python_lang(lang):
    """Whether a code block's language (reST directive argument, Markdown info string, Sphinx
    highlight class) is Python or unstated."""
    return (lang or "").split("{")[0].strip().lower() in PY_LANGS


def is_doctest(text):
    return any(l.lstrip().startswith(">>>") for l in text.splitlines()[:3])


def _indented_block(lines, i, base):
    """The lines after lines[i] indented deeper than base (blank lines inside kept), dedented,
    and the index after them."""
    j = i + 1
    body = []
    while j < len(lines):
        l = lines[j]
        if l.strip() and (len(l) - len(l.lstrip())) <= base:
            break
        body.append(l)
        j += 1
    while body and not body[-1].strip():
        body.pop()
    return textwrap.dedent("\n".join(body)), j


def rst_blocks(text, first_line=1):
    """(language, code, line) of each reST code block and literal block in text: directives
    code-block, sourcecode, code, doctest, testcode and ipython, their options dropped, and
    paragraphs ending in '::'. line is 1-based, counted from first_line."""
    lines = text.splitlines()
    out = []
    i = 0
    while i < len(lines):
        line = lines[i]
        m = DIRECTIVE_RE.match(line)
        if m:
            base = len(m.group(1))
            lang = m.group(3).lower() or ("pycon" if m.group(2) == "doctest" else "")
            body, j = _indented_block(lines, i, base)
            blines = body.splitlines()
            while blines and re.match(r"^:[\w-]+:", blines[0].strip()):
                blines.pop(0)
            code = "\n".join(blines).strip("\n")
            if code:
                out.append((lang, code, first_line + i + 1))
            i = j
            continue
        s = line.rstrip()
        if s.endswith("::") and not s.lstrip().startswith(".. ") and i + 1 < len(lines):
            base = len(line) - len(line.lstrip())
            body, j = _indented_block(lines, i, base)
            code = body.strip("\n")
            if code and (len(lines[i + 1].strip()) == 0 or lines[i + 1].startswith(" " * (base + 1))):
                out.append(("", code, first_line + i + 1))
                i = j
                continue
        i += 1
    return out


def markdown_blocks(text, first_line=1):
    """(language, code, line) of each fenced code block (CommonMark §4.5) in text."""
    lines = text.splitlines()
    out = []
    i = 0
    while i < len(lines):
        m = FENCE_RE.match(lines[i])
        if not m:
            i += 1
            continue
        fence, lang = m.group(2), m.group(3).lower()
        j = i + 1
        body = []
        while j < len(lines) and not lines[j].strip().startswith(fence[0] * len(fence)):
            body.append(lines[j])
            j += 1
        code = textwrap.dedent("\n".join(body)).strip("\n")
        if code:
            out.append((lang, code, first_line + i + 1))
        i = j + 1
    return out


def block_code(lang, code):
    """The runnable Python of a code block: doctest blocks become their statements with the
    expected output as comments (to_statements), other Python blocks stay as they are; None for
    a block that is not Python or does not parse."""
    lang = lang.split("{")[0].strip().lower()
    if lang not in PY_LANGS:
        return None
    code = "\n".join(MARKER_RE.sub("", l) for l in code.splitlines())
    if len(code.splitlines()) > MAX_BLOCK_LINES:
        return None
    if is_doctest(code) or lang.startswith("pycon"):
        return None if not is_doctest(code) else "doctest"
    try:
        ast.parse(code)
    except SyntaxError:
        return None
    return code


def docstring_blocks(doc, leaf, skip_doctest):
    """Candidate examples from the code blocks of a docstring that name leaf, in order. Doctest
    blocks are returned with code None and their text in "doctest", for extract.py to turn into
    statements; skip_doctest leaves them out (the doctest source already has them)."""
    out = []
    seen = set()
    for lang, code, line in rst_blocks(doc) + markdown_blocks(doc):
        if not mentions(code, leaf) or code in seen:
            continue
        seen.add(code)
        kind = block_code(lang, code)
        if kind is None:
            continue
        if kind == "doctest":
            if skip_doctest:
                continue
            out.append({"doctest": code, "source": "docstring-block", "origin": {"line": line}})
        else:
            out.append({"code": kind, "source": "docstring-block", "origin": {"line": line}})
    return out


# ---------------------------------------------------------------- tests

TEST_FILE_RE = re.compile(r"(^test_.*|.*_test)\.py$")
MAX_TEST_FILES = 4000
MAX_TEST_BYTES = 400_000
MAX_TEST_LINES = 40
DROP_MODULES = {"pytest", "unittest", "hypothesis", "mock"}


def test_files(top):
    """The installed test modules of the package top (files test_*.py or *_test.py under a
    directory named tests or test), sorted; [] when the package has none."""
    try:
        mod = importlib.import_module(top)
    except Exception:  # noqa: BLE001
        return []
    roots = list(getattr(mod, "__path__", []) or [])
    out = []
    for root in roots:
        for d, dirs, files in os.walk(root):
            dirs.sort()
            parts = set(os.path.relpath(d, root).split(os.sep))
            if not parts & {"tests", "test", "testing"}:
                continue
            for f in sorted(files):
                if TEST_FILE_RE.match(f):
                    out.append(os.path.join(d, f))
                    if len(out) >= MAX_TEST_FILES:
                        return out
    return out


class TestCorpus:
    """The test modules of one library, read once per batch and parsed on demand."""

    def __init__(self, top):
        self.files = test_files(top)
        self.text = {}
        self.trees = {}

    def read(self, path):
        if path not in self.text:
            try:
                with open(path, encoding="utf-8", errors="replace") as f:
                    data = f.read(MAX_TEST_BYTES + 1)
            except OSError:
                data = ""
            self.text[path] = data if len(data) <= MAX_TEST_BYTES else ""
        return self.text[path]

    def tree(self, path):
        if path not in self.trees:
            try:
                self.trees[path] = ast.parse(self.read(path))
            except (SyntaxError, ValueError):
                self.trees[path] = None
        return self.trees[path]


def _refers(node, leaf):
    for n in ast.walk(node):
        if isinstance(n, ast.Name) and n.id == leaf:
            return True
        if isinstance(n, ast.Attribute) and n.attr == leaf:
            return True
    return False


def _binds(stmt):
    b, _ = bound_and_loaded(stmt)
    return b


def _loads(stmt):
    _, l = bound_and_loaded(stmt)
    return set(l)


def _uses_dropped(stmt, dropped):
    return bool(_loads(stmt) & dropped)


def cut_test(fn, leaf, dropped):
    """The statements of test function fn that its calls of leaf need: each statement that
    refers to leaf, the assert statements on names those bind, and the earlier statements that
    bind the names they use. Statements that use a dropped name (pytest) go, and so does all
    that needs them. Returns the kept statements in order, or [] when none refers to leaf."""
    body = [s for s in fn.body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
    usable = []
    gone = set(dropped)
    for s in body:
        if _uses_dropped(s, gone):
            gone |= _binds(s)
            usable.append(None)
        else:
            usable.append(s)
    keep = set()
    for i, s in enumerate(usable):
        if s is not None and _refers(s, leaf):
            keep.add(i)
    if not keep:
        return []
    made = set()
    for i in keep:
        made |= _binds(usable[i])
    for i, s in enumerate(usable):
        if s is not None and isinstance(s, ast.Assert) and i > min(keep) and _loads(s) & (made | {leaf}):
            keep.add(i)
    changed = True
    while changed:
        changed = False
        need = set()
        for i in keep:
            need |= _loads(usable[i])
        for i, s in enumerate(usable):
            if i in keep or s is None or i > max(keep):
                continue
            # A statement that binds a name the kept ones use, or that
            # changes an object they use (G.add_edge(0, 4)).
            if _binds(s) & need or (_mutates(s) and _loads(s) & need):
                keep.add(i)
                changed = True
    return [usable[i] for i in sorted(keep)]


def _mutates(stmt):
    """Whether stmt changes an object without binding a name: a call statement, an augmented
    assignment, or an assignment to an attribute or item."""
    if isinstance(stmt, ast.Expr):
        return isinstance(stmt.value, ast.Call)
    if isinstance(stmt, ast.AugAssign):
        return True
    if isinstance(stmt, ast.Assign):
        return any(isinstance(t, (ast.Attribute, ast.Subscript)) for t in stmt.targets)
    return False


def _module_constants(tree):
    """{name: statement} of the module-level assignments of a test module (data the tests use)."""
    out = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and all(isinstance(t, ast.Name) for t in node.targets):
            for t in node.targets:
                out[t.id] = node
    return out


def test_functions(tree):
    """(function, class name or None) for each test function of a module that takes no
    arguments (or only self of a class without setup), in file order."""
    out = []
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef,)) and node.name.startswith("test") and not node.args.args \
                and not node.decorator_list:
            out.append((node, None))
        elif isinstance(node, ast.ClassDef) and node.name.startswith("Test"):
            names = {n.name for n in node.body if isinstance(n, ast.FunctionDef)}
            if names & {"setup_method", "setUp", "setup_class", "setUpClass", "setup", "__init__"}:
                continue
            for fn in node.body:
                if isinstance(fn, ast.FunctionDef) and fn.name.startswith("test") and not fn.decorator_list \
                        and [a.arg for a in fn.args.args] == ["self"]:
                    out.append((fn, node.name))
    return out


def test_examples(corpus, leaf, api_name, limit):
    """Up to limit candidate examples from the test functions that call leaf, shortest first
    among the first 4*limit found: the test's statements the call needs (cut_test), preceded by
    the module constants they use, with the module's imports as the source imports."""
    if corpus is None or not corpus.files:
        return []
    pat = re.compile(r"(?<![\w])%s\s*\(" % re.escape(leaf))
    parent = api_name.rsplit(".", 1)[0]
    found = []
    for path in corpus.files:
        text = corpus.read(path)
        if not text or not pat.search(text):
            continue
        tree = corpus.tree(path)
        if tree is None:
            continue
        imports = import_lines(tree)
        dropped = {n for n, l in imports.items() if l.split()[1].split(".")[0] in DROP_MODULES}
        consts = _module_constants(tree)
        for fn, cls in test_functions(tree):
            if not _refers(fn, leaf):
                continue
            if cls is not None and any(isinstance(n, ast.Name) and n.id == "self" for s in fn.body for n in ast.walk(s)):
                continue
            stmts = cut_test(fn, leaf, dropped)
            if not stmts or not any(_refers(s, leaf) for s in stmts):
                continue
            code = "\n".join(ast.unparse(s) for s in stmts)
            if len(code.splitlines()) > MAX_TEST_LINES:
                continue
            names = unbound_names(code) or []
            pre = []
            for n in names:
                if n in consts and n not in imports:
                    pre.append(ast.unparse(consts[n]))
            if pre:
                code = "\n".join(pre) + "\n" + code
            # A test that reaches the API through its own module's name
            # scores ahead of one that only shares the leaf name.
            score = (0 if (parent.split(".")[-1] in code or leaf in imports) else 1, len(code))
            found.append((score, {"code": code, "source": "tests", "imports": imports,
                                  "origin": {"file": path, "line": fn.lineno, "test": (cls + "." if cls else "") + fn.name}}))
            if len(found) >= 4 * limit:
                break
        if len(found) >= 4 * limit:
            break
    found.sort(key=lambda x: x[0])
    return [f for _, f in found[:limit]]
