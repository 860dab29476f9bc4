# Float literals in every spelling.
print(1., .5, 1e-3, 1E3, 3.14, 1_000.000_1, 0.0, 1e0, 2.5e+2, 1.e2, .5e-1)
print(1e308 * 10, -1e308 * 10, 1e-320)
print(type(1.), 10 / 4, 1e16, 1e15, 123456789012345678.0, 0.1 + 0.2)
print(float("inf"), float("-inf"), float("nan"), float(" 1.5 "), float("1e5"))
