# printf-style integer conversions at every digit count (no padding beyond width/precision):
# around each power of the base, where a digit-count estimate can be one too high.
for base_ch, base in (("d", 10), ("i", 10), ("u", 10), ("x", 16), ("X", 16), ("o", 8)):
    row = []
    k = 1
    while k < 10 ** 25:
        for v in (k - 1, k, k + 1, -k, -(k - 1)):
            row.append(("%" + base_ch) % v)
        k *= base
    print(base_ch, " ".join(row))

for fmt in ("%5d", "%-5d|", "%05d", "%.3d", "%.1d", "%.0d", "%+d", "% d", "%#x", "%#o", "%#.4X", "%8.4d", "%-8.4d|"):
    print(fmt, [fmt % v for v in (0, 9, 99, 100, -99, 65536, 999999, 2 ** 64 - 1)])

print("%d %s" % (9, "x"), "%(n)d" % {"n": 99}, "%d%%" % 99)
print("%d" % True, "%d" % 9.99, "%x" % 255, "%d" % (10 ** 30 - 1))

# the decimal digit limit applies to %d as to str() (hex is exempt)
try:
    "%d" % (10 ** 5000)
except ValueError as e:
    print("ValueError:", e)
print(len("%x" % (10 ** 5000)))
