# Syntax error: class bad (message and position checked against CPython 3.11; recorded with --ember).
class A(:
    pass
