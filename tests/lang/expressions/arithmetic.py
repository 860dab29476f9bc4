# Arithmetic operators on ints, floats and bools, with Python's rounding and sign rules.
for a, b in [(7, 2), (-7, 2), (7, -2), (-7, -2), (0, 3), (6, 3)]:
    print(a, b, a + b, a - b, a * b, a / b, a // b, a % b, divmod(a, b), a ** 2)
for a, b in [(7.5, 2), (-7.5, 2), (7.0, -2.5), (1e300, 1e10), (0.1, 0.2)]:
    print(a, b, a + b, a - b, a * b, a / b, a // b, a % b)
print(2 ** 10, 2 ** -1, (-8) ** (1 / 3) if False else 0, 10 ** 0, 0 ** 0, 2.0 ** 0.5, (-2) ** 3, 4 ** 0.5)
print(True + True, True * 3, False - 1, 5 // True, -True, +False, ~True)
print(-(-5), +3, ~5, ~-1, -0.0, +(-0.0), abs(-0.0))
print(1 + 2.0, 3 * 0.5, 7 // 2.0, 7 % 2.5, -7 % 2.5, 2 ** 0.0, 1 / 3 * 3)
print(0.1 * 3, 1e16 + 1, 2 ** 53 + 1, float(2 ** 53 + 1), 9007199254740993 / 1)
print(10 % 3, -10 % 3, 10 % -3, 5.5 % -2, -0.0 % 1, 3 % 1.5)
print(1 << 10, 1024 >> 3, -16 >> 2, 5 & 3, 5 | 3, 5 ^ 3, -5 & 0xFF, ~0 & 7)
print(round(7 / 3, 5), 1 / 7, 2 / 3, 100 / 7)
