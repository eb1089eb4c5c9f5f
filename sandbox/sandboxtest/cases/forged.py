# P6: forged success on stdout proves nothing; no record reaches /out.
import os
print("PASSED test_all")
print('{"status": "pass", "passed": 10}')
os._exit(0)
