# P19: 200 children that are never waited for.
import os, time
for _ in range(200):
    if os.fork() == 0:
        os._exit(0)
time.sleep(1)
print("parent done")
