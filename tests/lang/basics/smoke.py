def fib(n):
    return n if n < 2 else fib(n-1) + fib(n-2)
print(fib(20))

class A:
    x = 10
    def __init__(self, v):
        self.v = v
    def get(self):
        return self.v + self.x
    def __repr__(self):
        return f"A({self.v!r})"

class B(A):
    def get(self):
        return super().get() * 2

b = B(3)
print(b.get(), b, repr(b), str(b))

def outer():
    n = 0
    def inc():
        nonlocal n
        n += 1
        return n
    return inc
f = outer(); f(); print(f())

print([x*x for x in range(5) if x % 2 == 0], {k: v for k, v in zip("abc", range(3))}, {i % 3 for i in range(10)})
g = (i * 2 for i in range(3))
print(list(g), sum(i for i in range(10)))

def gen():
    yield 1
    x = yield 2
    yield x
it = gen(); print(next(it), next(it), it.send(42))

try:
    1 / 0
except ZeroDivisionError as e:
    print("caught", e)
finally:
    print("finally")

with type("CM", (), {"__enter__": lambda self: "entered", "__exit__": lambda self, *a: print("exit", a[0]) or True})() as v:
    print(v)
    raise ValueError("boom")
print("after with")

a, *rest = [1, 2, 3, 4]
print(a, rest, f"{3.14159:.2f}", f"{42:>5}|", "{} {}".format(1, 'x'), "%d-%s" % (1, "y"))
d = {}
d.setdefault("k", []).append(1)
print(d, sorted([3,1,2], reverse=True), max([1,5,3]), min(4, 2), abs(-3), round(2.675, 2), round(2.5))
print(1e-5, 1e16, 0.1+0.2, 1/3, -0.0, 100.0, 2**62, 7//2, -7//2, -7 % 3, divmod(7, -2))
print(isinstance(b, A), issubclass(B, A), type(b).__name__, B.__mro__)
import math
print(math.sqrt(16), math.pi)
