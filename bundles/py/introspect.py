"""Dump the public API surface of one library as JSON (docs/protocol.md §7, Stage 1).

Usage: python3 -I -B introspect.py LIBRARY [DIST] [OUT] [BOOTSTRAP]

Walks the public modules of the import name LIBRARY, records functions,
classes and (novelapi's extension) public methods of public classes, and
writes one JSON document to OUT (default /out/surface.json):

  {"library", "dist", "version", "python", "modules": [...],
   "walk_failures": [{"module", "attribute"?, "error"}], "entries": [...],
   "unattributed": [...], "counts": {...}}

"unattributed" lists the paths of public callables without a __module__
(numpy 1.x's ufuncs), which are not entries: nothing says they belong to
the library.

A module that fails to import (retried twice), or a public name whose
access or inspection raises (django.conf.settings before settings are
configured), is a walk failure, and the walk goes on; "attribute" names the
attribute path within the module for the latter.

BOOTSTRAP is a file of Python lines run before the walk (the library's
bootstrap, docs/environments.md §8); when they raise, "bootstrap_error"
says so and the walk goes on.

Each entry is one object (identity by id()), with every import path it was
found under in "paths" and the canonical one in "api_name". Runs on
Python 3.11 and later; imports nothing beyond the standard library and the
library itself.
"""

import importlib
import importlib.metadata
import inspect
import json
import os
import pkgutil
import re
import sys
import traceback
import warnings

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # -I leaves the script dir out
from pyobj import code_target  # noqa: E402

SKIP_PARTS = (".tests", ".testing", ".test", ".compat", ".conftest", ".benchmarks",
              ".experimental._", ".distutils", ".setup", ".version")

ROLE_ORDER = ("exception", "enum", "protocol", "typeddict", "namedtuple", "dataclass")


def skip_module(name):
    leaf = name.rsplit(".", 1)[-1]
    if leaf.startswith("_") or "._" in name:
        return True
    dotted = name + "."
    for part in SKIP_PARTS:
        if part.endswith("_"):
            if part in name:
                return True
        elif part + "." in dotted or dotted.endswith(part + "."):
            return True
    return False


def normalise_path(path):
    if not path:
        return None
    path = os.path.realpath(path) if os.path.exists(path) else path
    for marker in ("site-packages", "dist-packages"):
        i = path.find("/" + marker + "/")
        if i >= 0:
            return "<" + marker + ">" + path[i + len(marker) + 1:]
    return path


def short_error(exc):
    return ("%s: %s" % (type(exc).__name__, exc))[:500]


def walk(library):
    """Import LIBRARY and its public submodules; return (modules, failures)."""
    modules = {}
    failures = {}
    try:
        top = importlib.import_module(library)
    except BaseException as exc:  # noqa: BLE001 - any import failure is data
        if isinstance(exc, KeyboardInterrupt):
            raise
        return None, {library: short_error(exc)}
    modules[library] = top
    pending = []

    def children(mod):
        try:
            path = getattr(mod, "__path__", None)
            if not path:
                return []
            out = []
            for info in pkgutil.iter_modules(path, mod.__name__ + "."):
                if not skip_module(info.name):
                    out.append(info.name)
        except Exception as exc:  # noqa: BLE001 - a broken package path is data
            failures[mod.__name__] = "listing submodules: " + short_error(exc)
            return []
        return sorted(out)

    queue = children(top)
    for _round in range(3):
        while queue:
            name = queue.pop(0)
            if name in modules:
                continue
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    mod = importlib.import_module(name)
            except BaseException as exc:  # noqa: BLE001
                if isinstance(exc, KeyboardInterrupt):
                    raise
                failures[name] = short_error(exc)
                pending.append(name)
                continue
            failures.pop(name, None)
            modules[name] = mod
            queue.extend(children(mod))
        if not pending:
            break
        queue, pending = pending, []
    return modules, failures


def class_role(cls):
    import enum
    import dataclasses
    try:
        if issubclass(cls, BaseException):
            return "exception"
        if issubclass(cls, enum.Enum):
            return "enum"
    except TypeError:
        return "plain_class"
    if getattr(cls, "_is_protocol", False):
        return "protocol"
    if hasattr(cls, "__required_keys__") and hasattr(cls, "__total__"):
        return "typeddict"
    if issubclass(cls, tuple) and hasattr(cls, "_fields"):
        return "namedtuple"
    if dataclasses.is_dataclass(cls):
        return "dataclass"
    return "plain_class"


