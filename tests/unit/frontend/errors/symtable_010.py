def f(x):
    nonlocal x
