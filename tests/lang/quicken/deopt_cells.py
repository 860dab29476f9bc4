# `local + cell` / `local - cell` in a closure (LOAD_FAST, LOAD_DEREF, BINARY_OP fused after the
# add warmed on small ints): the cell rebound mid-loop by another inner function to a float, a
# str, a big int, a bool, emptied by `del`; the local unbound; the result overflowing 64 bits.


def make(k):
    def add(x):
        return x + k

    def sub(x):
        return x - k

    def rebind(v):
        nonlocal k
        k = v

    def clear():
        nonlocal k
        del k

    return add, sub, rebind, clear


add, sub, rebind, clear = make(3)
out = []
for i in range(200):
    if i == 50:
        rebind(0.5)
    elif i == 80:
        rebind(7)
    elif i == 120:
        rebind(2 ** 62)
    elif i == 150:
        rebind(True)
    elif i == 170:
        rebind(-4)
    out.append((add(i), sub(i)))
print(out[45:55])
print(out[78:82])
print(out[118:124])
print(out[148:152])
print(out[168:172])
print(out[-1])

# overflow of 64 bits: the base form gives the big int
rebind(2 ** 63 - 5)
print([add(i) for i in range(10)])
rebind(-(2 ** 63) + 3)
print([sub(i) for i in range(10)])

# a str cell: str + int raises TypeError (the base form's message), then ints again
rebind("s")
for x in (1, "t"):
    try:
        print(add(x))
    except TypeError as e:
        print("TypeError:", e)
rebind(1)
print(sum(add(i) for i in range(100)))

# the cell emptied: NameError from LOAD_DEREF, mid-loop
clear()
for x in range(3):
    try:
        print(add(x))
    except NameError as e:
        print("NameError:", e)
rebind(10)
print([add(i) for i in range(3)], [sub(i) for i in range(3)])


# the local unbound on some calls
def outer(k):
    def f(flag):
        if flag:
            y = 1
        return y + k

    return f


f = outer(5)
res = []
for i in range(100):
    try:
        res.append(f(i % 10 != 9))
    except UnboundLocalError as e:
        res.append(str(e))
print(res[:3], res[9], len(res))


# a cell of the enclosing function itself, rebound while the inner add loops
def counter():
    step = 1
    total = 0

    def bump(x):
        return x + step

    for i in range(100):
        total = bump(total)
        if i == 60:
            step = 2.5
        if i == 80:
            step = 1
    return total


print(counter())
