def plain():
    return 1

def gen():
    yield 1

def gen_from():
    yield from range(3)

def gen_expr_only():
    return (x for x in range(3))

def nested_gen():
    def inner():
        yield
    return inner

lam_gen = lambda: (yield)

def varargs(*args):
    pass

def varkw(**kwargs):
    pass

def both(a, *args, b, **kwargs):
    pass

class K:
    def method(self):
        yield self
