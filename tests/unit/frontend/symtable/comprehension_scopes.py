def f(data, scale):
    a = [x * scale for x in data]
    b = {k: v * scale for k, v in data}
    c = {x for x in data if x > scale}
    d = (x for x in data)
    e = [[y for y in x if y] for x in data]
    g = [z for x in data for z in x if z > scale]
    h = [scale for _ in data]
    i = [(lambda: x) for x in data]
    j = {k: [v for v in k] for k in data}
    return a, b, c, d, e, g, h, i, j

class C:
    items = [1, 2, 3]
    doubled = [i * 2 for i in items]
    pairs = [(i, j) for i in items for j in items]
    factor = 3
    def m(self):
        return [self.factor * i for i in self.items]

result = [x for x in range(3)]
gen = (y for y in result)
