# if/elif/else chains and truthiness of every built-in kind.
def classify(n):
    if n < 0:
        return "neg"
    elif n == 0:
        return "zero"
    elif n < 10:
        return "small"
    else:
        return "big"
print([classify(n) for n in (-5, 0, 3, 99)])
for v in [0, 1, 0.0, 2.5, "", "a", [], [0], (), (0,), {}, {0: 0}, set(), {0}, None, range(0), range(1), b"", b"x"]:
    if v:
        print(repr(v), "truthy")
    else:
        print(repr(v), "falsy")
if not []: print("not [] is True")
x = 5
if x > 3: print("one-line if")
