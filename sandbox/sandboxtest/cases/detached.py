# P16/P17: descendants in their own sessions outlive the main program; one
# holds stdout open. Run must return promptly and nothing may survive.
import os, subprocess, sys
subprocess.Popen(["sleep", "613"], stdout=sys.stdout, start_new_session=True)
subprocess.Popen(["sh", "-c", "while :; do :; done"], start_new_session=True)
if os.fork() == 0:
    os.setsid()
    while True:
        pass
print("done")
