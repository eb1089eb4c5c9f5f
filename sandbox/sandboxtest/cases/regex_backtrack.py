# P1: catastrophic backtracking inside the C regex engine; no Python-level
# signal handler can interrupt it, only a kill from outside.
import re
re.match(r'(a+)+$', 'a' * 40 + 'b')
print("finished?!")