def fmt_annotation(ann):
    if ann is inspect.Parameter.empty:
        return None
    if isinstance(ann, str):
        return ann
    try:
        return inspect.formatannotation(ann)
    except Exception:  # noqa: BLE001
        return repr(ann)


# A default's repr can hold the object's address ("<BFGS object at
# 0x7f33...>"), which differs in every process: it is cut so that the same
# release gives the same signature (docs/protocol.md §7, Stage 1).
ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+>")


def no_address(text):
    return ADDRESS.sub(">", text) if text else text


def params_of(sig):
    out = []
    for p in sig.parameters.values():
        default = None
        if p.default is not inspect.Parameter.empty:
            try:
                default = no_address(str(p.default))
            except Exception:  # noqa: BLE001
                default = "<unprintable>"
        out.append({"name": p.name, "annotation": fmt_annotation(p.annotation),
                    "default": default, "kind": p.kind.name})
    return out


def signature_of(obj, kind):
    target = obj
    if kind == "class":
        init = obj.__dict__.get("__init__") if "__init__" in obj.__dict__ else None
        if init is None:
            for base in obj.__mro__[1:]:
                if base is object:
                    break
                if "__init__" in base.__dict__:
                    init = base.__dict__["__init__"]
                    break
        if init is not None and (inspect.isfunction(init) or hasattr(init, "__wrapped__")):
            target = init
    try:
        sig = inspect.signature(target)
    except (TypeError, ValueError):
        return None, []
    try:
        return no_address(str(sig)), params_of(sig)
    except Exception:  # noqa: BLE001
        return None, []


def source_of(obj):
    target = code_target(obj)
    try:
        path = inspect.getsourcefile(target)
    except (TypeError, OSError):
        path = None
    if path is None:
        try:
            path = inspect.getfile(target)
        except (TypeError, OSError):
            path = None
    line = None
    if path and path.endswith(".py"):
        if inspect.isclass(target):
            # Python 3.11's inspect re-parses the whole file for every class
            # (minutes for scipy.stats); parse each file once instead.
            line = class_lines(path).get(getattr(target, "__qualname__", ""))
        else:
            try:
                line = inspect.getsourcelines(target)[1]
            except (OSError, TypeError, IndexError):
                line = None
    if line is None and inspect.isclass(target):
        path = None  # a C type: inspect.getfile names its module's file, not its source
    return path, line


_CLASS_LINES = {}


def class_lines(path):
    """Map qualname -> 1-based line of every class defined in the file at path."""
    got = _CLASS_LINES.get(path)
    if got is not None:
        return got
    got = {}
    try:
        import ast
        with open(path, "rb") as f:
            tree = ast.parse(f.read())
    except (OSError, SyntaxError, ValueError):
        _CLASS_LINES[path] = got
        return got

    def visit(node, prefix):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.ClassDef):
                q = prefix + child.name
                got.setdefault(q, child.lineno if not child.decorator_list else child.decorator_list[0].lineno)
                visit(child, q + ".")
            elif isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                visit(child, prefix + child.name + ".<locals>.")
            else:
                visit(child, prefix)
    visit(tree, "")
    _CLASS_LINES[path] = got
    return got


def doc_of(obj):
    doc = getattr(obj, "__doc__", None)
    if not isinstance(doc, str) or not doc.strip():
        return None
    return inspect.cleandoc(doc)


def path_rank(path, defining):
    """docs/protocol.md §7 ranking of import paths (lower is better)."""
    scan = path.rsplit(".", 1)[0]
    private = any(seg.startswith("_") for seg in scan.split("."))
    defining = defining or ""
    if defining == scan or defining.startswith(scan + "."):
        ancestor, distance = 0, len(defining.split(".")) - len(scan.split("."))
    else:
        ancestor, distance = 1, 0
    return (private, ancestor, distance, len(path.split(".")), path)


