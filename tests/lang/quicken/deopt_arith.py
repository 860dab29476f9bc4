# Specialised arithmetic and comparisons (BINARY_OP_*_INT/FLOAT, their STORE_FAST fusions,
# COMPARE_OP_*_JUMP) meeting operands their guards reject: each must fall back to the generic
# instruction and give CPython's answer.

def add_loop(n, step):
    # warms up as small-int adds, then overflows into big ints inside the same loop
    x = 1
    i = 0
    while i < n:
        x = x + step
        step = step * 3
        i += 1
    return x


print(add_loop(60, 1))
print(add_loop(5, 2**62))


def mixed(values):
    # the same site sees int, float, bool, big int, str and list operands in turn
    out = []
    for a, b in values:
        s = a + b
        d = a - b if not isinstance(a, (str, list)) else None
        m = a * b if not isinstance(b, (str, list)) else a * 2
        out.append((s, d, m))
    return out


pairs = [(1, 2)] * 5 + [(1.5, 2.25)] * 5 + [(True, 2), (2**70, 1), (-2**63, -1), (9223372036854775807, 1),
                                             ("a", "b"), ([1], [2]), (1, 2.5), (2.5, 1)]
for r in mixed(pairs):
    print(r)


def mul_overflow(n):
    p = 1
    for i in range(1, n):
        p = p * i
    return p


print(mul_overflow(30))
print(mul_overflow(25) - mul_overflow(24) * 24)


def sub_underflow():
    x = -9223372036854775000
    for _ in range(10):
        x = x - 100
    return x


print(sub_underflow())


def compare_kinds(items, limit):
    count = 0
    for v in items:
        if v < limit:
            count += 1
        if v >= limit:
            count += 100
    return count


print(compare_kinds(list(range(10)), 5))
print(compare_kinds([0.5, 1.5, 2.5] * 4, 2.0))
nan = float("nan")
print(compare_kinds([1.0, 2.0, nan, 3.0, nan], 2.0))
print(compare_kinds([1, 2.5, True, 2**80, -2**80, 3], 2))
print(compare_kinds(["a", "b", "c", "d", "e", "f"], "c"))


def float_loop(n):
    x = 0.0
    y = 1.0
    i = 0
    while i < n:
        x = x + 0.5
        y = y * 1.5
        x = x - 0.25
        i += 1
    return x, y


print(float_loop(100))
x = 0.0
for v in [1.0, 2.0, 3, 4.5, 2**70, float("inf"), -float("inf")]:
    x = x + v
    print(x)


class Num(int):
    def __add__(self, other):
        return "Num.__add__"

    def __lt__(self, other):
        return True


def add_them(vals):
    return [v + 1 for v in vals]


print(add_them([1, 2, 3, 4, Num(5), 6]))
print([v < 0 for v in [1, 2, 3, Num(4)]])
