x = f"{a
b}"
