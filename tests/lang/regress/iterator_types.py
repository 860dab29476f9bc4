# Regression: every built-in iterator had type "iterator", and zip/map/filter/enumerate/
# reversed were functions, so type(it).__name__ and isinstance(x, zip) disagreed with CPython.
its = [iter([]), iter(()), iter("a"), iter("é"), iter(range(2)), iter({}), iter({}.values()),
       iter({}.items()), iter(set()), iter(b""), reversed([]), reversed(()), reversed(range(2)),
       reversed({}), enumerate([]), zip(), map(len, []), filter(None, []), iter(lambda: 1, 1)]
print([type(i).__name__ for i in its])
print(isinstance(zip(), zip), isinstance(map(str, []), map), zip, enumerate.__name__, type(zip))
lst = [1, 2, 3]
r = reversed(lst)
lst[0] = 100
print(list(r))
