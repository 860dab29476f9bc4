# dict methods and operations; insertion order; views.
d = {"b": 2, "a": 1}
d["c"] = 3
print(d, list(d), list(d.keys()), list(d.values()), list(d.items()), len(d))
print(d.get("a"), d.get("z"), d.get("z", 0), d.setdefault("a", 9), d.setdefault("e", 5), d)
print(d.pop("e"), d.pop("zz", "dflt"), d.popitem(), d)
d.update({"x": 1}, y=2); d.update([("z", 3)]); d.update(w=4)
print(d)
d["a"] = 100
print(d, "a" in d, "q" not in d, d == {"a": 100, "b": 2, "x": 1, "y": 2, "z": 3, "w": 4})
del d["b"]
c = d.copy(); c["new"] = 1
print(d, c, dict.fromkeys("ab"), dict.fromkeys([1, 2], 0), {**d, "a": 0})
print(d | {"q": 1}, {1: 1} == {1: 1.0}, {}.get(1), {(1, 2): "t"}[(1, 2)])
d |= {"m": 5}; print(d)
ks = d.keys()
d["late"] = 0
print(ks, len(ks), "late" in ks, d.values(), d.items())
print(sorted({3: 1, 1: 2}.items()), list(reversed({"x": 1, "y": 2})), {"k": [1]}["k"][0])
print(d.keys() & {"a", "m"} == {"a", "m"}, sorted(d.keys() - {"a"}), sorted({"a": 1}.keys() | {"b"}), {1: 2}.items() == {(1, 2)})
d.clear(); print(d, bool(d), dict(zip("ab", [1, 2])), dict([("k", "v")]), dict(a=1, b=2))
e = {}
for word in "the cat the hat".split():
    e[word] = e.get(word, 0) + 1
print(e)
try:
    for k in e:
        e["new"] = 1
except RuntimeError as err:
    print("RuntimeError:", err)
for bad in [lambda: {}["missing"], lambda: {}.pop("x"), lambda: {}.popitem(), lambda: {[]: 1},
            lambda: dict(1), lambda: {"a": 1} < {"b": 2}]:
    try:
        bad()
    except (KeyError, TypeError) as err:
        print(type(err).__name__ + ":", err)
