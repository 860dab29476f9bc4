# Syntax error: alternatives of an or-pattern binding different names (checked against CPython 3.11).
match 1:
    case [a, b] | (c, d):
        pass
