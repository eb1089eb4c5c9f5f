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
import copy
import functools
import importlib
import importlib.util
import inspect
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


def unbound_names(code, shadowed=()):
    """The names code loads but neither binds nor gets from builtins, in order of first use;
    None when code does not parse. A function's parameters and locals bind only inside it (a
    page's "def my_view(request)" does not give the "request" its next block uses). Builtin
    names in shadowed count as unbound (a test module that imports numpy.ma's sum calls that
    sum, not the builtin)."""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return None
    _, free = scoped_names(tree)
    return [n for n in free if n not in BUILTINS or n in shadowed]


def scoped_names(tree):
    """(names tree binds at module level, names it loads that no enclosing scope binds, in order
    of first use). A class body counts as its enclosing scope, comprehensions too."""
    def visit(node, bound, loads, funcs):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            if not isinstance(node, ast.Lambda):
                bound.add(node.name)
                for d in node.decorator_list:
                    visit(d, bound, loads, funcs)
            for d in node.args.defaults + [d for d in node.args.kw_defaults if d is not None]:
                visit(d, bound, loads, funcs)
            # Annotations are read in the enclosing scope ("def f(x: torch.Tensor)" needs torch).
            a = node.args
            for x in a.posonlyargs + a.args + a.kwonlyargs + [v for v in (a.vararg, a.kwarg) if v is not None]:
                if x.annotation is not None:
                    visit(x.annotation, bound, loads, funcs)
            if getattr(node, "returns", None) is not None:
                visit(node.returns, bound, loads, funcs)
            funcs.append(node)
            return
        if isinstance(node, ast.Name):
            if isinstance(node.ctx, ast.Load):
                loads.append(node.id)
            else:
                bound.add(node.id)
        elif isinstance(node, ast.ClassDef):
            bound.add(node.name)
        elif isinstance(node, ast.alias):
            bound.add((node.asname or node.name).split(".")[0])
        elif isinstance(node, ast.ExceptHandler) and node.name:
            bound.add(node.name)
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            bound.update(node.names)
            declared.update(node.names)
        elif isinstance(node, (ast.MatchAs, ast.MatchStar)) and node.name:
            bound.add(node.name)
        for child in ast.iter_child_nodes(node):
            visit(child, bound, loads, funcs)

    free, declared = [], set()  # declared: global and nonlocal names, bound where declared

    def scope(nodes, outer, params=()):
        bound, loads, funcs = set(params), [], []
        for n in nodes:
            visit(n, bound, loads, funcs)
        seen = outer | bound
        for n in loads:
            if n not in seen and n not in free:
                free.append(n)
        for f in funcs:
            a = f.args
            names = [x.arg for x in a.posonlyargs + a.args + a.kwonlyargs] + \
                [x.arg for x in (a.vararg, a.kwarg) if x is not None]
            scope(f.body if isinstance(f.body, list) else [f.body], seen, names)
        return bound

    module = scope(tree.body, set())
    return module | declared, [n for n in free if n not in declared]


