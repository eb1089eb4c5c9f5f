# P25 variant: forks until the pids limit refuses a fork, then exits 0
# while the children still sleep. The refusal alone must show as
# PIDLimitHit, LimitHit "pids" (no timeout to mask it).
import os, time
n = 0
while True:
    try:
        pid = os.fork()
    except OSError:
        break
    if pid == 0:
        time.sleep(60)
        os._exit(0)
    n += 1
print("forked", n)
