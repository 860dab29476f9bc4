# print: sep, end, multiple arguments, no arguments, objects with __str__, file=sys.stderr.
import sys
print()
print("a", "b", "c")
print("a", "b", sep="-")
print("a", "b", sep="")
print("no newline", end="")
print(" <- same line")
print(1, 2.5, None, True, [1, "x"], (1,), {"k": "v"}, sep=" | ", end=" END\n")
print(*range(5), sep=", ")
print("sep None", "end None", sep=None, end=None)
print("to stdout", file=sys.stdout)
print("to stderr goes to the same capture", file=sys.stderr)
class S:
    def __str__(self): return "S-str"
print(S(), [S()] == [S()])
try:
    print("x", sep=1)
except TypeError as e:
    print("TypeError:", e)
try:
    print("x", end=2)
except TypeError as e:
    print("TypeError:", e)
try:
    print("x", bogus=1)
except TypeError as e:
    print("TypeError:", e)
