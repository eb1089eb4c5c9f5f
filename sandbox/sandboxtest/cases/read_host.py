# Host files outside the root filesystem are invisible.
import os
p = os.environ["HOST_FILE"]
try:
    print("read", open(p).read())
except OSError:
    print("invisible")
print("host-root-listing", sorted(os.listdir("/"))[:50])
