# weakref: ref with callbacks, WeakKeyDictionary, WeakValueDictionary, WeakSet, WeakMethod and
# finalize; entries disappear once gc.collect() has freed their referents.
import gc
import weakref
class Node:
    def __init__(self, name): self.name = name
    def __repr__(self): return f"Node({self.name})"
    def hello(self): return "hello from " + self.name
a = Node("a")
r = weakref.ref(a)
print(r() is a, r() .name, weakref.getweakrefcount(a), type(r).__name__, r == weakref.ref(a), hash(r) == hash(a))
died = []
b = Node("b")
rb = weakref.ref(b, lambda ref: died.append("b died"))
del b
gc.collect()
print(rb(), died)
wkd = weakref.WeakKeyDictionary()
k1, k2 = Node("k1"), Node("k2")
wkd[k1] = 1
wkd[k2] = 2
print(len(wkd), wkd[k1], k2 in wkd, sorted(n.name for n in wkd.keys()), sorted(wkd.values()))
del k2
gc.collect()
print(len(wkd), [n.name for n in wkd], wkd.get(k1))
wvd = weakref.WeakValueDictionary()
v1, v2 = Node("v1"), Node("v2")
wvd["one"] = v1
wvd["two"] = v2
print(len(wvd), wvd["one"], sorted(wvd.keys()), "two" in wvd)
del v2
gc.collect()
print(len(wvd), list(wvd.items()), wvd.get("two", "gone"))
try:
    wvd["two"]
except KeyError as e:
    print("KeyError:", e)
ws = weakref.WeakSet()
s1, s2 = Node("s1"), Node("s2")
ws.add(s1); ws.add(s2); ws.add(s1)
print(len(ws), s1 in ws, sorted(n.name for n in ws))
del s2
gc.collect()
print(len(ws), list(ws))
obj = Node("m")
wm = weakref.WeakMethod(obj.hello)
print(wm()(), wm() == obj.hello)
del obj
gc.collect()
print(wm())
f_obj = Node("f")
fin = weakref.finalize(f_obj, print, "finalizer ran for", "f")
print(fin.alive, fin.peek()[0])
del f_obj
gc.collect()
print(fin.alive)
g = Node("g")
fin2 = weakref.finalize(g, print, "called explicitly")
fin2()
fin2()
print(fin2.alive, fin2.detach())
kept = Node("kept")
weakref.finalize(kept, print, "finalizer at exit")
try:
    weakref.ref(1)
except TypeError as e:
    print("TypeError:", e)
try:
    weakref.ref("s")
except TypeError as e:
    print("TypeError:", e)
print("end of script")
