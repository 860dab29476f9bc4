# Ember-specific (recorded with --ember): ints are 64-bit, so results outside that range raise
# OverflowError instead of silently wrapping (CPython would give an exact bigint).
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