def import_lines(tree, package=None):
    """{name: import line} for the top-level import statements of a module tree; its relative
    imports are read from package, the name of the package the module is in (astropy's
    "from .helper import is_positional_only" in astropy.cosmology._src.tests.traits), and
    left out without one."""
    out = {}
    for node in tree.body:
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.asname:
                    out[a.asname] = "import %s as %s" % (a.name, a.asname)
                else:
                    top = a.name.split(".")[0]
                    out.setdefault(top, "import %s" % a.name)
        elif isinstance(node, ast.ImportFrom) and (node.module or node.level):
            module = node.module
            if node.level:
                parts = (package or "").split(".")
                if not package or node.level > len(parts):
                    continue
                module = ".".join(parts[:len(parts) - node.level + 1] + ([node.module] if node.module else []))
            for a in node.names:
                if a.name == "*":
                    continue
                name = a.asname or a.name
                out[name] = "from %s import %s" % (module, a.name) + (" as %s" % a.asname if a.asname else "")
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
    (ctx["aliases"]), the library's top-level name, the public names of
    the API's module and of the library (from MOD import NAME), the classes and functions of
    the library's public modules (ctx["public"], PublicNames: sqlalchemy.orm's mapped_column
    for an example of sqlalchemy.dialects.oracle), and last in the names the
    library's documentation uses unbound (ctx["standins"], whose statements follow the import
    lines). Names found nowhere are left: the example then fails with a NameError and is not
    served.
    """
    names = unbound_names(code, source_imports or ())
    if not names:
        return code, []
    lines, after = [], []
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
                    line = _import_of(modname, n)
                    break
        if line is None and n in ctx.get("public", {}):
            line = ctx["public"][n]
        if line is None and n in ctx.get("standins", {}):
            after.append(ctx["standins"][n])
        if line and line not in lines:
            lines.append(line)
    lines += after
    if not lines:
        return code, []
    return "\n".join(lines) + "\n" + code, lines


def _import_of(modname, name):
    """The import line that binds name as module modname has it: "from M import N", or for a
    module that M imported ("array" in sqlalchemy.dialects.oracle.vector) its own import."""
    try:
        v = getattr(sys.modules[modname], name)
    except Exception:  # noqa: BLE001
        v = None
    if isinstance(v, type(sys)):
        return "import %s" % v.__name__ if v.__name__ == name else "import %s as %s" % (v.__name__, name)
    return "from %s import %s" % (modname, name)


class PublicNames:
    """The classes, functions and objects (_library_object) that the library top's public modules
    loaded here (and its public first-level modules, imported for it) bind or list in __all__,
    as {name: "from MOD import NAME"} (names()), each from the shortest module path that has it
    (ties: the first in sort order); a name bound to different objects in different modules is
    left out. update() reads the modules loaded since the last call. Nothing when top does not
    import. Private modules (a segment starting with "_") and test modules are passed over."""

    def __init__(self, top):
        self.top = top
        self.seen = set()
        self.best = {}  # name -> (sort key, import line, object; None when two objects have the name)
        try:
            pkg = importlib.import_module(top)
        except BaseException:  # noqa: BLE001
            self.ok = False
            return
        self.ok = True
        import pkgutil
        for info in pkgutil.iter_modules(getattr(pkg, "__path__", []) or []):
            if not info.name.startswith("_") and info.name not in ("tests", "test", "testing", "conftest"):
                try:
                    importlib.import_module(top + "." + info.name)
                except BaseException:  # noqa: BLE001 - a module that needs what is not installed
                    pass
        self.update()

    def update(self):
        if not self.ok:
            return
        top = self.top
        for m in [m for m in list(sys.modules) if m not in self.seen and (m == top or m.startswith(top + "."))]:
            self.seen.add(m)
            if any(seg.startswith("_") or seg in ("tests", "test", "testing") for seg in m.split(".")):
                continue
            mod = sys.modules.get(m)
            try:
                items = list(vars(mod).items())
                exported = [k for k in getattr(mod, "__all__", None) or () if isinstance(k, str) and k not in vars(mod)]
            except Exception:  # noqa: BLE001
                continue
            for k in exported:  # names a module's __getattr__ makes on demand (pydantic's Field)
                try:
                    items.append((k, getattr(mod, k)))
                except Exception:  # noqa: BLE001
                    continue
            key = (m.count("."), len(m), m)
            for k, v in items:
                if not k[:1].isalpha():
                    continue
                try:
                    if not _library_object(v, top):
                        continue
                except Exception:  # noqa: BLE001
                    continue
                old = self.best.get(k)
                if old is None:
                    self.best[k] = (key, "from %s import %s" % (m, k), v)
                elif old[2] is not None and old[2] is not v:
                    self.best[k] = (old[0], old[1], None)  # pydantic's Field and pydantic.v1's: no guess
                elif old[2] is v and key < old[0]:
                    self.best[k] = (key, "from %s import %s" % (m, k), v)

    def names(self):
        return {k: line for k, (_, line, v) in self.best.items() if v is not None}


def public_names(top):
    """PublicNames(top).names()."""
    return PublicNames(top).names()


def _library_object(v, top):
    """Whether v is a class or function of the library top, an instance of one of its classes
    (django's post_save signal, its settings), or a functools.partial of one of its functions
    (django.urls.path)."""
    def of(o):
        return (getattr(o, "__module__", None) or "").split(".")[0] == top
    if inspect.isclass(v) or inspect.isfunction(v):
        return of(v)
    if isinstance(v, type(sys)) or inspect.isroutine(v):
        return False
    if isinstance(v, functools.partial):
        return of(v.func)
    return of(type(v))


def context(api_name, obj_module, library, aliases=None, standins=None, public=None):
    """What with_prelude needs of one API: its library's top-level name, the modules whose
    public names an example may use unimported (the object's module, the API's path, the
    library), the learned aliases, the library's public classes and functions (PublicNames)
    and its stand-ins (standins)."""
    top = api_name.split(".")[0]
    mods = []
    for m in (obj_module, api_name.rsplit(".", 1)[0], top):
        if m and m not in mods and m in sys.modules:
            mods.append(m)
    return {"top": top, "modules": mods, "library": library, "aliases": aliases or {}, "standins": standins or {},
            "public": public or {}}


def standins(text):
    """{name: statements} of the names a library's documentation uses unbound
    (bundles.ExampleNames): each top-level assignment to one name, after the import lines of
    text that bind the names it uses. {} for text that does not parse."""
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return {}
    imports = import_lines(tree)
    out = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            need = [imports[n] for n in (unbound_names(ast.unparse(node)) or []) if n in imports]
            out[node.targets[0].id] = "\n".join(need + [ast.unparse(node)])
    return out


def with_setup(code, setup, ctx, imports, convert):
    """code preceded by the earlier blocks of its page that bind names it uses and that
    with_prelude cannot import (a tutorial page defines User, then queries it), nearest first,
    closed over what those blocks use in turn, at most MAX_SETUP_LINES lines. convert turns a
    block into runnable code or None. Returns code unchanged when it needs nothing, or when the
    setup would leave a name unbound that code with its prelude alone does not."""
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
        blocks.append((c, scoped_names(tree)[0]))
    def defined(c):
        try:
            return {n.name for n in ast.walk(ast.parse(c)) if isinstance(n, (ast.ClassDef, ast.FunctionDef))}
        except SyntaxError:
            return set()

    own = defined(code)
    chosen = set()
    lines = 0
    for i in range(len(blocks) - 1, -1, -1):
        c, b = blocks[i]
        # A block that defines a class or function that the code or a nearer
        # chosen block defines (SQLAlchemy's pages redefine a mapped class)
        # would define it twice.
        if not (b & need):
            continue
        if defined(c) & own:
            c = _without_definitions(c, own)
            if not c:
                continue
            b = scoped_names(ast.parse(c))[0]
            if not (b & need):
                continue
            blocks[i] = (c, b)
        own |= defined(c)
        n = len(c.splitlines())
        if lines + n > MAX_SETUP_LINES:
            break
        chosen.add(i)
        lines += n
        need = (need - b) | set(unresolved(c, ctx, imports))
    if not chosen:
        return code
    out = "\n".join(blocks[i][0].rstrip("\n") for i in sorted(chosen)) + "\n" + code
    # Setup that leaves a name unbound that the code alone, with its prelude, does not need
    # (a dialect docstring's earlier block uses a metadata no block makes) would only fail.
    if missing(out, ctx, imports) and not missing(code, ctx, imports):
        return code
    return out


def missing(code, ctx, imports=None):
    """The names code still uses unbound once with_prelude has added what it finds."""
    return unbound_names(with_prelude(code, ctx, imports)[0]) or []


MAX_SETUP_LINES = 150


def _without_definitions(code, names):
    """code without its top-level classes and functions named in names, and without the
    statements after them that use what those bound; "" when nothing is left."""
    gone = set()
    keep = []
    for st in ast.parse(code).body:
        if isinstance(st, (ast.ClassDef, ast.FunctionDef)) and st.name in names:
            gone.add(st.name)
            continue
        b, l = bound_and_loaded(st)
        if set(l) & gone:
            gone |= b
            continue
        keep.append(st)
    return "\n".join(ast.unparse(st) for st in keep)


def unresolved(code, ctx, imports):
    """The names code uses unbound that neither its source's imports nor the usual aliases
    give (a page's setup binds them before the names of the API's module are tried)."""
    names = unbound_names(code) or []
    return [n for n in names if not ((imports and n in imports) or n in ctx.get("aliases", {}) or n == ctx["top"])]


_IMPORTABLE = {}


def imports_ok(code):
    """Whether every module code imports at its top level imports here: a test helper module
    that needs pytest (xarray.tests) does not, and its example would fail."""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return False
    for node in tree.body:
        names = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module]
        for n in names:
            if not importable(n):
                return False
    return True


def importable(modname):
    """Whether module modname imports here (once per process)."""
    if modname not in _IMPORTABLE:
        try:
            importlib.import_module(modname)
            _IMPORTABLE[modname] = True
        except BaseException:  # noqa: BLE001 - SystemExit, ImportError, a broken module
            _IMPORTABLE[modname] = False
    return _IMPORTABLE[modname]


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
            # A bare name is never a method, and one no import gives is the code's own.
            if node.id in env and _same(env[node.id], obj):
                return True
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


def runs_leaf(code, leaf):
    """Whether code uses leaf (a name or an attribute) where it runs: outside function bodies, or
    inside functions each of which code uses outside its own body (by its name, or for a method
    by its class's). An example that only defines a function calling the API (a worker for
    mp.spawn, a forward method of no module), or that names it only in imports and annotations
    (a planner subclass whose method takes "metadata: Metadata"), never runs it. True when code
    does not parse or never names leaf: the run decides."""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return True
    loads, hits, owner = [], [], {}
    # Imports and annotations name leaf without running it.
    named = any(isinstance(n, ast.alias) and (n.asname or n.name).split(".")[-1] == leaf for n in ast.walk(tree))

    def visit(node, defs, cls):
        nonlocal named
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            a = node.args
            for d in node.decorator_list + a.defaults + [d for d in a.kw_defaults if d is not None]:
                visit(d, defs, None)
            for x in a.posonlyargs + a.args + a.kwonlyargs + [v for v in (a.vararg, a.kwarg) if v is not None] + [node]:
                ann = x.returns if x is node else x.annotation
                if ann is not None and mentions(ast.unparse(ann), leaf):
                    named = True
            if cls is not None:
                owner[node] = cls
            for c in node.body:
                visit(c, defs + (node,), None)
            return
        if isinstance(node, ast.ClassDef):
            for c in node.bases + node.keywords + node.decorator_list:
                visit(c, defs, None)
            for c in node.body:
                visit(c, defs, node)
            return
        ident = node.id if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) else \
            node.attr if isinstance(node, ast.Attribute) else None
        if ident is not None:
            loads.append((ident, defs))
            if ident == leaf:
                hits.append(defs)
        for c in ast.iter_child_nodes(node):
            visit(c, defs, None)

    for n in tree.body:
        visit(n, (), None)

    def used(d):
        names = {d.name} | ({owner[d].name} if d in owner else set())
        return any(i in names and d not in ds for i, ds in loads)

    if not hits:
        return not named
    return any(all(used(d) for d in ds) for ds in hits)


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
    a block that is not Python, does not parse or does nothing (inert)."""
    lang = lang.split("{")[0].strip().lower()
    if lang not in PY_LANGS:
        return None
    code = "\n".join(MARKER_RE.sub("", l) for l in code.splitlines())
    if len(code.splitlines()) > MAX_BLOCK_LINES:
        return None
    if is_doctest(code) or lang.startswith("pycon"):
        return None if not is_doctest(code) else "doctest"
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return None
    return None if inert(tree) else code


def inert(tree):
    """Whether a parsed block does nothing: each of its statements is a bare name or constant
    (a literal block of data that parses as Python: an ECSV file's "# %ECSV 1.0" header lines
    are comments, its column name a name, its rows constants)."""
    return all(isinstance(st, ast.Expr) and isinstance(st.value, (ast.Name, ast.Constant, ast.UnaryOp))
               for st in tree.body)


def docstring_blocks(doc, leaf, skip_doctest, named=True):
    """Candidate examples from the code blocks of a docstring that name leaf (with named false,
    those that do not), in order. Doctest blocks are returned with code None and their text in
    "doctest", for extract.py to turn into statements; skip_doctest leaves them out (the doctest
    source already has them). Each has the docstring's earlier Python blocks as "setup", as a
    page's blocks have theirs (a dialect's docstring makes metadata and t1, then indexes t1)."""
    out = []
    seen = set()
    earlier = []
    for lang, code, line in sorted(rst_blocks(doc) + markdown_blocks(doc), key=lambda b: b[2]):
        kind = block_code(lang, code)
        setup = list(earlier)
        if kind is not None:
            earlier.append(code)
        if kind is None or mentions(code, leaf) != named or code in seen:
            continue
        seen.add(code)
        if kind == "doctest":
            if skip_doctest:
                continue
            out.append({"doctest": code, "source": "docstring-block", "origin": {"line": line}, "setup": setup})
        else:
            out.append({"code": kind, "source": "docstring-block", "origin": {"line": line}, "setup": setup})
    return out


# ---------------------------------------------------------------- tests

TEST_FILE_RE = re.compile(r"(^test_.*|.*_test)\.py$")
MAX_TEST_FILES = 4000
MAX_TEST_BYTES = 400_000
MAX_TEST_LINES = 40
DROP_MODULES = {"pytest", "unittest", "hypothesis", "mock"}


def test_files(top, extra=()):
    """The test modules of the package top: those of the folders extra (a private library's
    own tests/, not installed with it: every test_*.py or *_test.py under them), then the
    installed ones (such files under a directory named tests or test below the package),
    sorted; [] when there are none."""
    out = []
    for root in extra:
        for d, dirs, files in os.walk(root):
            dirs.sort()
            for f in sorted(files):
                if TEST_FILE_RE.match(f):
                    out.append(os.path.join(d, f))
                    if len(out) >= MAX_TEST_FILES:
                        return out
    try:
        mod = importlib.import_module(top)
    except Exception:  # noqa: BLE001
        return out
    roots = list(getattr(mod, "__path__", []) or [])
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
    """The test modules of one library (its own test folders extra first, then its installed
    suite), read once per batch and parsed on demand."""

    def __init__(self, top, extra=()):
        self.top = top
        self.files = test_files(top, extra)
        try:
            self.roots = {os.path.normpath(r) for r in getattr(importlib.import_module(top), "__path__", []) or []}
        except Exception:  # noqa: BLE001
            self.roots = set()
        self.package_roots = set(self.roots)
        self.roots |= {os.path.normpath(r) for r in extra}
        self.text = {}
        self.trees = {}
        self._fixtures = {}
        self._cases = {}

    def read(self, path):
        if path not in self.text:
            try:
                with open(path, encoding="utf-8", errors="replace") as f:
                    data = f.read(MAX_TEST_BYTES + 1)
            except OSError:
                data = ""
            self.text[path] = data if len(data) <= MAX_TEST_BYTES else ""
        return self.text[path]

    def fixtures(self, path):
        """{name: function} of the pytest fixtures a test in path may take: those of the
        conftest.py files from the package's root down to path's directory, nearer ones first,
        then path's own."""
        if path in self._fixtures:
            return self._fixtures[path]
        out = {}
        d = os.path.dirname(path)
        chain = []
        while True:
            chain.append(os.path.join(d, "conftest.py"))
            if os.path.normpath(d) in self.roots or os.path.dirname(d) == d:
                break
            d = os.path.dirname(d)
        for c in reversed(chain):
            if os.path.exists(c):
                t = self.tree(c)
                if t is not None:
                    out.update(fixtures_of(t))
        t = self.tree(path)
        if t is not None:
            out.update(fixtures_of(t))
        self._fixtures[path] = out
        return out

    def cases(self, path, leaf=None, variants=1):
        """test_cases of the module at path for leaf, made once; [] when it does not parse."""
        key = (path, leaf, variants)
        if key not in self._cases:
            t = self.tree(path)
            self._cases[key] = [] if t is None else test_cases(t, self.fixtures(path), _module_constants(t), leaf,
                                                               variants, self.package(path))
        return self._cases[key]

    def package(self, path):
        """The name of the package of the library the module at path is in
        ("astropy.cosmology._src.tests.traits"), or None for a module outside it (a private
        library's own tests/)."""
        d = os.path.normpath(os.path.dirname(path))
        for root in self.package_roots:
            if d == root or d.startswith(root + os.sep):
                rel = os.path.relpath(d, root)
                return self.top if rel == "." else self.top + "." + rel.replace(os.sep, ".")
        return None

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


# The fields of compound statements that hold statements.
_BLOCKS = ("body", "orelse", "finalbody")
# The context managers of pytest that only check the warnings their block emits: the block
# runs as it is without them.
WARNING_CHECKS = {"warns", "deprecated_call"}


def _pruned(stmt, gone):
    """The statements stmt stands for once the statements inside it that use a name of gone
    (a with-block's call of an assertion helper that needs pytest) are left out: [stmt]
    itself when it uses none; [] when it goes whole: its own head (a with's items, a for's
    iterable, an if's test) uses one, or pruning leaves one of its blocks empty, but for a
    with's, which becomes pass (the context manager is the use: "with open_dataarray(tmp) as
    da: pass"). A with-block whose context managers are all pytest's warning checks
    (pytest.warns(...), WARNING_CHECKS) stands for its block. Adds what a statement that goes
    binds to gone."""
    if not _uses_dropped(stmt, gone):
        return [stmt]
    if isinstance(stmt, (ast.With, ast.AsyncWith)) and all(_warning_check(i, gone) for i in stmt.items):
        return [k for st in stmt.body for k in _pruned(st, gone)]
    if not isinstance(stmt, (ast.With, ast.AsyncWith, ast.For, ast.AsyncFor, ast.While, ast.If, ast.Try)):
        gone |= _binds(stmt)
        return []
    head = copy.copy(stmt)
    for f in _BLOCKS + ("handlers",):
        if hasattr(head, f):
            setattr(head, f, [])
    if _uses_dropped(head, gone) or getattr(stmt, "handlers", None):
        gone |= _binds(stmt)
        return []
    out = copy.copy(stmt)
    for f in _BLOCKS:
        block = getattr(stmt, f, None)
        if not block:
            continue
        kept = [k for st in block for k in _pruned(st, gone)]
        if not kept and isinstance(stmt, (ast.With, ast.AsyncWith)):
            kept = [ast.Pass()]
        if not kept:
            gone |= _binds(stmt)
            return []
        setattr(out, f, kept)
    return [out]


def _warning_check(item, gone):
    """Whether a with-item is a call of a dropped module's warning check (pytest.warns(W)) that
    binds no name."""
    c = item.context_expr
    return item.optional_vars is None and isinstance(c, ast.Call) and isinstance(c.func, ast.Attribute) and \
        c.func.attr in WARNING_CHECKS and isinstance(c.func.value, ast.Name) and c.func.value.id in gone


def cut_test(body, leaf, dropped):
    """The statements of a test function's body that its calls of leaf need: each statement that
    refers to leaf, the assert statements on names those bind, and the earlier statements that
    bind the names they use. Statements that use a dropped name (pytest) go, and so does all
    that needs them. A name bound to the API itself (a parametrize case "ctx_manager =
    temporary_cache_dir_path") refers to it too. Returns the kept statements in order, or []
    when none refers to leaf."""
    body = [s for s in body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
    usable = []
    gone = set(dropped)
    for s in body:
        kept = _pruned(s, gone)
        usable.extend(kept or [None])
    names = {leaf}
    for s in usable:
        if isinstance(s, ast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], ast.Name) and \
                ((isinstance(s.value, ast.Name) and s.value.id == leaf) or
                 (isinstance(s.value, ast.Attribute) and s.value.attr == leaf)):
            names.add(s.targets[0].id)
    keep = set()
    for i, s in enumerate(usable):
        if s is not None and any(_refers(s, n) for n in names):
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


def _deco_name(d):
    """The dotted name of a decorator without its call: "pytest.mark.parametrize"."""
    if isinstance(d, ast.Call):
        d = d.func
    try:
        return ast.unparse(d)
    except Exception:  # noqa: BLE001
        return ""


def _is_fixture(fn):
    return any(_deco_name(d).split(".")[-1] == "fixture" for d in fn.decorator_list)


# Decorators a test module's helper may have and still be one: they change no test's outcome.
HELPER_DECORATORS = {"contextlib.contextmanager", "contextmanager", "functools.cache", "cache",
                     "functools.lru_cache", "lru_cache"}


def _module_helpers(tree):
    """{name: statement} of the module-level functions and classes of a test module that are
    neither tests nor fixtures (helpers a test may call: a graph builder, a data maker, a
    context manager making a temporary file)."""
    out = {}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and not node.name.startswith(("test", "Test")) \
                and all(_deco_name(d) in HELPER_DECORATORS for d in node.decorator_list):
            out[node.name] = node
    return out


def fixtures_of(tree):
    """{name: function} of the pytest fixtures a module defines at its top level (a fixture's
    name= argument names it when given). A fixture whose params= is a name the module binds
    to a list or tuple (astropy's params=ENGINE_PARAMS) has that literal in its place."""
    out = {}
    consts = _module_constants(tree)
    for node in tree.body:
        if not isinstance(node, ast.FunctionDef) or not _is_fixture(node):
            continue
        name = node.name
        for i, d in enumerate(node.decorator_list):
            if isinstance(d, ast.Call):
                for j, kw in enumerate(d.keywords):
                    if kw.arg == "name" and isinstance(kw.value, ast.Constant) and isinstance(kw.value.value, str):
                        name = kw.value.value
                    if kw.arg == "params" and isinstance(kw.value, ast.Name) and kw.value.id in consts and \
                            isinstance(consts[kw.value.id].value, (ast.List, ast.Tuple)):
                        node = copy.deepcopy(node)
                        node.decorator_list[i].keywords[j].value = consts[kw.value.id].value
        out[name] = node
    return out


# pytest's own fixtures that a test can have as a plain statement: a fresh directory.
BUILTIN_FIXTURES = {
    "tmp_path": "import pathlib\nimport tempfile\ntmp_path = pathlib.Path(tempfile.mkdtemp())",
}
MAX_FIXTURE_LINES = 15


def _parse_stmts(text):
    try:
        return ast.parse(text).body
    except SyntaxError:
        return None


class _RequestParam(ast.NodeTransformer):
    """Replaces request.param by a parametrized fixture's first parameter."""

    def __init__(self, value):
        self.value = value
        self.other = False

    def visit_Attribute(self, node):
        if isinstance(node.value, ast.Name) and node.value.id == "request":
            if node.attr == "param":
                return self.value
            self.other = True
        return self.generic_visit(node)

    def visit_Name(self, node):
        if node.id == "request":
            self.other = True
        return node


def _fixture_param(fn, case=0):
    """Value number case (the first by default) of a parametrized fixture's params=[...], or
    None."""
    cases = _fixture_params(fn)
    return cases[case] if case < len(cases) else None


def _fixture_params(fn):
    """The values of a parametrized fixture's params=[...] ([] for another fixture or None)."""
    for d in getattr(fn, "decorator_list", ()):
        if isinstance(d, ast.Call):
            for kw in d.keywords:
                if kw.arg == "params" and isinstance(kw.value, (ast.List, ast.Tuple)) and kw.value.elts:
                    return [_unwrap_param(v) for v in kw.value.elts]
    return []


def _unwrap_param(v):
    """The value of a pytest.param(value, marks=...) entry, or v itself."""
    if isinstance(v, ast.Call) and _deco_name(v.func).split(".")[-1] == "param" and len(v.args) == 1:
        return v.args[0]
    return v


def fixture_statements(name, fixtures, depth=0, case=0):
    """The statements that make fixture name's value as the name itself: the fixture's
    statements before its return (or yield), then "name = value", preceded by those of the
    fixtures it takes. Teardown after a yield is left out. None when it cannot be inlined: it
    takes a fixture that cannot, uses request other than for request.param, returns or yields
    more than once or inside a block, or is longer than MAX_FIXTURE_LINES. A parametrized
    fixture takes its params' value number case (the first by default)."""
    if name in BUILTIN_FIXTURES:
        return _parse_stmts(BUILTIN_FIXTURES[name])
    fn = fixtures.get(name)
    if fn is None or depth > 3 or fn.args.vararg or fn.args.kwarg:
        return None
    out = []
    param = _fixture_param(fn, case)
    for a in fn.args.args:
        if a.arg == "request" and param is not None:
            continue
        sub = fixture_statements(a.arg, fixtures, depth + 1)
        if sub is None:
            return None
        out.extend(sub)
    body = [s for s in fn.body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
    if not body:
        return None
    exits = [n for s in body for n in ast.walk(s) if isinstance(n, (ast.Return, ast.Yield, ast.YieldFrom))]
    last = body[-1]
    if isinstance(last, ast.Return) and last.value is not None and len(exits) == 1:
        pre, value = body[:-1], last.value
    else:
        ys = [i for i, s in enumerate(body) if isinstance(s, ast.Expr) and isinstance(s.value, ast.Yield)]
        if len(ys) != 1 or len(exits) != 1 or body[ys[0]].value.value is None:
            return None
        pre, value = body[:ys[0]], body[ys[0]].value.value
    stmts = pre + [ast.Assign(targets=[ast.Name(id=name, ctx=ast.Store())], value=value, lineno=0)]
    if param is not None:
        tr = _RequestParam(param)
        stmts = [tr.visit(s) for s in stmts]
        if tr.other:
            return None
    text = "\n".join(ast.unparse(s) for s in stmts)
    if len(text.splitlines()) > MAX_FIXTURE_LINES:
        return None
    return out + (_parse_stmts(text) or [])


def parametrize_statements(fn, consts, leaf=None):
    """The assignments of the first case of each @pytest.mark.parametrize of fn that is not
    marked xfail or skip ("a, b = 1, 2" for argnames "a,b" and argvalues [(1, 2), ...]), the
    first that names leaf when one does, in decorator order; None when a parametrize decorator
    cannot be read."""
    out = []
    for d in fn.decorator_list:
        if _deco_name(d).split(".")[-1] != "parametrize":
            continue
        if not isinstance(d, ast.Call) or len(d.args) < 2:
            return None
        names, values = d.args[0], d.args[1]
        if isinstance(names, ast.Constant) and isinstance(names.value, str):
            argnames = [n.strip() for n in names.value.split(",") if n.strip()]
        elif isinstance(names, (ast.List, ast.Tuple)) and all(
                isinstance(e, ast.Constant) and isinstance(e.value, str) for e in names.elts):
            argnames = [e.value for e in names.elts]
        else:
            return None
        if isinstance(values, ast.Name) and values.id in consts:
            values = consts[values.id].value
        if not isinstance(values, (ast.List, ast.Tuple)) or not argnames:
            return None
        case = None
        elts = list(values.elts)
        if leaf:
            # The case that uses the API first (a test parametrized over generators).
            elts.sort(key=lambda v: not _refers(v, leaf))
        for v in elts:
            if isinstance(v, ast.Call) and _deco_name(v.func).split(".")[-1] == "param":
                if any(kw.arg == "marks" and re.search(r"\b(xfail|skip|skipif)\b", ast.unparse(kw.value))
                       for kw in v.keywords):
                    continue
                vals = list(v.args)
            elif len(argnames) == 1:
                vals = [v]
            elif isinstance(v, (ast.Tuple, ast.List)):
                vals = list(v.elts)
            else:
                return None
            if len(vals) == len(argnames):
                case = vals
                break
        if case is None:
            return None
        for n, v in zip(argnames, case):
            out.append(ast.Assign(targets=[ast.Name(id=n, ctx=ast.Store())], value=v, lineno=0))
    return out


# Decorators that keep a test from being an example: it is expected to fail or never runs.
REJECT_MARKS = {"xfail", "skip"}
UNITTEST_ASSERTS = {
    "assertEqual": "%s == %s", "assertEquals": "%s == %s", "assertNotEqual": "%s != %s",
    "assertIs": "%s is %s", "assertIsNot": "%s is not %s", "assertIn": "%s in %s",
    "assertNotIn": "%s not in %s", "assertIsInstance": "isinstance(%s, %s)",
    "assertTrue": "%s", "assertFalse": "not %s", "assertIsNone": "%s is None",
    "assertIsNotNone": "%s is not None",
}
SETUP_NAMES = ("setup_class", "setUpClass", "setup_method", "setUp", "setup")


def _marks_ok(fn, aliases=frozenset()):
    """Whether fn's decorators are all pytest marks other than xfail and skip, or names in
    aliases (mark_aliases: xarray's requires_scipy)."""
    for d in fn.decorator_list:
        if isinstance(d, ast.Name) and d.id in aliases:
            continue
        name = _deco_name(d)
        parts = name.split(".")
        if len(parts) < 2 or parts[-2] != "mark" or parts[-1] in REJECT_MARKS:
            return False
    return True


def mark_aliases(tree, package=None):
    """The names a test module may decorate tests with that are values, as pytest marks are:
    names bound by a top-level assignment of the module, or of the module it imports them
    from (read from its source: xarray.tests, which needs pytest, binds has_scipy,
    requires_scipy = _importorskip("scipy")), not by a def or class. A mark whose assignment
    passes the name of a module that does not import here (_importorskip("dask")) is left
    out: the tests under it would fail."""
    out = set()
    for name, node in _assignments(tree).items():
        if _mark_value_ok(node):
            out.add(name)
    for name, line in import_lines(tree, package).items():
        mod, orig = _import_source(line)
        if mod is None or name in out:
            continue
        t = module_source_tree(mod)
        node = _assignments(t).get(orig) if t is not None else None
        if node is not None and _mark_value_ok(node):
            out.add(name)
    return out


def _assignments(tree):
    """{name: statement} of the names tree's top-level assignments bind (tuple targets too)."""
    out = {}
    for node in tree.body:
        if isinstance(node, ast.Assign):
            for t in node.targets:
                for n in ast.walk(t):
                    if isinstance(n, ast.Name):
                        out[n.id] = node
    return out


def _mark_value_ok(node):
    """Whether assignment node makes no xfail or skip mark, and every string passed
    positionally in its calls that reads as a module name ("dask", "pydap.client") names one
    that is installed here."""
    for n in ast.walk(node):
        if isinstance(n, ast.Attribute) and n.attr in REJECT_MARKS:
            return False
        if not isinstance(n, ast.Call):
            continue
        for a in n.args:
            if isinstance(a, ast.Constant) and isinstance(a.value, str) and MODULE_NAME_RE.match(a.value):
                try:
                    if importlib.util.find_spec(a.value) is None:
                        return False
                except (ImportError, ValueError):
                    return False
    return True


MODULE_NAME_RE = re.compile(r"^[A-Za-z_]\w*(\.[A-Za-z_]\w*)*$")


class _SelfAttrs(ast.NodeTransformer):
    """Rewrites self.X (cls.X) to X for the attributes a test class's setup binds, and
    unittest's self.assertEqual(a, b) to assert a == b."""

    def __init__(self, selfname, attrs):
        self.selfname = selfname
        self.attrs = attrs

    def visit_Attribute(self, node):
        if isinstance(node.value, ast.Name) and node.value.id == self.selfname and node.attr in self.attrs:
            return ast.copy_location(ast.Name(id=node.attr, ctx=node.ctx), node)
        return self.generic_visit(node)

    def visit_Expr(self, node):
        c = node.value
        if isinstance(c, ast.Call) and isinstance(c.func, ast.Attribute) and isinstance(c.func.value, ast.Name) \
                and c.func.value.id == self.selfname and c.func.attr in UNITTEST_ASSERTS:
            form = UNITTEST_ASSERTS[c.func.attr]
            n = form.count("%s")
            if len(c.args) >= n:
                args = [ast.unparse(self.visit(a)) for a in c.args[:n]]
                got = _parse_stmts("assert " + form % tuple("(%s)" % a for a in args))
                if got:
                    return ast.copy_location(got[0], node)
        return self.generic_visit(node)


def _helper_def(fn, names):
    """Method fn of a test class as a plain function of the same name: its self (or cls)
    parameter dropped unless it is a staticmethod, its decorators dropped, self.X written as X
    for X in names. None when it still uses self after that, or has other decorators."""
    decos = [_deco_name(d) for d in fn.decorator_list]
    if any(d not in ("staticmethod", "classmethod") for d in decos):
        return None
    fn = copy.deepcopy(fn)
    fn.decorator_list = []
    if "staticmethod" in decos:
        return fn
    if not fn.args.args:
        return None
    me = fn.args.args.pop(0).arg
    fn = _SelfAttrs(me, names).visit(fn)
    if any(isinstance(n, ast.Name) and n.id == me for n in ast.walk(fn)):
        return None
    return fn


def class_setup(cls):
    """(statements, names) of a test class: its class-level assignments, its helper methods
    as plain functions (_helper_def) and the body of its setup method (setup_class, setUp, ...),
    with self.X and cls.X written as X, and the names X they bind. None when the setup does
    something else with self (reads an attribute it did not set) or the class has more than
    one setup. Helper methods that still need self are left out."""
    attrs = set()
    stmts = []
    for n in cls.body:
        if isinstance(n, ast.Assign) and all(isinstance(t, ast.Name) for t in n.targets):
            stmts.append(n)
            attrs |= {t.id for t in n.targets}
    setups = [n for n in cls.body if isinstance(n, ast.FunctionDef) and n.name in SETUP_NAMES]
    if len(setups) > 1:
        return None
    for fn in setups:
        if not fn.args.args:
            return None
        me = fn.args.args[0].arg
        for s in fn.body:
            for n in ast.walk(s):
                if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id == me \
                        and isinstance(n.ctx, ast.Store):
                    attrs.add(n.attr)
    methods = [n for n in cls.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and not n.name.startswith("test")
               and n.name not in SETUP_NAMES and not n.name.startswith(("teardown", "tearDown", "__"))]
    helpers = {}
    names = set(m.name for m in methods)
    while True:
        helpers = {}
        for m in methods:
            if m.name in names:
                h = _helper_def(m, attrs | names)
                if h is not None:
                    helpers[m.name] = h
        if set(helpers) == names:
            break
        names = set(helpers)
    attrs |= names
    stmts.extend(helpers[m.name] for m in methods if m.name in helpers)
    for fn in setups:
        me = fn.args.args[0].arg
        tr = _SelfAttrs(me, attrs)
        for s in copy.deepcopy(fn.body):
            if isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant):
                continue
            if isinstance(s, ast.Expr) and "super()" in ast.unparse(s):
                continue
            s = tr.visit(s)
            if any(isinstance(n, ast.Name) and n.id == me for n in ast.walk(s)):
                return None
            stmts.append(s)
    return stmts, attrs


def test_cases(tree, fixtures, consts, leaf=None, variants=1, package=None):
    """(function, qualified name, body, statements it runs first) for each test
    function of a module whose arguments can all be made (pytest fixtures that can be inlined,
    the first case of its parametrize marks) and, in a test class, whose setup can be inlined
    (class_setup), in file order. A parameter with a default takes it. Tests marked xfail or
    skip, and tests under other decorators, are left out. With variants above 1, a test that
    takes a parametrized fixture comes once for each of its first variants params, named
    "test[i]" from the second on (astropy's format_engine: the old ECSV reader, then the new
    engine). package is the module's package (import_lines)."""
    out = []

    aliases = mark_aliases(tree, package)

    def cases(fn, skip):
        n = 1
        for a in fn.args.args[skip:]:
            if a.arg in fixtures:
                n = len(_fixture_params(fixtures[a.arg]))
                if n:
                    break
        return max(1, min(n, variants))

    def prelude(fn, skip, case=0):
        if not _marks_ok(fn, aliases):
            return None
        pre = parametrize_statements(fn, consts, leaf)
        if pre is None:
            return None
        given = {t.id for s in pre for t in s.targets}
        args = fn.args.args[skip:]
        defaults = dict(zip([a.arg for a in args[len(args) - len(fn.args.defaults):]], fn.args.defaults)) \
            if fn.args.defaults else {}
        for a in args:
            if a.arg in given:
                continue
            if a.arg in defaults:  # not a fixture: the test's own default
                pre = pre + [ast.Assign(targets=[ast.Name(id=a.arg, ctx=ast.Store())], value=defaults[a.arg], lineno=0)]
                continue
            st = fixture_statements(a.arg, fixtures, case=case)
            if st is None:
                return None
            if _fixture_params(fixtures.get(a.arg)):
                case = 0  # only the first parametrized fixture varies
            pre = pre + st
        if fn.args.vararg or fn.args.kwarg or fn.args.kwonlyargs:
            return None
        return pre

    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name.startswith("test"):
            for case in range(cases(node, 0)):
                pre = prelude(node, 0, case)
                if pre is not None:
                    out.append((node, node.name + ("[%d]" % case if case else ""), node.body, pre))
        elif isinstance(node, ast.ClassDef) and node.name.startswith("Test"):
            setup = class_setup(node)
            if setup is None:
                continue
            stmts, attrs = setup
            for fn in node.body:
                if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) or not fn.name.startswith("test") \
                        or not fn.args.args:
                    continue
                for case in range(cases(fn, 1)):
                    pre = prelude(fn, 1, case)
                    if pre is None:
                        continue
                    tr = _SelfAttrs(fn.args.args[0].arg, attrs)
                    body = [tr.visit(s) for s in copy.deepcopy(fn.body)]
                    out.append((fn, node.name + "." + fn.name + ("[%d]" % case if case else ""), body, stmts + pre))
    return out


