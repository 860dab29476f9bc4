# for loops over every iterable kind, for/else, nested break/continue.
for x in [1, 2]: print("list", x)
for x in (3,): print("tuple", x)
for x in "ab": print("str", x)
for x in range(2, 10, 3): print("range", x)
for k in {"a": 1, "b": 2}: print("dict", k)
for k, v in {"a": 1}.items(): print("items", k, v)
for x in sorted({3, 1, 2}): print("set", x)
for x in b"AZ": print("bytes", x)
for i, c in enumerate("xy", start=1): print("enumerate", i, c)
def gen():
    yield 1
    yield 2
for x in gen(): print("gen", x)
for n in range(2, 12):
    for d in range(2, n):
        if n % d == 0:
            break
    else:
        print(n, "is prime")
for x in []:
    pass
else:
    print("else on empty")
for x in range(3):
    if x == 1:
        continue
    print("continue skip", x)
else:
    print("else after continue")
x = "unchanged"
for x in range(0): pass
print(x)
for i in range(3): pass
print("loop var after loop:", i)
lst = [1, 2, 3]
for item in lst:
    if item == 1:
        lst.append(4)
print(lst)
