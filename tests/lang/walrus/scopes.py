# Assignment expressions (PEP 572): values, and where targets bind (comprehensions bind in the
# enclosing function or module, nonlocal through closures, class bodies keep their own).

if (n := len("hello")) > 3:
    print("long", n)
print(n)

data = [1, 2, 3, 4, 5, 6]
print([y for x in data if (y := x * 2) > 4], y)

def f():
    total = 0
    vals = [total := total + v for v in range(5)]
    print(vals, total)
    g = (last := i for i in "abc")
    print(list(g), last)
    return [(z := w) for w in (1, 2)], z
print(f())

def outer():
    def inner():
        return [k for k in range(3) if (found := k) == 1], found
    return inner()
print(outer())

def counter():
    count = 0
    def bump():
        nonlocal count
        return [count := count + 1 for _ in range(3)]
    bump()
    return count
print(counter())

class C:
    v = (w := 10)
    print(v, w)
print(C.v, C.w)

while (chunk := data[:2]):
    print(chunk)
    data = data[2:]

m = "42abc"
if m and (num := int(m[:2])):
    print(num + 1)

print((a := 1, b := 2), a, b)
print([[(p := j) for j in range(i)] for i in range(3)], p)
lam = lambda: (q := 7)
print(lam())
try:
    q
except NameError as e:
    print("NameError", e)

def gen():
    yield (r := 5)
    print("r is", r)
print(list(gen()))

print(f"{(s := 'x')!r} {s}")
x = [1, 2]
print(x[(idx := 1)], idx)
print({(k2 := 'a'): (v2 := 'b')}, k2, v2)
def default(v=(dv := 3)):
    return v
print(default(), dv)