# ---------------------------------------------------------------- test helper modules

MAX_FOREIGN_LINES = 60
_SOURCE_TREES = {}
_SOURCE_PACKAGES = {}  # module name -> the package its relative imports start from
_FOREIGN = {}


def module_source_tree(modname):
    """The parsed source of module modname, found below the folders of its top-level package
    without importing it (a test helper module that imports pytest, which is not installed:
    xarray.tests, astropy.tests.helper); None when there is no such file."""
    if modname in _SOURCE_TREES:
        return _SOURCE_TREES[modname]
    parts = modname.split(".")
    tree, package = None, None
    try:
        roots = list(getattr(importlib.import_module(parts[0]), "__path__", []) or [])
    except BaseException:  # noqa: BLE001
        roots = []
    for root in roots:
        base = os.path.join(root, *parts[1:])
        for path in (base + ".py", os.path.join(base, "__init__.py")):
            if os.path.isfile(path):
                package = modname if path.endswith("__init__.py") else modname.rpartition(".")[0]
                try:
                    with open(path, encoding="utf-8", errors="replace") as f:
                        tree = ast.parse(f.read())
                except (OSError, SyntaxError, ValueError):
                    tree = None
                break
        if tree is not None:
            break
    _SOURCE_TREES[modname] = tree
    _SOURCE_PACKAGES[modname] = package
    return tree


