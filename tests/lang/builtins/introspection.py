# isinstance, issubclass, type, id, hash, callable, getattr/setattr/hasattr/delattr, vars, dir.
class A:
    cls_attr = 1
    def m(self): pass
class B(A): pass
b = B()
print(isinstance(b, A), isinstance(b, (int, B)), isinstance(1, bool), isinstance(True, int), isinstance(b, ()))
print(issubclass(B, A), issubclass(A, B), issubclass(B, (str, A)), issubclass(bool, (int,)), issubclass(A, object))
print(type(b) is B, type(1), type("s"), type([]), type(type), type(None), type(A.m), type(b.m))
print(id(b) == id(b), id(b) != id(B()), hash(1) == hash(1.0), callable(A), callable(b), callable(b.m))
setattr(b, "x", 5)
print(getattr(b, "x"), getattr(b, "y", "dflt"), hasattr(b, "x"), hasattr(b, "cls_attr"), hasattr(b, "nope"))
delattr(b, "x")
print(hasattr(b, "x"), vars(b), sorted(vars(A).keys() - {"__module__", "__dict__", "__weakref__", "__doc__", "__qualname__"}))
print([n for n in dir(b) if not n.startswith("__")], "m" in dir(B), "cls_attr" in dir(b))
C = type("C", (A,), {"z": 3, "get": lambda self: self.z})
print(C.__name__, C().get(), C.cls_attr, issubclass(C, A), type(C) is type)
for bad in [lambda: isinstance(1, 2), lambda: issubclass(1, int), lambda: getattr(b, "nope"),
            lambda: getattr(b, 5), lambda: delattr(b, "zzz"), lambda: vars(5), lambda: type(1, 2)]:
    try:
        bad()
    except (TypeError, AttributeError) as e:
        print(type(e).__name__ + ":", e)
