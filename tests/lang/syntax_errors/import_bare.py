# Syntax error: import bare (message and position checked against CPython 3.11; recorded with --ember).
import
