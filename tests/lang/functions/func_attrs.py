# Attributes on functions, __name__/__qualname__/__doc__/__module__/__dict__, recursion.
def f():
    "The docstring."
    return f.calls
f.calls = 3
f.extra = "x"
print(f(), f.__doc__, f.__name__, f.__module__, sorted(f.__dict__))
def nodoc(): pass
print(nodoc.__doc__)
f.__name__ = "renamed"
print(f.__name__, f.__qualname__)
class C:
    def method(self):
        "Method doc."
    class Inner:
        def deep(self): pass
print(C.method.__qualname__, C.Inner.deep.__qualname__, C.method.__doc__)
def fact(n): return 1 if n <= 1 else n * fact(n - 1)
print(fact(20))
def outer():
    def inner(): pass
    return inner
print(outer().__qualname__)
print(callable(f), type(f).__name__, type(C().method).__name__)
m = C().method
print(m.__func__ is C.method, type(m.__self__).__name__, m.__name__)
