# The format-spec mini-language for ints.
n = 1234567
for spec in ["", "d", "10d", "<10d", ">10d", "^10d", "*^12d", "+d", " d", "-d", ",", "_",
             "010d", "010,", "x", "X", "#x", "#X", "o", "#o", "b", "#b", "#010b", "_b", "_x",
             "e", ".2e", "f", ".1f", "g", "%", "c" if False else "n", "=+12d", "012_d"]:
    print(repr(spec), "->", repr(format(n, spec)), repr(format(-n, spec)))
print(format(0, "#x"), format(65, "c"), format(True, "d"), format(True, ""), format(255, "08X"))
print("{:>6}|{:<6}|{:^6}|{:06}".format(7, 7, 7, -7))
