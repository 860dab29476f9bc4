# Regression: a class's own __getattribute__ was never called (attribute loads went straight to
# the generic lookup).
class Upper:
    def __init__(self):
        self.name = "ember"
    def __getattribute__(self, attr):
        v = object.__getattribute__(self, attr)
        return v.upper() if isinstance(v, str) else v
    def __getattr__(self, attr):
        return "fallback " + attr
u = Upper()
print(u.name, u.missing, getattr(u, "name"))
