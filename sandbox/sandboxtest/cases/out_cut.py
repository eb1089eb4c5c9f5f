# Result.Outputs' per-file cap: three files of 5,000 bytes under a stream
# cap of 1,024 bytes come back cut, with the cut bytes counted.
for name in ("a", "b", "c"):
    with open("/out/" + name, "w") as f:
        f.write(name * 5000)
print("wrote 3")
