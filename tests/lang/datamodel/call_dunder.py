# __call__ makes instances callable; callable() on every kind of object.
class Adder:
    def __init__(self, n): self.n = n
    def __call__(self, x, *, scale=1): return (x + self.n) * scale
add5 = Adder(5)
print(add5(1), add5(1, scale=10), callable(add5), callable(Adder), callable(5), callable(print))
print(list(map(add5, [1, 2])), sorted([3, 1], key=Adder(0)))
class Deep:
    def __call__(self): return Adder(1)
print(Deep()()(2))
try:
    Adder(1)()
except TypeError as e:
    print("TypeError:", e)
class NotCallable: pass
try:
    NotCallable()()
except TypeError as e:
    print("TypeError:", e)
