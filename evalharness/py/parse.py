# novelapi batch parser (trusted; /job/parse.py). Reads the nonce from stdin
# and /job/parse.json {"cands": [str], "plans": [plan]}, answers whether each
# candidate parses with ast.parse (docs/protocol.md §3) and what the
# runner's own extraction yields for each plan, as records in
# /out/records.jsonl (start, parse, done) carrying the nonce.
import importlib.util
import json
import os
import sys


def main():
    nonce = sys.stdin.readline().strip()
    spec = importlib.util.spec_from_file_location("novelapi_runner", "/job/runner.py")
    runner = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(runner)
    with open("/job/parse.json") as f:
        job = json.load(f)
    out = open(os.path.join("/out", "records.jsonl"), "w")
    out.write(json.dumps({"type": "start", "nonce": nonce}) + "\n")
    rec = {"type": "parse", "nonce": nonce,
           "ok": [runner.parseable(c) for c in job.get("cands") or []],
           "extracted": [runner.extract(p) for p in job.get("plans") or []]}
    out.write(json.dumps(rec) + "\n")
    out.write(json.dumps({"type": "done", "nonce": nonce, "n": 2}) + "\n")
    out.close()


main()
