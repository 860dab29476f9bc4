# Regression: throw() and close() on a generator suspended in `yield from` went to the outer
# generator instead of the delegate (PEP 380), and next() lost a generator's return value.
def inner():
    try:
        yield 1
    except ValueError as e:
        yield "inner handled " + str(e)
    finally:
        print("inner finally")
    return "inner done"
def outer():
    r = yield from inner()
    print("outer got", r)
    yield "outer end"
g = outer()
print(next(g))
print(g.throw(ValueError("x")))
print(next(g))
g2 = outer()
next(g2)
g2.close()
def ret():
    yield 1
    return 42
r = ret()
next(r)
try:
    next(r)
except StopIteration as e:
    print("value", e.value)
