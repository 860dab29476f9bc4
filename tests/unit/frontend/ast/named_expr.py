# Assignment expressions (PEP 572) and where their targets bind.
if (n := len(data)) > 10:
    print(n)
while chunk := read():
    use(chunk)
print(y := f(x), [y, y ** 2])
total = [t := t + v for v in values]
filtered = [z for x in xs if (z := g(x)) is not None]
print(f"{(s := 'x')!r}")

def f(a):
    b = [w := i for i in a]
    return w, (c := b)

def outer():
    def inner():
        return [found := k for k in range(3)]
    counter = 0
    gen = (counter := counter + 1 for _ in range(2))
    return inner, gen

class C:
    v = (w := 10)
    def m(self):
        return [(p := q) for q in self.v]

lam = lambda: (q := 7)
nested = [[(j := i) for i in range(k)] for k in range(3)]
