# P1/P5: a pure-Python infinite loop; progress printed first must survive (P14).
print("progress", flush=True)
while True:
    pass
