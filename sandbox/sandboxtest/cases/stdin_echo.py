import sys
print("got", sys.stdin.read().strip())
