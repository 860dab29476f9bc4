# Unbounded recursion raises RecursionError (limit 1000 frames) instead of crashing; the
# traceback folds the repeated lines.
import sys
print(sys.getrecursionlimit())
def down(n):
    return down(n + 1)
try:
    down(0)
except RecursionError as e:
    print("RecursionError:", e)
def depth(n):
    try:
        return depth(n + 1)
    except RecursionError:
        return n
print(depth(0) > 900)
class R:
    def __repr__(self):
        return repr(self)
try:
    repr(R())
except RecursionError as e:
    print("RecursionError:", e)
down(0)