def _import_source(line):
    """(module, name in that module) of an import line of import_lines: ("m.n", "x") for
    "from m.n import x as y", ("m.n", None) for "import m.n as y"; (None, None) otherwise."""
    m = re.match(r"from (\S+) import (\S+)", line)
    if m:
        return m.group(1), m.group(2)
    m = re.match(r"import (\S+)", line)
    return (m.group(1), None) if m else (None, None)


def _without_docstring(node):
    """A copy of a function or class definition without its docstring."""
    node = copy.deepcopy(node)
    for n in ast.walk(node):
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and len(n.body) > 1 and \
                isinstance(n.body[0], ast.Expr) and isinstance(n.body[0].value, ast.Constant) and \
                isinstance(n.body[0].value.value, str):
            n.body = n.body[1:]
    return node


def foreign_definition(modname, name, depth=0):
    """The lines that bind name as module modname binds it, for a module that does not import
    here (a test helper module that needs pytest: xarray.tests' create_tmp_file and
    source_ndarray), read from its source: its import lines that the definition needs, its
    top-level functions, classes and assignments, at most MAX_FOREIGN_LINES; a name that
    module imports from another that does not import is looked up there in turn. None when
    the name cannot be made so (it needs pytest, or what the module binds otherwise)."""
    key = (modname, name)
    if key in _FOREIGN:
        return _FOREIGN[key]
    _FOREIGN[key] = None  # a definition that needs itself through an import cycle
    tree = module_source_tree(modname)
    _FOREIGN[key] = None if tree is None or depth > 2 else _definition_in(tree, name, depth, _SOURCE_PACKAGES[modname])
    return _FOREIGN[key]


