def assign_order():
    b = a = 1
    d, c = c, d = 1, 2
    return a, b, c, d

def loop_order(items):
    for item in items:
        total = item
    else:
        after = 1
    while cond:
        w = 1
    return total

def aug():
    counter += 1
    return counter

def try_order():
    try:
        body = 1
    except ValueError as err:
        handler = err
    else:
        orelse = 2
    finally:
        final = 3

def with_order():
    with open(path) as fh, lock as l2:
        inner = fh.read()
    return inner

def ann():
    declared: int
    assigned: int = 1
    return declared

def imports():
    import os.path
    import json as js
    from collections import OrderedDict as OD, defaultdict
    return os, js, OD, defaultdict

def nested_defs():
    @decorator
    def inner(arg=default):
        return arg
    class Local(Base):
        pass
    lam = lambda q: q + outer_free
    return inner, Local, lam

def deletes():
    x = 1
    del x
    del y

def comp_targets():
    r = [a for a in range(3)]
    a = 5
    return r, a

def unused_params(p1, p2):
    return 0

def call_order():
    f(arg1, k=arg2)(arg3)
    return g[h](i)

def dict_order():
    return {key1: val1, **spread, key2: val2}

def compare_order():
    return left < mid <= right

def fstr():
    return f"{first!r:{width}} {second}"

def slices():
    return seq[lo:hi:step]

def starred():
    head, *tail = seq
    return [*tail, head]

def conditional():
    return yes if test else no

def boolean():
    return p and q or r
