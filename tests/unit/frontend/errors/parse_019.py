def f
