# novelapi importers: the public callables a leaf name may stand for
# (trusted; /job/candidates.py). Reads /job/job.json {"leaves": [...],
# "modules": [...], "classes": [...]} and writes /out/candidates.json
# {leaf: [dotted path, ...]}: "<module>.<leaf>" for each module that has a
# callable of that name, "<class>.<leaf>" for each class whose attribute of
# that name (its own or inherited, not object's) is callable. A module or
# class that does not import is skipped. stdout is not used.
import importlib
import inspect
import json


def resolve(path):
    parts = path.split(".")
    for i in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        for p in parts[i:]:
            obj = getattr(obj, p)
        return obj
    raise ImportError(path)


def main():
    with open("/job/job.json") as f:
        job = json.load(f)
    mods, classes = [], []
    for path in job.get("modules") or []:
        try:
            mods.append((path, resolve(path)))
        except Exception:
            pass
    for path in job.get("classes") or []:
        try:
            c = resolve(path)
            if isinstance(c, type):
                classes.append((path, c))
        except Exception:
            pass
    out = {}
    for leaf in job.get("leaves") or []:
        found = []
        for path, m in mods:
            if callable(getattr(m, leaf, None)):
                found.append(path + "." + leaf)
        for path, c in classes:
            try:
                raw = inspect.getattr_static(c, leaf)
            except AttributeError:
                continue
            if getattr(object, leaf, None) is raw:
                continue
            v = getattr(c, leaf, None)
            if callable(v) or isinstance(raw, property):
                found.append(path + "." + leaf)
        out[leaf] = found
    with open("/out/candidates.json", "w") as f:
        json.dump(out, f)


if __name__ == "__main__":
    main()
