# str: immutability, comparison, iteration, slicing with unicode, repr of special characters.
s = "héllo wörld"
print(len(s), s[0], s[1], s[-1], s[1:4], s[::2], list(s[:3]), s.upper())
try:
    s[0] = "H"
except TypeError as e:
    print("TypeError:", e)
print("a" < "b", "abc" < "abd", "Z" < "a", "é" > "z", "" < "a", sorted(["b", "A", "a", "B"]))
print(repr("tab\there"), repr("new\nline"), repr("quote'"), repr('dq"'), repr("both'\""), repr("\x00\x1f\x7f"))
print(repr("é"), repr("\u2603"), repr("\U0001F600"), repr("\u200b"), repr("\xa0"), repr("\ud800") if False else "")
print("%s|%5s|%-5s|%.1s" % ("a", "b", "c", "de"), "%d %i %x %o %e %g" % (1, 2, 255, 8, 1.5, 0.5))
print("%(a)s-%(b)d" % {"a": "x", "b": 3}, "%c%c" % (65, "b"), "%5.1f|%-6.2f|%+d" % (3.14159, 2.5, 5))
print(str(b"bytes"), str(3 + 0.5), f"{'nested'!r:>10}", "a\\b", r"a\b" == "a\\b")
t = "x"
t += "y"
print(t, t * 0 == "", "abc".__len__(), "ab".__contains__("a"), "ab".__add__("c"))
print(hash("abc") == hash("ab" + "c"), "a".join("123"), "".join(reversed("abc")))
