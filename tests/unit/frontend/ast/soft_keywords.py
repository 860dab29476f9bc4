match = 1
match.x = 2
print(match)
case = 3
_ = 4
match(x)
case(y)
def match(case): return case
class _: pass
x = f"{x:=5}"
y = rb"\x" + br"\N{x}"
