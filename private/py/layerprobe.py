"""Check that private libraries load from their layer, run inside it by novelapi add.

argv[1] is a JSON list of {"name", "dist", "import"} objects: each library
the layer installs, its distribution name and its main import name. Prints
one JSON object on stdout:

{"python": "3.13.5", "machine": "x86_64",
 "libraries": {name: {"version": str, "file": str, "error": str}}}

version is the distribution version importlib.metadata reads (the layer's
dist-info); file is where the main module was imported from, so a caller can
tell the layer's copy from a Debian one; error is the import's failure, its
traceback shortened to the last frames and the exception line.
"""
import importlib
import importlib.metadata
import json
import platform
import sys
import traceback


def short_traceback(exc):
    lines = traceback.format_exception(type(exc), exc, exc.__traceback__)
    text = "".join(lines).rstrip().splitlines()
    if len(text) > 12:
        text = text[:1] + ["  ..."] + text[-10:]
    return "\n".join(text)


def main():
    libs = json.loads(sys.argv[1])
    out = {"python": platform.python_version(), "machine": platform.machine(), "libraries": {}}
    for lib in libs:
        r = {"version": "", "file": "", "error": ""}
        try:
            r["version"] = importlib.metadata.version(lib["dist"])
        except Exception as e:  # noqa: BLE001 - reported, not raised
            r["error"] = "no metadata for %s: %s" % (lib["dist"], e)
        try:
            mod = importlib.import_module(lib["import"])
            r["file"] = getattr(mod, "__file__", "") or ""
        except BaseException as e:  # noqa: BLE001 - SystemExit in a module counts too
            r["error"] = "import %s failed:\n%s" % (lib["import"], short_traceback(e))
        out["libraries"][lib["name"]] = r
    json.dump(out, sys.stdout)


main()
