# __name__, __qualname__, __class__, __dict__, __doc__, __module__, __bases__ on every kind.
class Doc:
    """Class doc."""
    attr = 1
    def m(self):
        """Method doc."""
d = Doc()
print(Doc.__name__, Doc.__qualname__, Doc.__doc__, Doc.__module__, d.__class__ is Doc)
print(d.__dict__, Doc.m.__doc__, d.m.__doc__, Doc.__class__ is type, type(Doc) is type)
d.x = 5
print(d.__dict__, vars(d), type(d).__name__, d.__class__.__class__.__name__)
print(int.__name__, str.__doc__ is not None if False else "", len.__name__, [].__class__.__name__)
print(type(None).__name__, type(...).__name__, type(NotImplemented).__name__, type(type).__name__)
print(__name__, Doc.__bases__, object.__bases__, bool.__bases__, Doc.__mro__)
class NoDoc: pass
print(NoDoc.__doc__, NoDoc().__doc__)
import math
print(math.__name__, type(math).__name__)
def f(): pass
print(f.__class__.__name__, (lambda: 0).__name__, f.__dict__)
class Swap: pass
class Other: pass
s = Swap()
s.__class__ = Other
print(type(s).__name__)
print(sorted(k for k in Doc.__dict__ if not k.startswith("__") or k == "__doc__"))
d.__dict__["via_dict"] = "yes"
print(d.via_dict)
