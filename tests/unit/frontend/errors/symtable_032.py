def f():
    class K:
        x = [(i := 0) for j in range(3)]
