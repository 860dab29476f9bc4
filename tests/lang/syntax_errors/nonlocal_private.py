# Syntax error: a nonlocal private name with no binding is reported by its mangled name, as
# CPython does (message and position checked against CPython 3.11; recorded with --ember).
class Box:
    def method(self):
        def inner():
            nonlocal __missing
        return inner
