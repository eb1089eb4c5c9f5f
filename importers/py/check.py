# novelapi importers: reference check driver (trusted; /job/check.py).
#
# Reads /job/job.json {"programs": [[name, code], ...], "timeout": seconds}
# and runs each program in a forked child with fresh globals, so that one
# program's patches (setattr onto a package) never leak into the next, as
# the original CodeUpdateArena test bed runs each unit test in its own
# process. Each child writes /out/<i>.json {"ok", "exc", "msg", "tb"}; the
# parent writes /out/done.json {"n": programs run}. stdout is not used.
import json
import os
import signal
import sys
import traceback


def child(i, code, timeout):
    def alarm(signum, frame):
        raise TimeoutError("program exceeded %ss" % timeout)
    signal.signal(signal.SIGALRM, alarm)
    signal.alarm(timeout)
    rec = {"ok": True}
    try:
        exec(compile(code, "_solution.py", "exec", dont_inherit=True), {"__name__": "__main__"})
    except BaseException as e:
        tb = traceback.format_exception(e)
        rec = {"ok": False, "exc": type(e).__name__, "msg": str(e)[:500], "tb": "".join(tb)[-1500:]}
    signal.alarm(0)
    try:
        with open("/out/%d.json" % i, "w") as f:
            json.dump(rec, f)
    except BaseException:
        pass
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except BaseException:
        pass
    os._exit(0 if rec["ok"] else 1)


def main():
    with open("/job/job.json") as f:
        job = json.load(f)
    timeout = int(job.get("timeout") or 15)
    # Import the package once in the parent: children inherit it through
    # fork, and each child still patches only its own copy.
    for name in job.get("preload") or []:
        try:
            __import__(name)
        except BaseException:
            pass
    n = 0
    for i, (name, code) in enumerate(job["programs"]):
        pid = os.fork()
        if pid == 0:
            child(i, code, timeout)
        os.waitpid(pid, 0)
        n += 1
    with open("/out/done.json", "w") as f:
        json.dump({"n": n}, f)


if __name__ == "__main__":
    main()
