del x, f(y)