def _definition_in(tree, name, depth, package):
    imports = import_lines(tree, package)
    defs = {}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            if all(_deco_name(d) in HELPER_DECORATORS for d in node.decorator_list):
                defs[node.name] = node
        elif isinstance(node, ast.Assign) and all(isinstance(t, ast.Name) for t in node.targets):
            for t in node.targets:
                defs[t.id] = node
    lines, chosen, seen = [], set(), set()
    need = [name]
    while need:
        n = need.pop()
        if n in seen:
            continue
        seen.add(n)
        if n in imports:
            mod, orig = _import_source(imports[n])
            if mod is None or mod.split(".")[0] in DROP_MODULES:
                return None
            if importable(mod):
                lines.append(imports[n])
                continue
            sub = foreign_definition(mod, orig, depth + 1) if orig else None
            if sub is None:
                return None
            lines.extend(sub)
            continue
        node = defs.get(n)
        if node is None:
            return None
        if id(node) not in chosen:
            chosen.add(id(node))
            need.extend(unbound_names(ast.unparse(node)) or [])
    out = []
    for line in lines:
        if line not in out:
            out.append(line)
    out += [ast.unparse(_without_docstring(node)) for node in tree.body if id(node) in chosen]
    if sum(len(x.splitlines()) for x in out) > MAX_FOREIGN_LINES:
        return None
    return out


