# and/or/not return values and short-circuit evaluation; conditional expressions.
def t(x):
    print("eval", x)
    return x
print(t(0) and t(1))
print(t(2) and t(3))
print(t(0) or t(4))
print(t(5) or t(6))
print(t([]) or t({}) or t("last"))
print(not t(""), not t("x"))
print(t(1) if t(True) else t(2))
print(t(1) if t(None) else t(2))
print([] and 1, [0] and 1, None or 0, "" or None)
x = 0
y = x and 1 / x
print(y)
class Loud:
    def __bool__(self):
        print("bool called")
        return False
print(Loud() or "fallback", not Loud())
class Sized:
    def __len__(self):
        return 0
print(bool(Sized()), "yes" if Sized() else "no")
