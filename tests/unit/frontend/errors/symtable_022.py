def f():
    class C:
        y = 1
        def g():
            nonlocal y
