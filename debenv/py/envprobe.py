"""Report what an environment really holds, run inside it by novelapi env build.

argv[1] is a JSON list of {"name", "packages", "import"} objects: each
requested library, the Debian packages installed for it, and the module to
import to check it ("" means the library's main top-level module). Prints one
JSON object on stdout:

{"python": "3.13.5",
 "libraries": {name: {"dist": str, "version": str, "source": str,
                      "imports": [str], "import": str, "error": str}}}

Everything comes from the packages' own files: dpkg's file list of each
package (/var/lib/dpkg/info/PKG.list) gives its dist-info or egg-info
directory and its top-level modules; the metadata gives the distribution
name and version; top_level.txt or RECORD, when Debian kept them, give the
import names. source is "metadata" or "__version__" (no metadata: the
module's __version__). error says why the library is unusable: its packages
install no Python module, or the import failed.
"""
import importlib
import importlib.metadata
import json
import os
import pathlib
import platform
import re
import sys

DPKG_INFO = "/var/lib/dpkg/info"
# Site directories of Debian's Python 3 (Debian Python Policy §1.5).
SITE_RE = re.compile(r"^/usr/lib/python3(\.\d+)?/dist-packages/")
SKIP_TOP = {"__pycache__", "tests", "test", "docs", "doc", "examples", "benchmarks"}


def normalize(name):
    """PEP 503 normalization of a distribution name."""
    return re.sub(r"[-_.]+", "-", name).lower()


def package_files(pkg):
    """Paths dpkg lists for pkg (PKG.list or PKG:ARCH.list); None if absent."""
    names = [pkg + ".list"]
    try:
        names += sorted(n for n in os.listdir(DPKG_INFO) if n.startswith(pkg + ":") and n.endswith(".list"))
    except OSError:
        return None
    for n in names:
        p = os.path.join(DPKG_INFO, n)
        if os.path.exists(p):
            with open(p, encoding="utf-8", errors="replace") as f:
                return [line.rstrip("\n") for line in f if line.strip()]
    return None


def module_name(entry, is_dir, files_below):
    """The import name of a top-level site-packages entry, or None."""
    if is_dir:
        if entry.endswith((".dist-info", ".egg-info")) or "." in entry:
            return None
        return entry if files_below else None
    for suffix in (".py",):
        if entry.endswith(suffix):
            return entry[: -len(suffix)]
    if entry.endswith(".so"):
        return entry.split(".", 1)[0]
    return None


def top_levels(files):
    """Top-level entries below the site directories: (metadata dirs, modules)."""
    meta, below = [], {}
    for f in files:
        m = SITE_RE.match(f)
        if not m:
            continue
        rest = f[m.end():]
        if not rest:
            continue
        head, sep, tail = rest.partition("/")
        site = f[: m.end()]
        if head.endswith((".dist-info", ".egg-info")):
            p = site + head
            if p not in meta:
                meta.append(p)
            continue
        entry = below.setdefault(head, [site, False, False])
        if sep:
            entry[1] = True  # a directory
            if tail.endswith((".py", ".so")):
                entry[2] = True
    mods = []
    for head, (site, is_dir, has_code) in sorted(below.items()):
        if not is_dir and os.path.isdir(site + head):
            is_dir = True  # dpkg lists the directory itself on its own line too
        name = module_name(head, is_dir, has_code)
        if name and name.isidentifier() and name not in mods:
            mods.append(name)
    return meta, mods


def read_dist(path):
    """(name, version, top-level import names) of a dist-info or egg-info path."""
    d = importlib.metadata.PathDistribution(pathlib.Path(path))
    name = d.metadata["Name"] if d.metadata is not None else None
    tops = []
    txt = d.read_text("top_level.txt")
    if txt:
        tops = [t.strip().replace("/", ".") for t in txt.splitlines() if t.strip()]
    else:
        rec = d.read_text("RECORD")
        for line in (rec or "").splitlines():
            head = line.split(",", 1)[0].split("/", 1)
            top = head[0]
            if len(head) == 1:
                top = module_name(top, False, False)
            if top and top.isidentifier() and top not in tops and not top.endswith(("-info",)):
                tops.append(top)
    return name, d.version, tops


def choose_import(cands, wanted):
    """The library's main module among cands: the one named like the
    library, its package or its distribution, else the first public one."""
    public = [c for c in cands if not c.startswith("_") and c not in SKIP_TOP]
    pool = public or cands
    keys = {normalize(w).replace("-", "_") for w in wanted if w}
    for c in pool:
        if c.lower() in keys:
            return c
    for c in pool:
        if any(k.startswith(c.lower()) or c.lower().startswith(k) for k in keys):
            return c
    return pool[0] if pool else ""


def probe(lib):
    out = {"dist": "", "version": "", "source": "", "imports": [], "import": "", "error": ""}
    files, missing = [], []
    for pkg in lib["packages"]:
        fl = package_files(pkg)
        if fl is None:
            missing.append(pkg)
        else:
            files += fl
    if missing:
        out["error"] = "package %s is not installed" % ", ".join(missing)
        return out
    meta, mods = top_levels(files)
    wanted = [lib["name"]] + [p.removeprefix("python3-") for p in lib["packages"]]
    dists = []
    for m in meta:
        try:
            dists.append(read_dist(m))
        except Exception as e:  # noqa: BLE001 - broken metadata is a fact to report
            out["error"] = "read %s: %s: %s" % (m, type(e).__name__, e)
    if dists:
        keys = {normalize(w) for w in wanted}
        dists.sort(key=lambda d: (normalize(d[0] or "") not in keys, not d[2]))
        name, version, tops = dists[0]
        out["dist"], out["version"], out["source"] = name or "", version or "", "metadata"
        for t in tops:
            if t not in out["imports"]:
                out["imports"].append(t)
    for m in mods:
        if m not in out["imports"] and not any(m == i.split(".")[0] for i in out["imports"]):
            out["imports"].append(m)
    if not out["imports"]:
        out["error"] = "package %s installs no Python module (no files under /usr/lib/python3/dist-packages)" % ", ".join(lib["packages"])
        return out
    out["error"] = ""
    out["import"] = lib.get("import") or choose_import(out["imports"], wanted + [out["dist"]])
    try:
        mod = importlib.import_module(out["import"])
    except BaseException as e:  # noqa: BLE001 - report any failure as a fact
        out["error"] = "import %s: %s: %s" % (out["import"], type(e).__name__, str(e).splitlines()[0] if str(e) else "")
        return out
    if not out["version"]:
        top = sys.modules.get(out["import"].split(".")[0], mod)
        v = getattr(top, "__version__", "")
        if v:
            out["version"], out["source"] = str(v), "__version__"
    return out


def main():
    libs = json.loads(sys.argv[1])
    # What imported code prints goes to stderr: stdout carries only the report.
    sys.stdout.flush()
    report = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    res = {"python": platform.python_version(), "libraries": {}}
    for lib in libs:
        res["libraries"][lib["name"]] = probe(lib)
    json.dump(res, report)
    report.write("\n")
    report.flush()


main()
