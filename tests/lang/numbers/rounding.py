# round() exactly as CPython: banker's rounding for ints/halves, correct decimal rounding of floats.
for x in [0.5, 1.5, 2.5, 3.5, -0.5, -1.5, 2.675, 1.005, 0.125, 0.375, 2.5e-5, 1234.5, 1e200 / 1e190, -2.5, 0.49999999999999994]:
    print(x, round(x), round(x, 1), round(x, 2), round(x, 3), round(x, -1), round(x, -2))
for n in [5, 15, 25, 125, -15, 1234567, 0, -5]:
    print(n, round(n), round(n, -1), round(n, -2), round(n, 1), type(round(n, 1)).__name__)
print(round(float("inf")) if False else "", round(2.5, 0), round(-0.4), round(-0.6), round(0.0, 2), round(-0.0, 2))
for bad in [lambda: round(float("inf")), lambda: round(float("nan")), lambda: round(1.5, 1.5), lambda: round("1")]:
    try:
        bad()
    except (OverflowError, ValueError, TypeError) as e:
        print(type(e).__name__ + ":", e)
