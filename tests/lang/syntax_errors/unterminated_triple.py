# Syntax error: unterminated triple (message and position checked against CPython 3.11; recorded with --ember).
s = '''abc
