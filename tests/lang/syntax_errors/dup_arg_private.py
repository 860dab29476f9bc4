# Syntax error: `__a` and `_Box__a` are the same parameter inside class Box; CPython names
# the duplicate as written (message and position checked against CPython 3.11; recorded
# with --ember).
class Box:
    def method(self, __a, _Box__a):
        pass
