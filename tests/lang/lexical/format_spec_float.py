# The format-spec mini-language for floats.
vals = [0.0, -0.0, 1.0, 3.14159265, -2.5, 1234567.891, 1e-7, 1e22, 0.5, 2.5, float("inf"), float("nan")]
specs = ["", ".2f", "f", "10.3f", "<10.1f", "^10.2f", "+.1f", " .1f", "e", ".3e", "E", "g",
         ".3g", "G", "%", ".1%", ",.2f", "_.1f", "012.3f", "#.0f", ".0f", ".0e", "#g", "n",
         "*>12.4f", "=+10.2f", ".10g", ".17g", "r" if False else "10"]
for v in vals:
    print(repr(v), [format(v, s) for s in specs])
print("{:.2f} {:e} {:08.3f}".format(1 / 3, 12345.6789, -3.14159))
