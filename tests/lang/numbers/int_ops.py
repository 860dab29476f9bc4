# int arithmetic at the edges of 64 bits that CPython and Ember agree on, bit operations, bool.
big = 9223372036854775807
small = -9223372036854775807 - 1
print(big, small, big - 1, small + 1, -big, big // 2, small // 3, big % 10, small % 7)
print(2 ** 62, 2 ** 62 + (2 ** 62 - 1), -(2 ** 62) * 2, 3037000499 ** 2, (-2) ** 63, 1 << 62, -1 << 63)
print(big >> 1, small >> 63, big >> 100, ~big, big & small, big | small, big ^ -1, -1 >> 5, 5 >> 70)
print(int("-9223372036854775808"), int("9223372036854775807"), hex(big), bin(small), oct(big))
print(divmod(big, 7), divmod(small, -7), pow(2, 62), pow(7, 22, 10 ** 9), abs(small + 1), 10 ** 18, (10 ** 9) * (10 ** 9))
print(True + True, True * 10, False ** 0, int(True), -True, True << 3, True & False, True | False, True ^ True)
print(type(True + 1).__name__, type(True & True).__name__, 7 // 2, -7 // 2, 7 % -2, (-7) % 2, 0 ** 0, 2 ** -1)
print((255).bit_length(), (-1).bit_length(), (0).bit_length(), (5).real, (5).imag, (6).conjugate(), int.__name__)
print(1_000_000 * 1000, 123456789 * 987654321, 3 ** 39, 6 ** 24, -(3 ** 39))