def method_rank(path, defclass):
    """Ranking of a method's paths: the defining class first, then public, shortest, lexicographic."""
    segs = path.split(".")
    private = any(seg.startswith("_") for seg in segs[:-1])
    return (segs[-2] != defclass, private, len(segs), path)


def main(argv):
    library = argv[1]
    dist = argv[2] if len(argv) > 2 and argv[2] else library
    out_path = argv[3] if len(argv) > 3 else "/out/surface.json"
    warnings.simplefilter("ignore")
    version = None
    try:
        version = importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        pass
    doc = {"library": library, "dist": dist, "version": version,
           "python": sys.version.split()[0], "modules": [], "walk_failures": [],
           "entries": [], "counts": {}}
    if len(argv) > 4 and argv[4]:
        try:
            with open(argv[4]) as f:
                code = compile(f.read(), argv[4], "exec")
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                exec(code, {"__name__": "__novelapi_bootstrap__"})
        except BaseException as exc:  # noqa: BLE001 - reported, and the walk goes on
            if isinstance(exc, KeyboardInterrupt):
                raise
            doc["bootstrap_error"] = short_error(exc)
    modules, failures = walk(library)
    doc["walk_failures"] = [{"module": k, "error": v} for k, v in sorted(failures.items())]
    if modules is None:
        doc["error"] = "cannot import %s: %s" % (library, failures.get(library, ""))
        write(out_path, doc)
        return 3
    doc["modules"] = sorted(modules)
    if version is None:
        version = getattr(modules[library], "__version__", None)
        doc["version"] = version
    counts = {"names": 0, "foreign": 0, "non_callable": 0}
    byid = {}   # id -> entry
    keep = []   # keep objects alive so ids stay unique

    def add(obj, path, kind, scan, owner=None):
        key = id(obj)
        e = byid.get(key)
        if e is None:
            keep.append(obj)
            e = {"paths": [], "kind": kind, "obj": obj, "owner": owner}
            byid[key] = e
        if path not in e["paths"]:
            e["paths"].append(path)
        return e

    attr_failures = []  # [{"module", "attribute", "error"}]

    def attr_failed(module, attribute, exc):
        attr_failures.append({"module": module, "attribute": attribute, "error": short_error(exc)})

    unattributed = set()  # public callables without a __module__ (numpy 1.x ufuncs): skipped as foreign
    classes = {}
    for modname in sorted(modules):
        mod = modules[modname]
        try:
            names = [n for n in dir(mod) if isinstance(n, str)]
        except BaseException as exc:  # noqa: BLE001 - one module's failure is data
            if isinstance(exc, KeyboardInterrupt):
                raise
            failures[modname] = "dir(): " + short_error(exc)
            continue
        try:
            exported = set(n for n in (getattr(mod, "__all__", None) or ()) if isinstance(n, str))
        except BaseException as exc:  # noqa: BLE001
            if isinstance(exc, KeyboardInterrupt):
                raise
            exported = set()
        for name in names:
            if name.startswith("_"):
                continue
            try:
                obj = getattr(mod, name)
                if obj is None or inspect.ismodule(obj):
                    continue
                counts["names"] += 1
                defining = getattr(obj, "__module__", None)
                if not isinstance(defining, str):
                    defining = ""
                if inspect.isclass(obj):
                    kind = "class"
                elif inspect.isroutine(obj) or callable(obj):
                    kind = "function"
                else:
                    counts["non_callable"] += 1
                    continue
            except BaseException as exc:  # noqa: BLE001 - a lazy object that raises on access is data
                if isinstance(exc, KeyboardInterrupt):
                    raise
                attr_failed(modname, name, exc)
                continue
            if defining.split(".")[0] != library:
                counts["foreign"] += 1
                if not defining:
                    unattributed.add(modname + "." + name)
                continue
            ent = add(obj, modname + "." + name, kind, modname)
            if name in exported:
                ent["exported"] = True
            if kind == "class":
                classes.setdefault(id(obj), (obj, []))[1].append(modname + "." + name)

    # Extension: public methods of public classes (functions defined in the library).
    for cls, cpaths in classes.values():
        try:
            names = [n for n in dir(cls) if isinstance(n, str)]
        except BaseException as exc:  # noqa: BLE001
            if isinstance(exc, KeyboardInterrupt):
                raise
            mod, _, attr = cpaths[0].rpartition(".")
            attr_failed(mod, attr, exc)
            continue
        for name in names:
            if name.startswith("_"):
                continue
            try:
                raw = inspect.getattr_static(cls, name)
                func = raw
                if isinstance(raw, (staticmethod, classmethod)):
                    func = raw.__func__
                if not inspect.isfunction(func):
                    try:
                        func = inspect.unwrap(func)
                    except Exception:  # noqa: BLE001
                        continue
                    if not inspect.isfunction(func):
                        continue
                fmod = getattr(func, "__module__", "") or ""
            except AttributeError:
                continue
            except BaseException as exc:  # noqa: BLE001
                if isinstance(exc, KeyboardInterrupt):
                    raise
                mod, _, attr = cpaths[0].rpartition(".")
                attr_failed(mod, attr + "." + name, exc)
                continue
            if not isinstance(fmod, str) or fmod.split(".")[0] != library:
                continue
            for cp in cpaths:
                e = add(func, cp + "." + name, "method", cp.rsplit(".", 1)[0], owner=cls)
                e.setdefault("static", isinstance(raw, staticmethod))

    entries = []
    for e in byid.values():
        try:
            rec = entry_record(e)
        except BaseException as exc:  # noqa: BLE001 - one object that raises on inspection is data
            if isinstance(exc, KeyboardInterrupt):
                raise
            mod, _, attr = e["paths"][0].rpartition(".")
            attr_failed(mod, attr, exc)
            continue
        entries.append(rec)
    entries.sort(key=lambda r: r["api_name"])
    counts["entries"] = len(entries)
    doc["entries"] = entries
    doc["counts"] = counts
    doc["unattributed"] = sorted(unattributed)
    doc["walk_failures"] = [{"module": k, "error": v} for k, v in sorted(failures.items())] + \
        sorted(attr_failures, key=lambda f: (f["module"], f["attribute"]))
    write(out_path, doc)
    return 0


