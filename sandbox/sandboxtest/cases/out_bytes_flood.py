# /out is bounded in bytes (the bug: a host directory without a cap took
# 2.1 GiB in 8 s). Writes 8 MiB files into /out until the file system
# refuses, or 2 GiB when nothing does, then says where it stopped. The
# host's disk and the harness's memory must stay bounded.
import errno
chunk = b"x" * (1 << 20)
total, files, stop = 0, 0, "nothing"
try:
    while total < (2 << 30):
        with open("/out/f%05d" % files, "wb", buffering=0) as f:
            files += 1
            for _ in range(8):
                total += f.write(chunk)
except OSError as e:
    stop = errno.errorcode.get(e.errno, str(e.errno))
print("stored", total, "bytes in", files, "files; stopped by", stop)
