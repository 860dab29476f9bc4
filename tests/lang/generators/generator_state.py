# Generators with try/finally, send through loops, generators as methods and in classes,
# generator expressions capturing loop state, and exhausted generator behaviour.
def acc():
    total = 0
    try:
        while True:
            x = yield total
            if x is None:
                break
            total += x
    finally:
        print("acc closing with", total)
    yield "after loop"
g = acc()
print(next(g), g.send(5), g.send(10), g.send(None))
print(list(g))
class Bag:
    def __init__(self, *items): self.items = items
    def evens(self):
        for i, x in enumerate(self.items):
            if i % 2 == 0:
                yield x
    def __iter__(self):
        return (x for x in self.items if x)
b = Bag(0, "a", "", "b", None, "c")
print(list(b.evens()), list(b), [type(b.evens()).__name__])
gens = [(i * j for j in range(3)) for i in range(3)]
print([list(g) for g in gens])
def countdown(n):
    while n > 0:
        yield n
        n -= 1
    return "liftoff"
c = countdown(2)
print(list(c), list(c), next(c, "exhausted"))
def nested():
    yield [(yield 1), (yield 2)]
n = nested()
print(next(n), n.send("a"), n.send("b"))