def entry_record(e):
    """The surface record of one collected object (see the module docstring)."""
    obj = e.pop("obj")
    owner = e.pop("owner")
    kind = e["kind"]
    defining = getattr(obj, "__module__", "")
    if not isinstance(defining, str):
        defining = ""
    qualname = getattr(obj, "__qualname__", None)
    if not isinstance(qualname, str):
        qualname = None
    if kind == "method":
        defclass = (getattr(obj, "__qualname__", "") or "").rsplit(".", 1)[0]
        e["paths"].sort(key=lambda p: method_rank(p, defclass))
    else:
        e["paths"].sort(key=lambda p: path_rank(p, defining))
    api = e["paths"][0]
    sig, params = signature_of(obj, kind)
    src, line = source_of(obj)
    rec = {
        "api_name": api,
        "kind": kind,
        "module": api.rsplit(".", 2 if kind == "method" else 1)[0],
        "defining_module": defining,
        "qualname": qualname,
        "signature": sig,
        "parameters": params,
        "docstring": doc_of(obj),
        "source_file": normalise_path(src),
        "source_line": line,
        "paths": e["paths"],
    }
    if e.get("exported"):
        rec["exported"] = True
    if kind == "class":
        rec["class_role"] = class_role(obj)
    if kind == "method":
        rec["static"] = e.get("static", False)
        if isinstance(inspect.getattr_static(owner, api.rsplit(".", 1)[1], None), classmethod):
            rec["classmethod"] = True
    if kind == "function":
        try:
            inner = inspect.unwrap(obj)
        except Exception:  # noqa: BLE001
            inner = obj
        if not inspect.isfunction(inner):
            rec["other_callable"] = type(obj).__module__ + "." + type(obj).__qualname__
    return rec


def write(path, doc):
    d = os.path.dirname(path)
    if d:
        os.makedirs(d, exist_ok=True)
    with open(path + ".tmp", "w") as f:
        json.dump(doc, f)
    os.replace(path + ".tmp", path)


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv))
    except SystemExit:
        raise
    except BaseException:  # noqa: BLE001
        traceback.print_exc()
        sys.exit(1)
