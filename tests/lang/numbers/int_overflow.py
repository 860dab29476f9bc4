# Results just outside int64 become exact big ints, as in CPython (small ints stay unboxed;
# overflow moves to the GMP path instead of wrapping or raising).
cases = [
    lambda: 9223372036854775807 + 1,
    lambda: -9223372036854775807 - 2,
    lambda: 2 ** 63,
    lambda: 2 ** 64,
    lambda: 10 ** 19,
    lambda: 3037000500 ** 2,
    lambda: 9223372036854775807 * 2,
    lambda: -(-9223372036854775807 - 1),
    lambda: abs(-9223372036854775807 - 1),
    lambda: (-9223372036854775807 - 1) // -1,
    lambda: 1 << 63,
    lambda: 1 << 64,
    lambda: int("9223372036854775808"),
    lambda: int(1e19),
    lambda: sum([9223372036854775807, 1]),
    lambda: round(1e300),
    lambda: int(2.0 ** 63),
]
for c in cases:
    try:
        print("no error:", c())
    except OverflowError as e:
        print("OverflowError:", e)
x = 9223372036854775807
x += 1
print(x, type(x).__name__, x - 1, type(x - 1) is int, x - 1 == 9223372036854775807)
