class C:
    nonlocal y
