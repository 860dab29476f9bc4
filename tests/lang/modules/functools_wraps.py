# functools.wraps / update_wrapper copy metadata and set __wrapped__; lru_cache; cached_property;
# total_ordering; cmp_to_key.
import functools
def logged(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        """wrapper doc"""
        print("calling", fn.__name__)
        return fn(*args, **kwargs)
    return wrapper
@logged
def add(a, b):
    """Add two numbers."""
    return a + b
add.extra = 1
print(add(1, 2), add.__name__, add.__doc__, add.__qualname__, add.__wrapped__.__name__, add.__module__)
def plain(): pass
plain.tag = "t"
def other(): pass
functools.update_wrapper(other, plain)
print(other.__name__, other.tag, other.__wrapped__ is plain)
calls = []
@functools.lru_cache(maxsize=2)
def slow(n):
    calls.append(n)
    return n * n
print(slow(2), slow(2), slow(3), slow(4), slow(2), calls, slow.cache_info())
slow.cache_clear()
print(slow.cache_info())
@functools.lru_cache
def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)
print(fib(60), fib.cache_info().hits > 0)
@functools.cache
def sq(x):
    return x * x
print(sq(4), sq(4), sq.cache_info().hits)
class Data:
    def __init__(self):
        self.computed = 0
    @functools.cached_property
    def value(self):
        self.computed += 1
        return 42
d = Data()
print(d.value, d.value, d.computed, "value" in d.__dict__)
@functools.total_ordering
class Version:
    def __init__(self, n): self.n = n
    def __eq__(self, o): return self.n == o.n
    def __lt__(self, o): return self.n < o.n
print(Version(1) < Version(2), Version(2) <= Version(2), Version(3) > Version(2), Version(1) >= Version(2))
print(sorted([3, 1, 2], key=functools.cmp_to_key(lambda a, b: b - a)))
