# del of names, attributes, subscripts and slices; deleting unbound names.
x = 1
y = [1, 2, 3, 4, 5]
class O: pass
o = O()
o.a = 1
o.b = 2
d = {"k": 1, "j": 2}
del x, o.a, d["k"], y[0], y[1:3]
print("x" in dir(), hasattr(o, "a"), o.b, d, y)
try:
    print(x)
except NameError as e:
    print("NameError:", e)
try:
    del x
except NameError as e:
    print("NameError:", e)
def f():
    v = 1
    del v
    try:
        del v
    except UnboundLocalError as e:
        print("UnboundLocalError:", e)
    try:
        return v
    except UnboundLocalError as e:
        print("UnboundLocalError:", e)
f()
a, b = [1, 2], {"x": 1}
del (a[0], b["x"])
print(a, b)
try:
    del d["missing"]
except KeyError as e:
    print("KeyError:", e)
try:
    del y[10]
except IndexError as e:
    print("IndexError:", e)
try:
    del o.nope
except AttributeError as e:
    print("AttributeError:", e)
def g():
    global gone
    gone = 1
    del gone
g()
print("gone" in globals())
lst = list(range(10))
del lst[::2]
print(lst)
