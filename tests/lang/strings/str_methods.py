# str methods: searching, splitting, joining, stripping, case, predicates, padding.
s = "Hello, World"
print(s.find("o"), s.find("o", 5), s.find("z"), s.rfind("o"), s.index("W"), s.rindex("l"), s.count("l"), s.count(""))
print(s.startswith("Hell"), s.startswith(("x", "He")), s.endswith("ld"), s.startswith("World", 7), s.endswith("o", 0, 5))
print("a,b,,c".split(","), "a b  c ".split(), "a,b,c".split(",", 1), "  x  ".split(" "), "".split(), "".split(","))
print("a,b,c".rsplit(",", 1), "line1\nline2\r\nline3".splitlines(), "x\n".splitlines(keepends=True))
print("-".join(["a", "b"]), "".join([]), ", ".join(str(i) for i in range(3)), " ".join("abc"))
print("  pad  ".strip(), "xxhixx".strip("x"), "  l".lstrip(), "r  ".rstrip(), "abcba".strip("ab"), "\t\n x \r".strip())
print(s.replace("l", "L"), s.replace("l", "L", 1), "aaa".replace("a", "b", 2), "abc".replace("", "-"))
print(s.upper(), s.lower(), s.swapcase(), "hello world".title(), "hELLO".capitalize(), "ǅ".lower() if False else "")
print("abc".isalpha(), "ab1".isalnum(), "123".isdigit(), " \t".isspace(), "ABC".isupper(), "abc".islower(), "".isdigit())
print("x_1".isidentifier(), "1x".isidentifier(), "Ab".isupper(), "é".isalpha(), "١".isdigit(), "a b".isprintable())
print("ab".ljust(5, "*"), "ab".rjust(5), "ab".center(7, "-"), "42".zfill(5), "-42".zfill(6), "abc".zfill(2))
print("a=b=c".partition("="), "a=b=c".rpartition("="), "abc".partition("x"), "pre_x".removeprefix("pre_"), "x.py".removesuffix(".py"))
print("tab\tx".expandtabs(4), "é".encode(), "abc".encode("ascii"), "x" * 3, "ab" + "cd", "b" in "abc", "abc"[::-1])
print("{} {}".format(1, 2), "{0}{0}".format("r"), "{x}".format(x=5), "%s is %d" % ("x", 5), "%.2f%%" % 12.345, "%r" % "q")
print(str(123), str(1.5), str(None), str([1]), len("日本語"), "日本語"[1], ord("本"), "ß".upper(), "İ".lower() == "i̇")
for bad in [lambda: "abc".index("z"), lambda: "a".join([1]), lambda: "a" + 1, lambda: "abc"[5],
            lambda: "x".split(""), lambda: "%d" % "s", lambda: "{} {}".format(1), lambda: "abc".center(5, "xy")]:
    try:
        bad()
    except (ValueError, TypeError, IndexError, KeyError) as e:
        print(type(e).__name__ + ":", e)
