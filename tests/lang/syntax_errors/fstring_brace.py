# Syntax error: fstring brace (message and position checked against CPython 3.11; recorded with --ember).
f"{x"
