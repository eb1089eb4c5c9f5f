# P13: gigabytes of stdout; the harness keeps a capped prefix, counts the
# rest and kills the run at the total output budget.
import sys
chunk = "y" * 65536 + "\n"
while True:
    sys.stdout.write(chunk)
