# KeyError messages show the key's repr; uncaught KeyError of a tuple key.
d = {}
for k in ["s", 1, (1, 2), None, ""]:
    try:
        d[k]
    except KeyError as e:
        print(repr(e), str(e))
d[(1, 2)]
