# The class body is a scope: names, loops and comprehensions in it; class-level name lookup.
class K:
    a = 1
    b = a + 1
    items = [i * 2 for i in range(3)]
    try:
        hidden = [a for _ in range(1)]   # comprehension scopes skip the class body
    except NameError as e:
        print("NameError:", e)
    for j in range(2):
        b += j
    del j
    def m(self):
        return K.a
print(K.a, K.b, K.items, K().m(), hasattr(K, "j"))
x = "global"
class L:
    x = "class"
    def m(self):
        return x
    y = x
print(L().m(), L.y)
def f():
    v = "enclosing"
    class M:
        w = v
        def get(self):
            return v
    return M
M = f()
print(M.w, M().get())
class Meta:
    __slots__ = ()
print(type(K.__dict__).__name__ in ("dict", "mappingproxy"))
