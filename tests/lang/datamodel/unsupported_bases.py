# Built-in types CPython refuses as bases raise its TypeError at the class statement; int,
# float, str, bytes, tuple, list, dict and set are all acceptable bases.
for base in (bool, range, slice, type(None), type(lambda: 0), type(len), type(...)):
    try:
        class Sub(base):
            pass
    except TypeError as e:
        print("TypeError:", e)
for base in (int, float, str, bytes, tuple, list, dict, set, frozenset, object):
    class Sub(base):
        pass
    print(base.__name__, "ok:", Sub.__mro__[1] is base, type(Sub()).__name__)