def foreign_names(imports):
    """{name: lines or None} of the names a test module imports from modules that do not
    import here (foreign_definition; None when a name cannot be made)."""
    out = {}
    for n, line in imports.items():
        mod, orig = _import_source(line)
        if mod is None or mod.split(".")[0] in DROP_MODULES or importable(mod):
            continue
        out[n] = foreign_definition(mod, orig) if orig else None
    return out


def _asserting_calls_only(body, name):
    """Whether every use of name in the statements body is as the function of a call whose
    value is thrown away (an expression statement: xarray.tests' assert_identical(a, b))."""
    calls = set()
    for st in body:
        for n in ast.walk(st):
            if isinstance(n, ast.Expr) and isinstance(n.value, ast.Call) and isinstance(n.value.func, ast.Name) \
                    and n.value.func.id == name:
                calls.add(id(n.value.func))
    uses = [n for st in body for n in ast.walk(st) if isinstance(n, ast.Name) and n.id == name]
    return bool(uses) and all(id(n) in calls for n in uses)


def foreign_dropped(body, foreign):
    """The names of foreign (foreign_names) that a test whose statements are body cannot use:
    those that cannot be made, and those it only calls for their checks (an assertion
    helper), whose statements go as pytest's do."""
    return {n for n, lines in foreign.items() if lines is None or _asserting_calls_only(body, n)}


