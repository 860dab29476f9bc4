x = f"{a!r!s}"
