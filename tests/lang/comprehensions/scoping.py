# Comprehension scoping: the first iterable is evaluated in the enclosing scope, the loop
# variable does not leak, and closures inside comprehensions capture the comprehension's scope.
def outer():
    data = [1, 2, 3]
    return [d + len(data) for d in data]
print(outer())
class K:
    vals = [1, 2, 3]
    doubled = [v * 2 for v in vals]
print(K.doubled)
try:
    print(v)
except NameError as e:
    print("NameError:", e)
def nested_closure():
    return [[lambda: (i, j) for j in range(2)] for i in range(2)]
print([[f() for f in row] for row in nested_closure()])
total = 0
def uses_global():
    return [total + i for i in range(3)]
print(uses_global())
def counter():
    count = 0
    def bump(x):
        nonlocal count
        count += 1
        return x
    res = [bump(i) for i in range(4)]
    return res, count
print(counter())
