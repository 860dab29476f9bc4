def f(**kwargs, /): pass
