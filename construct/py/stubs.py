# Shared by taskgen.py and llmgen.py (copied beside them into /job): resolve
# a target API and replace it, with every alias in its packages, by a stub.
import contextlib
import importlib
import sys


def run_bootstrap(code):
    """Run the library's bootstrap (docs/environments.md §8) before anything
    imports the library; a failure shows later, where the import fails."""
    if not code:
        return
    try:
        exec(compile(code, "<novelapi bootstrap>", "exec"), {"__name__": "__main__"})
    except Exception:
        pass


def resolve(api_name):
    """(parent, leaf, object) of api_name, importing its longest module prefix."""
    parts = api_name.split(".")
    for i in range(len(parts), 0, -1):
        try:
            mod = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        parent = mod
        for p in parts[i:-1]:
            parent = getattr(parent, p)
        return parent, parts[-1], getattr(parent, parts[-1])
    raise ImportError("cannot import any prefix of " + api_name)


@contextlib.contextmanager
def stubbed(api_name, stub):
    """Replace the target and every alias of it in its packages by stub."""
    parent, leaf, orig = resolve(api_name)
    tops = {getattr(parent, "__name__", "").split(".")[0], (getattr(orig, "__module__", None) or "").split(".")[0]}
    patched = []
    for name, m in list(sys.modules.items()):
        if m is None or name.split(".")[0] not in tops:
            continue
        try:
            items = list(vars(m).items())
        except Exception:
            continue
        for attr, val in items:
            if val is orig:
                try:
                    setattr(m, attr, stub)
                    patched.append((m, attr))
                except Exception:
                    pass
    try:
        if getattr(parent, leaf) is orig:
            setattr(parent, leaf, stub)
            patched.append((parent, leaf))
    except Exception:
        pass
    try:
        yield
    finally:
        for obj, attr in patched:
            try:
                setattr(obj, attr, orig)
            except Exception:
                pass
