# Memory hog: touches every page it allocates until the cgroup OOM-kills it.
chunks = []
while True:
    chunks.append(b"x" * (10 * 1024 * 1024))
