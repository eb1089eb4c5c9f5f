# /out is bounded in files (the bug: 100,000 files on the host's disk, of
# which the harness read 256). Creates one-byte files in /out until the
# file system refuses, or 100,000 when nothing does, then says where it
# stopped.
import errno
n, stop = 0, "nothing"
try:
    while n < 100000:
        with open("/out/%06d" % n, "wb", buffering=0) as f:
            f.write(b"y")
        n += 1
except OSError as e:
    stop = errno.errorcode.get(e.errno, str(e.errno))
print("created", n, "files; stopped by", stop)
