# Generator functions: laziness, StopIteration, return values, generator state.
def count_up(n):
    print("start")
    i = 0
    while i < n:
        yield i
        i += 1
    print("done")
g = count_up(3)
print(type(g).__name__)
print(next(g), next(g), next(g))
try:
    next(g)
except StopIteration as e:
    print("StopIteration", e.value)
try:
    next(g)
except StopIteration:
    print("still exhausted")
def with_return():
    yield 1
    return "result"
g = with_return()
next(g)
try:
    next(g)
except StopIteration as e:
    print("return value:", e.value, e.args)
print(list(count_up(2)), sum(count_up(4)))
def empty():
    return
    yield
print(list(empty()))
def fib():
    a, b = 0, 1
    while True:
        yield a
        a, b = b, a + b
f = fib()
print([next(f) for _ in range(10)])
print(iter(f) is f, hasattr(f, "__next__"), f.__name__)
def inner_gen():
    x = yield
    print("inner got", x)
g = inner_gen()
print(g.send(None))
try:
    g.send("hello")
except StopIteration:
    print("finished after send")
def recurse(n):
    if n:
        yield n
        yield from recurse(n - 1)
print(list(recurse(4)))
