# yield from: delegation, return values, send/throw forwarding, iterables.
def sub():
    x = yield "sub1"
    print("sub got", x)
    yield "sub2"
    return "sub result"
def main():
    r = yield from sub()
    print("delegated result:", r)
    yield from [10, 20]
    yield from range(2)
    yield from "ab"
g = main()
print(next(g))
print(g.send("S"))
print(list(g))
def catcher():
    try:
        yield 1
    except KeyError:
        yield "caught KeyError"
def outer():
    yield from catcher()
g = outer()
next(g)
print(g.throw(KeyError))
def closer():
    try:
        yield 1
    finally:
        print("inner closed")
def outer2():
    yield from closer()
g = outer2()
next(g)
g.close()
def chain(*its):
    for it in its:
        yield from it
print(list(chain([1], (2, 3), {4: None})))
def gen_with_value():
    return (yield 1) * 2
def wrapper():
    v = yield from gen_with_value()
    yield v
w = wrapper()
next(w)
print(w.send(21))
