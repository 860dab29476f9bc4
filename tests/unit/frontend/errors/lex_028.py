x = f"abc
