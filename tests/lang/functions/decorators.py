# Decorators: plain, with arguments, stacked, on methods and classes.
def trace(fn):
    def wrapper(*args, **kwargs):
        print("call", fn.__name__, len(args), kwargs)
        return fn(*args, **kwargs)
    return wrapper
def times(n):
    def deco(fn):
        def wrapper(*a):
            return [fn(*a) for _ in range(n)]
        return wrapper
    return deco
@trace
def add(a, b): return a + b
print(add(1, b=2))
@times(3)
def one(): return 1
print(one())
order = []
def mark(tag):
    order.append("eval " + tag)
    def deco(fn):
        order.append("apply " + tag)
        return fn
    return deco
@mark("outer")
@mark("inner")
def stacked(): pass
print(order)
def register(cls):
    cls.registered = True
    return cls
@register
class K:
    @trace
    def meth(self, x): return x * 2
print(K.registered, K().meth(4))
@lambda fn: fn()
def immediately(): return "ran"
print(immediately)
