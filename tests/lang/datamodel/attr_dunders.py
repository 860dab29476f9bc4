# __getattr__ (fallback only), __getattribute__, __setattr__, __delattr__.
class Dyn:
    def __init__(self):
        self.real = "real value"
    def __getattr__(self, name):
        if name.startswith("x"):
            return "dynamic " + name
        raise AttributeError(f"no {name}")
d = Dyn()
print(d.real, d.xyz, getattr(d, "xa"), hasattr(d, "nope"), getattr(d, "nope", "default"))
try:
    d.nope
except AttributeError as e:
    print("AttributeError:", e)
class Guard:
    def __setattr__(self, name, value):
        print("setattr", name, value)
        if name == "frozen":
            raise AttributeError("frozen is read-only")
        object.__setattr__(self, name, value * 2)
    def __delattr__(self, name):
        print("delattr", name)
        object.__delattr__(self, name)
g = Guard()
g.a = 5
print(g.a, g.__dict__)
try:
    g.frozen = 1
except AttributeError as e:
    print("AttributeError:", e)
del g.a
print(hasattr(g, "a"))
setattr(g, "b", 1)
delattr(g, "b")
class Logged:
    def __getattribute__(self, name):
        if name != "__class__":
            print("getattribute", name)
        return object.__getattribute__(self, name)
    def method(self):
        return "m"
lg = Logged()
lg.field = 3
print(lg.field, lg.method())
class Plain: pass
p = Plain()
try:
    p.missing
except AttributeError as e:
    print("AttributeError:", e)
try:
    del p.missing
except AttributeError as e:
    print("AttributeError:", e)
try:
    Plain.missing
except AttributeError as e:
    print("AttributeError:", e)
try:
    (1).real = 5
except AttributeError as e:
    print("AttributeError:", e)
try:
    object().x = 1
except AttributeError as e:
    print("AttributeError:", e)
try:
    None.foo
except AttributeError as e:
    print("AttributeError:", e)
