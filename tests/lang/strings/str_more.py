# str.format_map, translate/maketrans, casefold, f-string self-documenting expressions, Unicode
# digits in int()/float().
class Defaults(dict):
    def __missing__(self, key):
        return "<" + key + ">"
print("{name} is {age}".format_map({"name": "Ann", "age": 3}), "{a}{b}".format_map(Defaults(a=1)))
table = str.maketrans("abc", "xyz", "d")
print("abcd-cab".translate(table), "hello".translate({ord("l"): None, ord("o"): "0"}), str.maketrans({"a": "b"}))
print("Straße".casefold(), "ΣΑΣ".casefold(), "ﬁ".casefold(), "ABC".casefold() == "abc")
x, y = 3, "q"
print(f"{x=}", f"{x = }", f"{y=!r}", f"{x*2=:>5}", f"{y=!s}")
print(int("١٢٣"), int(" \u2003 42 "), float("٣.٥"), int("۷"), "٣".isdecimal(), "²".isdigit(), "½".isnumeric())
for bad in [lambda: int("1\u00b2"), lambda: float("½"), lambda: "ab".translate(5), lambda: str.maketrans("ab", "c")]:
    try:
        bad()
    except (ValueError, TypeError) as e:
        print(type(e).__name__ + ":", e)
