# Syntax error: dedent (message and position checked against CPython 3.11; recorded with --ember).
class C:
    x = 1
  y = 2
