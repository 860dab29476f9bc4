# Regression: setting an attribute on a function raised AttributeError.
def f():
    return f.count
f.count = 3
print(f(), f.__dict__)