def module_needs(code, tree, imports, foreign=None):
    """The module-level statements of a test module that code needs, in module order: the
    constants and helper functions and classes (_module_helpers) it uses unbound, closed over
    what those use in turn, at most MAX_TEST_LINES lines. Names its imports give are not
    looked up, but for those of foreign (foreign_names: imported from a module that does not
    import here), whose lines come first, at most MAX_FOREIGN_LINES in all."""
    foreign = foreign or {}
    consts = _module_constants(tree)
    helpers = _module_helpers(tree)
    defs = dict(consts)
    defs.update(helpers)

    def wanted(names):
        return [m for m in (names or []) if m not in imports or m in foreign]

    need = wanted(unbound_names(code))
    chosen = set()
    lines = 0
    outside, seen = [], set()
    while need:
        n = need.pop()
        if n in foreign:
            if n in seen or foreign[n] is None:
                continue
            seen.add(n)
            outside += [l for l in foreign[n] if l not in outside]
            if sum(len(x.splitlines()) for x in outside) > MAX_FOREIGN_LINES:
                return None
            continue
        node = defs.get(n)
        if node is None or id(node) in chosen:
            continue
        text = ast.unparse(node)
        lines += len(text.splitlines())
        if lines > MAX_TEST_LINES:
            return None
        chosen.add(id(node))
        need.extend(wanted(unbound_names(text)))
    return outside + [ast.unparse(node) for node in tree.body if id(node) in chosen]


def _awaits(stmts):
    """Whether the statements await outside any function of theirs (the body of an async test)."""
    todo = list(stmts)
    while todo:
        n = todo.pop()
        if isinstance(n, (ast.Await, ast.AsyncFor, ast.AsyncWith)):
            return True
        if not isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            todo.extend(ast.iter_child_nodes(n))
    return False


def _test_dropped(imports):
    """The names of a test module's imports of pytest, unittest and the like (DROP_MODULES)."""
    return {n for n, l in imports.items() if l.split()[1].split(".")[0] in DROP_MODULES}


def _test_script(stmts, tree, imports, dropped, accept, foreign=None):
    """The kept statements of a test as a script, after the module constants and helpers they
    use and the definitions of foreign they need (module_needs); None when it is longer than
    MAX_TEST_LINES, needs a dropped name (a fixture or helper that needs pytest) or
    accept(code, imports) refuses it."""
    code = "\n".join(ast.unparse(st) for st in stmts)
    if len(code.splitlines()) > MAX_TEST_LINES:
        return None
    if _awaits(stmts):  # an async test (pytest.mark.asyncio) runs as asyncio runs a coroutine
        code = "import asyncio\n\nasync def main():\n%s\n\nasyncio.run(main())" % textwrap.indent(code, "    ")
    mod = module_needs(code, tree, imports, foreign)
    if mod is None:
        return None
    if mod:
        code = "\n".join(mod) + "\n" + code
    if set(unbound_names(code) or ()) & dropped:
        return None
    if accept is not None and not accept(code, imports):
        return None
    return code


