# P13 (piston PR #643): one write straddling the cap is cut exactly.
print("h" * 5000)
