# Signalling the parent and every process we may see: harmless to the host.
import os, signal
print("ppid", os.getppid(), flush=True)
try:
    os.kill(os.getppid(), signal.SIGKILL)
except OSError as e:
    print("kill ppid:", e, flush=True)
try:
    os.kill(-1, signal.SIGKILL)
except OSError as e:
    print("kill -1:", e, flush=True)
print("still here", flush=True)
