"""Report what an environment really holds, run inside it by novelapi env build.

argv[1] is a JSON list of {"name", "import", "dist"} objects (the requested
catalogue libraries). Prints one JSON object on stdout:
{"python": "3.13.5", "libraries": {name: {"version": str, "source": str, "error": str}}}
where source is "importlib.metadata" or "__version__" (when the distribution
has no metadata) and error is set when the import failed.
"""
import importlib
import importlib.metadata
import json
import platform
import sys


def probe(lib):
    out = {"version": "", "source": "", "error": ""}
    try:
        mod = importlib.import_module(lib["import"])
    except BaseException as e:  # noqa: BLE001 - report any failure as a fact
        out["error"] = "import %s: %s: %s" % (lib["import"], type(e).__name__, e)
        mod = None
    try:
        out["version"] = importlib.metadata.version(lib["dist"])
        out["source"] = "importlib.metadata"
    except importlib.metadata.PackageNotFoundError:
        top = sys.modules.get(lib["import"].split(".")[0])
        v = getattr(top, "__version__", "") if top is not None else ""
        if v:
            out["version"] = str(v)
            out["source"] = "__version__"
    return out


def main():
    libs = json.loads(sys.argv[1])
    res = {"python": platform.python_version(), "libraries": {}}
    for lib in libs:
        res["libraries"][lib["name"]] = probe(lib)
    json.dump(res, sys.stdout)
    sys.stdout.write("\n")


main()
