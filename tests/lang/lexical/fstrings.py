# f-strings: expressions, conversions, nested format specs, braces, self-documenting off.
x, name, pi = 42, "Ember", 3.14159
print(f"{x}", f"{x + 1}", f"{name!r}", f"{name!s}", f"{name!a}", f"{'é'!a}")
print(f"{{literal}}", f"{x:>{6}}|", f"{pi:.{2}f}", f"{x}{x}", f"a{x}b{name}c")
print(f"{[1, 2][0]}", f"{ {'k': 1}['k'] }", f"{x if x else 0}", f"{(lambda: 5)()}")
print(F"{x:5d}|{x:<5}|{x:^5}|{x:*^7}|")
w = 10
print(f"{name:{w}}|", f"{name:>{w}}|", f'{"nested" + "!"}')
class P:
    def __format__(self, spec):
        return "P<" + spec + ">"
    def __repr__(self):
        return "P()"
    def __str__(self):
        return "p-str"
print(f"{P()}", f"{P():xyz}", f"{P()!r}", f"{P()!s}")
print(f"""multi
{x}""", rf"raw\n{x}", fr"\t{x}")
