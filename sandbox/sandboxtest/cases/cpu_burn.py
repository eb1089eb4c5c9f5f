# Result.CPU: burns about half a second of CPU time (the kernel's count for
# this process), then exits 0. The backend must measure it from outside.
import time
start = time.process_time()
while time.process_time() - start < 0.5:
    pass
print("burned")
