# Assignment expressions at run time: evaluation order, unbound targets, exceptions mid-way.
def order():
    log = []
    def v(x):
        log.append(x)
        return x
    r = (a := v(1)) + (b := v(2)) * (a := v(3))
    print(r, a, b, log)

order()

def unbound():
    if False:
        (u := 1)
    return u

try:
    unbound()
except UnboundLocalError as e:
    print(type(e).__name__, e)

def failing():
    try:
        (z := 1 // 0)
    except ZeroDivisionError:
        print("raised before binding:", "z" in dir())

failing()

def closure():
    fs = [lambda: i for i in range(3) if (last := i) >= 0]
    return [f() for f in fs], last

print(closure())
xs = [3, 1, 2]
print(sorted(xs, key=lambda t: (k := -t)))
print(any((hit := x) > 2 for x in xs), hit)
print(all((miss := x) < 3 for x in xs), miss)
