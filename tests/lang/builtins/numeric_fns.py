# abs, round, divmod, pow, int/float/bool conversions, hex/oct/bin, chr/ord.
print(abs(-3), abs(2.5), abs(-0.0), abs(True), abs(-9223372036854775807))
print(round(2.5), round(3.5), round(-2.5), round(0.125, 2), round(2.675, 2), round(1234.5678, -2), round(7, -1))
print(round(15, -1), round(25, -1), round(1.5), type(round(1.5)).__name__, type(round(1.5, 0)).__name__, round(-0.5))
print(divmod(17, 5), divmod(-17, 5), divmod(17.5, 5), divmod(-1, 3.0), pow(2, 8), pow(2, -2), pow(3, 4, 5), pow(2.0, 3))
print(int("42"), int(" -7 "), int("ff", 16), int("0x1f", 0), int("0b101", 0), int("1_000"), int(3.99), int(-3.99), int(True))
print(float("1.5"), float(" -2 "), float(3), float("1e3"), float("-inf"), float(True), bool(0), bool("0"), bool([]))
print(hex(255), hex(-255), oct(8), oct(-8), bin(5), bin(0), bin(-1), chr(65), chr(233), chr(0x1F600), ord("a"), ord("é"))
print(int("z", 36), int("10", 2), int(b"12") if False else 12, float("nan") != float("nan"), int(1e10))
for bad in [lambda: int("abc"), lambda: int("1.5"), lambda: float("x"), lambda: int(None), lambda: chr(-1),
            lambda: ord("ab"), lambda: ord(""), lambda: divmod(1, 0), lambda: pow(0, -1), lambda: hex(1.5),
            lambda: round("x"), lambda: abs(None), lambda: int("5", 1), lambda: int(float("inf")),
            lambda: int(float("nan")), lambda: 1 % 0, lambda: 1.0 / 0, lambda: 5 // 0.0]:
    try:
        bad()
    except (ValueError, TypeError, ZeroDivisionError, OverflowError) as e:
        print(type(e).__name__ + ":", e)
