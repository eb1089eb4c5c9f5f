# Result.PeakMem: holds about 200 MiB of written memory, then exits 0 well
# under the memory limit. The backend must measure the peak from outside.
data = b"\x01" * (200 * 1024 * 1024)
print(len(data) >> 20, "MiB")