def test_examples(corpus, leaf, api_name, limit, accept=None, kind="function"):
    """Up to limit candidate examples from the test functions that call leaf, shortest first
    among the first 4*limit found: the test's statements the call needs (cut_test), with the
    first case of its parametrize marks, the fixtures it takes and its class's setup inlined
    before them (test_cases), preceded by the module constants and helpers they use
    (module_needs), with the module's imports as the source imports. accept(code, imports),
    when given, says whether a candidate reaches the API (calls_api): only those count. A test
    file is read when it calls leaf, or for a class API (kind "class") names it."""
    if corpus is None or not corpus.files:
        return []
    # A class is used as a value too (Language.C, isinstance(x, Op)); anything else is called.
    pat = re.compile(r"(?<![\w])%s%s" % (re.escape(leaf), r"(?![\w])" if kind == "class" else r"\s*\("))
    parent = api_name.rsplit(".", 1)[0]
    found = []
    for path in corpus.files:
        text = corpus.read(path)
        if not text or not pat.search(text):
            continue
        tree = corpus.tree(path)
        if tree is None:
            continue
        imports = import_lines(tree, corpus.package(path))
        dropped = _test_dropped(imports)
        foreign = foreign_names(imports)
        for fn, qual, body, pre in corpus.cases(path, leaf):
            if not any(_refers(s, leaf) for s in body + fn.decorator_list):  # a parametrize case may name it
                continue
            gone = dropped | foreign_dropped(pre + body, foreign)
            stmts = cut_test(pre + body, leaf, gone | {"self", "cls"})
            if not stmts or not any(_refers(s, leaf) for s in stmts):
                continue
            code = _test_script(stmts, tree, imports, gone, accept, foreign)
            if code is None:
                continue
            # A test that reaches the API through its own module's name
            # scores ahead of one that only shares the leaf name.
            score = (0 if (parent.split(".")[-1] in code or leaf in imports) else 1, len(code))
            found.append((score, {"code": code, "source": "tests", "imports": imports,
                                  "origin": {"file": path, "line": fn.lineno, "test": qual}}))
            if len(found) >= 4 * limit:
                break
        if len(found) >= 4 * limit:
            break
    found.sort(key=lambda x: x[0])
    return [f for _, f in found[:limit]]


def _statements(stmts):
    """How many statements stmts hold, those inside their blocks counted, docstrings not."""
    return sum(1 for st in stmts for n in ast.walk(st) if isinstance(n, ast.stmt)
               and not (isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant)))


def whole_test(body, dropped):
    """The statements of a test function's body that do not use a dropped name (pytest), nor
    what those bound in turn, inside its blocks too (_pruned): the test as a plain script."""
    out, gone = [], set(dropped)
    for st in body:
        if isinstance(st, ast.Expr) and isinstance(st.value, ast.Constant):
            continue
        out.extend(_pruned(st, gone))
    return out


MAX_MODULE_TEST_FILES = 2
# How many of the params of a parametrized fixture a test of the API's module is tried with:
# which one reaches the API is known only when it runs.
MODULE_TEST_VARIANTS = 3


def module_test_files(corpus, module_file):
    """The test modules of the module at module_file ("astropy/io/ascii/tdat.py"): the files
    test_SEG.py of the suite, SEG the module's name (its package's for an __init__.py), nearest
    the module first, at most MAX_MODULE_TEST_FILES."""
    if not module_file or corpus is None:
        return []
    stem = os.path.splitext(os.path.basename(module_file))[0]
    if stem == "__init__":
        stem = os.path.basename(os.path.dirname(module_file))
    here = os.path.dirname(os.path.abspath(module_file)).split(os.sep)
    found = []
    for path in corpus.files:
        if os.path.basename(path) != "test_%s.py" % stem:
            continue
        there = os.path.dirname(os.path.abspath(path)).split(os.sep)
        common = 0
        for a, b in zip(here, there):
            if a != b:
                break
            common += 1
        found.append((-common, path))
    found.sort()
    return [p for _, p in found[:MAX_MODULE_TEST_FILES]]


def module_callers(module_file, names):
    """The names of the top-level functions, classes and assignments of the module at
    module_file that use one of names (its API's leaf and class), and of those that use them in
    turn, one hop each: numpy.ma.core's where and concatenate call get_masked_subclass, and
    add = _MaskedBinaryOperation(...) makes an object whose class calls it."""
    try:
        with open(module_file, encoding="utf-8", errors="replace") as f:
            tree = ast.parse(f.read())
    except (OSError, SyntaxError, ValueError):
        return set(names)
    out = set(names)
    for hop in ((ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef), (ast.Assign,)):
        new = set()
        for node in tree.body:
            if not isinstance(node, hop) or not any(_refers(node, n) for n in out):
                continue
            if isinstance(node, ast.Assign):
                new |= {t.id for t in node.targets if isinstance(t, ast.Name)}
            else:
                new.add(node.name)
        out |= new
    return out


def module_test_examples(corpus, module_file, limit, accept=None, names=()):
    """Up to limit candidate examples from the tests of the API's own module that do not name it
    (module_test_files): whole tests as plain scripts (whole_test), with what they take inlined as
    test_examples does, those that use one of names (module_callers) first, then those that lost
    no statement to what they could not keep (a check under pytest.raises: what is left of such
    a test is mostly its setup), then shorter first. A test that takes a parametrized fixture is
    tried with each of its first MODULE_TEST_VARIANTS params.
    An API that users reach through another (a reader class through Table.read(...,
    format="ascii.tdat"), a helper through its module's entry point) is found here; whether a
    candidate runs the API's code is decided when it runs (reach.py), not here.
    accept(code, imports) filters as in test_examples."""
    found = []
    for path in module_test_files(corpus, module_file):
        tree = corpus.tree(path)
        if tree is None:
            continue
        imports = import_lines(tree, corpus.package(path))
        dropped = _test_dropped(imports)
        foreign = foreign_names(imports)
        for fn, qual, body, pre in corpus.cases(path, variants=MODULE_TEST_VARIANTS):
            gone = dropped | foreign_dropped(pre + body, foreign)
            stmts = whole_test(pre + body, gone | {"self", "cls"})
            if not stmts or all(isinstance(st, ast.Assert) for st in stmts):
                continue
            code = _test_script(stmts, tree, imports, gone, accept, foreign)
            if code is None:
                continue
            uses = any(_refers(st, n) for st in stmts for n in names)
            lost = _statements(pre + body) > _statements(stmts)
            found.append(((0 if uses else 1, lost, len(code)), {"code": code, "source": "tests", "imports": imports,
                                                         "origin": {"file": path, "line": fn.lineno, "test": qual}}))
    found.sort(key=lambda f: f[0])
    return [f for _, f in found[:limit]]
