"""Find which older import paths the release notes name still exist (docs/protocol.md §7 Stage 2).

Usage: python3 -I -B oldnames.py NAMES.json [OUT.jsonl]

NAMES.json: {"bootstrap": "", "apis": [{"api_name", "old": [dotted paths]}, ...]}

Writes one JSON line per API to OUT (default /out/found.jsonl):
{"api_name", "found": [the paths of "old" that resolve to an object]}.
An API that does not resolve itself finds nothing. "bootstrap" (the
library's bootstrap, docs/environments.md §8) runs first. Resolution is
extract.py's (module path, then attributes); deprecation warnings raised
while resolving are ignored. Python 3.11+, standard library only.
"""

import json
import os
import sys
import warnings

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # -I leaves the script dir out
from extract import resolve  # noqa: E402


def found(api):
    try:
        resolve(api["api_name"])
    except Exception:  # noqa: BLE001 - an API that does not import finds nothing
        return []
    out = []
    for path in api.get("old") or []:
        try:
            resolve(path)
        except Exception:  # noqa: BLE001 - a removed name
            continue
        out.append(path)
    return out


def main(argv):
    with open(argv[1]) as f:
        cfg = json.load(f)
    out_path = argv[2] if len(argv) > 2 else "/out/found.jsonl"
    os.makedirs(os.path.dirname(out_path) or ".", exist_ok=True)
    warnings.simplefilter("ignore")
    if cfg.get("bootstrap"):
        try:
            exec(compile(cfg["bootstrap"], "<bootstrap>", "exec"), {"__name__": "__novelapi_bootstrap__"})
        except Exception:  # noqa: BLE001 - the names then resolve as far as they can
            pass
    with open(out_path, "w") as out:
        for api in cfg["apis"]:
            out.write(json.dumps({"api_name": api["api_name"], "found": found(api)}) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
