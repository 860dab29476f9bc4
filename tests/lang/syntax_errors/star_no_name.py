# Syntax error: star no name (message and position checked against CPython 3.11; recorded with --ember).
def f(*):
    pass
