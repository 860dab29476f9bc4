# Integer literals: decimal, hex, octal, binary, underscores, signs.
print(0, 7, 1_000_000, 0x1F, 0XFF, 0o17, 0O7, 0b1010, 0B11, 0x_ff, 0b_1_0)
print(-0x10, +0o10, ~0b1)
print(9223372036854775807)
print(type(0x10).__name__, 0 == 0x0 == 0o0 == 0b0)
print(1_2_3 + 0_0)
