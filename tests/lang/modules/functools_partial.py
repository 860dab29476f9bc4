# functools.partial: positional and keyword binding, nesting, repr, attributes; reduce.
import functools
from functools import partial, reduce
def power(base, exp, *, mod=None):
    return pow(base, exp, mod) if mod else base ** exp
square = partial(power, exp=2)
cube_mod = partial(power, exp=3, mod=7)
two_to = partial(power, 2)
print(square(5), cube_mod(4), two_to(10), two_to(exp=3), square(3, exp=3))
print(square.func is power, square.args, square.keywords, two_to.args)
nested = partial(partial(power, 3), mod=5)
print(nested(4), nested.func is power, nested.args, nested.keywords)
print(repr(partial(max, 1, key=abs)).replace(repr(max), "<max>"))
class P(partial):
    pass
print(repr(P(min, 2)).replace(repr(min), "<min>"))
print(reduce(lambda a, b: a * b, range(1, 6)), reduce(lambda a, b: a + b, [], 10), reduce(max, [3, 9, 2]))
print(reduce(lambda acc, s: acc + len(s), ["ab", "c"], 0), functools.reduce(lambda a, b: a + b, "xyz"))
try:
    reduce(lambda a, b: a, [])
except TypeError as e:
    print("TypeError:", e)
try:
    partial(5)
except TypeError as e:
    print("TypeError:", e)
class Tracer:
    def create_proxy(self, kind, target):
        return f"proxy({kind}, {target})"
t = Tracer()
orig = t.create_proxy
def patched(orig_fn, prefix, kind, target):
    return prefix + orig_fn(kind, target)
t.create_proxy = partial(patched, orig, "patched:")
print(t.create_proxy("call", "f"))
class Holder:
    method = partial(power, 10)
print(Holder().method(2))
