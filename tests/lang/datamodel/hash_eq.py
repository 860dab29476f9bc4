# __hash__ and __eq__: dict/set keys, unhashable types, __eq__ without __hash__.
class Key:
    def __init__(self, k): self.k = k
    def __eq__(self, o): return isinstance(o, Key) and self.k == o.k
    def __hash__(self): return hash(self.k)
    def __repr__(self): return f"Key({self.k!r})"
d = {Key(1): "one", Key("a"): "A"}
print(d[Key(1)], d[Key("a")], Key(1) in d, Key(2) in d, len({Key(1), Key(1), Key(2)}))
class EqOnly:
    def __eq__(self, o): return True
print(EqOnly.__hash__)
try:
    hash(EqOnly())
except TypeError as e:
    print("TypeError:", e)
try:
    {EqOnly()}
except TypeError as e:
    print("TypeError:", e)
for bad in ([], {}, set()):
    try:
        hash(bad)
    except TypeError as e:
        print("TypeError:", e)
try:
    {[1]: 2}
except TypeError as e:
    print("TypeError:", e)
try:
    hash((1, [2]))
except TypeError as e:
    print("TypeError:", e)
class Plain: pass
p = Plain()
print(hash(p) == hash(p), p == p, {p: 1}[p])
print(hash(1) == hash(1.0) == hash(True), hash(0) == hash(0.0) == hash(False), {1: "a", 1.0: "b"})
print(hash("abc") == hash("abc"), hash((1, 2)) == hash((1, 2)), hash(frozenset([1, 2])) == hash(frozenset([2, 1])))
class Unhashable:
    __hash__ = None
try:
    hash(Unhashable())
except TypeError as e:
    print("TypeError:", e)
class BadHash:
    def __hash__(self): return "no"
try:
    hash(BadHash())
except TypeError as e:
    print("TypeError:", e)
print(hash(-1), hash(-2), hash(2**61 - 1), hash(2**61), hash(1.5), hash(-0.5), hash(1e100), hash(float("inf")))
print(hash(()), hash((1,)), hash((1, 2, 3)), hash(("a" if False else 1, (2, 3))), hash(None) == hash(None))
