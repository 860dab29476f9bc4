# sys.setrecursionlimit moves where RecursionError comes, both ways: a deeper limit lets
# recursion reach depths the default refuses (the frames beyond the default are prepared when
# the limit rises), a lower one stops sooner, and a limit below the current depth is refused.
import sys


def depth(n):
    try:
        return depth(n + 1)
    except RecursionError:
        return n


def count(n):
    return 0 if n == 0 else 1 + count(n - 1)


def method_chain(obj, n):
    return obj.step(n)


class Walker:
    def step(self, n):
        return n if n == 0 else method_chain(self, n - 1) + 1


print(sys.getrecursionlimit())
base = depth(0)
print(base > 900, base < 1000)
sys.setrecursionlimit(6000)
print(sys.getrecursionlimit())
print(count(5500))
print(Walker().step(2900))
deep = depth(0)
print(deep > base + 4900, deep < 6000)
sys.setrecursionlimit(300)
low = depth(0)
print(low > 250, low < 300)
try:
    count(400)
except RecursionError as e:
    print("RecursionError:", e)
def at_depth(n):
    if n:
        return at_depth(n - 1)
    try:
        sys.setrecursionlimit(50)
    except RecursionError as e:
        return str(e).split(" at the recursion depth")[0]
print(at_depth(100))
sys.setrecursionlimit(1000)
print(count(900))
try:
    sys.setrecursionlimit(0)
except ValueError as e:
    print("ValueError:", e)
