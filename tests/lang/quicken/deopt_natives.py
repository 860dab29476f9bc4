# CALL_NATIVE (native functions and method descriptors called with their arity checked inline)
# and mixed int/float arithmetic in the specialised float forms, at call sites whose callee or
# receiver changes after they warmed.


class MyList(list):
    def append(self, v):
        super().append(("mine", v))


def fill(target, n):
    for i in range(n):
        target.append(i * 0.5)
    return target


print(fill([], 5))
print(fill(MyList(), 3))


def call_each(fns, arg):
    out = []
    for fn in fns:
        try:
            out.append(fn(arg))
        except TypeError as e:
            out.append("TypeError: " + str(e))
    return out


print(call_each([len, len, len, abs, str, repr, len, sorted, list, "x".join], "cab"))
print(call_each([abs, abs, abs, len, float, int, hash], -3))


def unbound(objs):
    out = []
    for o in objs:
        try:
            list.append(o, 1)
            out.append(o)
        except TypeError as e:
            out.append("TypeError: " + str(e))
    return out


print(unbound([[], [], [], MyList(), (), "s", []]))


def upper_all(xs):
    return [s.upper() for s in xs]


class S(str):
    def upper(self):
        return "S.upper"


print(upper_all(["a", "b", "c", S("d"), "e", b"f"]))


def mixed_math(pairs):
    out = []
    for a, b in pairs:
        out.append((a + b, a - b, a * b))
    return out


big = 2**53 + 1
print(mixed_math([(1, 0.5), (0.5, 1), (2, 0.25), (big, 0.0), (0.0, big), (-big, 1.0), (10**20, 0.5),
                  (0.5, 10**20), (True, 0.5), (3, 4), (1e308, 10), (-7, float("inf"))]))


def scale(n):
    total = 0.0
    for i in range(n):
        total += i * 0.1
    return total


print(scale(1000))
