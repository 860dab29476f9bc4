x = f"{a b c}"
