# __repr__ and __str__: which one print, str(), repr(), f-strings and containers use.
class Both:
    def __repr__(self): return "Both-repr"
    def __str__(self): return "Both-str"
class ReprOnly:
    def __repr__(self): return "ReprOnly-repr"
class StrOnly:
    def __str__(self): return "StrOnly-str"
b, r = Both(), ReprOnly()
print(b, r, str(b), repr(b), str(r), f"{b} {b!r} {r}", [b, r], (b,), {"k": b})
s = StrOnly()
print(s, str(s), repr(s).startswith("<__main__.StrOnly object at 0x"))
class BadRepr:
    def __repr__(self): return 42
try:
    repr(BadRepr())
except TypeError as e:
    print("TypeError:", e)
class BadStr:
    def __str__(self): return None
try:
    str(BadStr())
except TypeError as e:
    print("TypeError:", e)
print(repr(object()).startswith("<object object at 0x"), repr(Both).endswith("Both'>"))
print(str(Both), repr(int), repr(len), repr(None), repr(...), repr(NotImplemented))
class Sub(Both):
    pass
print(Sub(), [Sub()])
