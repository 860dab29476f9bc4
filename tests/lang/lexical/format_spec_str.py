# The format-spec mini-language for strings and str.format.
s = "ember"
for spec in ["", "10", "<10", ">10", "^10", "*^11", "-<8", ".3", "10.2", "^9.1", "s", ">3"]:
    print(repr(spec), "->", repr(format(s, spec)))
print("{} and {}".format("a", "b"), "{1} {0} {1}".format("x", "y"), "{name}!".format(name="n"))
print("{0[1]} {1[k]} {2.real}".format([5, 6], {"k": "v"}, 3), "{:>{w}}".format("r", w=4))
print("{!r} {!s}".format("q", "q"), "{{}}".format(), "{:%}".format(0.125))
