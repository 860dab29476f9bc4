# List comprehensions: conditions, nesting, multiple for clauses, scoping.
print([x * 2 for x in range(5)])
print([x for x in range(20) if x % 3 == 0 if x % 2 == 0])
print([(x, y) for x in range(3) for y in range(x)])
print([[i * j for j in range(3)] for i in range(3)])
print([y for row in [[1, 2], [3]] for y in row])
print([c.upper() for c in "hey" if c != "e"])
print([x if x % 2 else -x for x in range(5)])
x = "outer"
r = [x for x in range(3)]
print(x, r)
print([(a, b) for a, b in {"k": 1, "j": 2}.items()])
print([v for v in (lambda: [1, 2])()])
funcs = [lambda: i for i in range(3)]
print([f() for f in funcs])
print([[x for x in range(n)] for n in range(4)])
def f():
    n = 10
    return [n + k for k in range(3)]
print(f())
print([i for i in range(3) for _ in range(0)])
