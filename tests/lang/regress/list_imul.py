# Regression: `lst *= n` made a new list instead of repeating the list in place.
a = [1, 2]
b = a
a *= 2
print(a, b, a is b)
a *= 0
print(a, b)
