# P15: crosses the output budget and exits normally at once.
print("z" * 10**6)
