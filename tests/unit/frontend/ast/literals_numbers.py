# integers in every base, with underscores
a = 0
b = 42
c = 1_000_000
d = 0x1F + 0XfF + 0x_dead_beef
e = 0o17 + 0O7_7
f = 0b1010 + 0B1_1
g = 00 + 0_0
# floats
h = 1.
i = .5
j = 1e-3 + 1E+3 + 1e3
k = 1_000.5 + 1_0.0_1e1_0
l = 3.14159 + 0.1 + 1.5e300 + 1e16 + 1e15 + 1e-05 + 0.0001
m = 1e400 + 2.5e-320
n = 12345678901234567.0 + 0.30000000000000004
# ints beyond 64 bits are kept as text for OverflowError
o = 9223372036854775807
p = 9223372036854775808
q = 0xFFFFFFFFFFFFFFFFFFFF
r = 123456789012345678901234567890
s = 0b1111111111111111111111111111111111111111111111111111111111111111
t = -1, +2, ~3
