class C:
    nonlocal q
