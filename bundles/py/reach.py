"""Run one example as __main__ and record whether it ran the API's own code (docs/protocol.md
§7 Stage 2: an example found by name in documentation pages or tests is served only when it
reaches the API object itself).

Usage: python3 -I -B reach.py CODES.json EXAMPLE.py REPORT

CODES.json lists the API's code objects as [co_filename, co_firstlineno, co_name] triples (a
function's, or the methods a class defines itself), or is {"codes": [...], "record": DIR}.
REPORT is written with "reached" as soon as one of the codes starts running. With "record",
REPORT.codes is written when the example ends (returns, raises or exits) with the JSON list of
every code object under DIR that started, as such triples: one run of a test tells which APIs
of the library it reaches. The example runs as a script would under python3 -I: its exit
status, output and traceback are its own. Python 3.11+ (sys.monitoring where there is one,
else a profile hook), standard library only.
"""

import atexit
import json
import runpy
import sys
import threading


def main(argv):
    with open(argv[1]) as f:
        spec = json.load(f)
    if isinstance(spec, list):
        spec = {"codes": spec}
    codes = {tuple(c) for c in spec.get("codes") or []}
    record = spec.get("record") or None
    path, report = argv[2], argv[3]
    reached = []
    started = set()

    def hit(code):
        key = (code.co_filename, code.co_firstlineno, code.co_name)
        if record and key[0].startswith(record):
            started.add(key)
        if not reached and key in codes:
            reached.append(True)
            with open(report, "w") as f:
                f.write("reached")

    if record:
        def write_started():
            with open(report + ".codes", "w") as f:
                json.dump(sorted(started), f)

        atexit.register(write_started)

    mon = getattr(sys, "monitoring", None)
    if mon is not None:
        tool = next((t for t in range(mon.PROFILER_ID, 6) if mon.get_tool(t) is None), None)
    if mon is not None and tool is not None:
        mon.use_tool_id(tool, "novelapi-reach")

        def start(code, _offset):
            hit(code)
            return mon.DISABLE  # each code object is looked at once

        mon.register_callback(tool, mon.events.PY_START, start)
        mon.set_events(tool, mon.events.PY_START)
    else:
        def profile(frame, event, _arg):
            if event == "call":
                hit(frame.f_code)

        threading.setprofile(profile)
        sys.setprofile(profile)
    sys.argv = [path]
    runpy.run_path(path, run_name="__main__")


if __name__ == "__main__":
    main(sys.argv)
