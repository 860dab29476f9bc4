def f():
