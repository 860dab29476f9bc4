# Subclasses of list, dict, tuple and Exception (str/int subclasses: see unsupported_bases.py).
class MyList(list):
    def sum(self): return sum(self)
    def append(self, x):
        print("append", x)
        super().append(x)
l = MyList([1, 2])
l.append(3)
l.extend([4])
print(l, l.sum(), len(l), type(l).__name__, isinstance(l, list), l[1:], type(l[1:]).__name__)
l.tag = "tagged"
print(l.tag, l == [1, 2, 3, 4], MyList() == [])
class DefaultDict(dict):
    def __missing__(self, key):
        self[key] = key * 2
        return self[key]
dd = DefaultDict(a=1)
print(dd["a"], dd["bb"], dd, len(dd), "bb" in dd)
class Attr(dict):
    def __getattr__(self, k):
        try:
            return self[k]
        except KeyError:
            raise AttributeError(k)
a = Attr(x=1)
print(a.x, a, isinstance(a, dict))
class Pair(tuple):
    def first(self): return self[0]
pr = Pair((1, 2))
print(pr, pr.first(), len(pr), pr == (1, 2))
class AppError(Exception):
    def __init__(self, code, msg):
        super().__init__(msg)
        self.code = code
try:
    raise AppError(404, "not found")
except Exception as e:
    print(type(e).__name__, e.code, e, e.args, repr(e))
class Plain(ValueError): pass
try:
    raise Plain("p", 2)
except ValueError as e:
    print(repr(e), str(e))
class WithStr(Exception):
    def __str__(self): return "custom str"
print(WithStr("ignored"), repr(WithStr("x")))
