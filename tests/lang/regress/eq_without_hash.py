# Regression: a class defining __eq__ but not __hash__ stayed hashable (CPython sets __hash__
# to None).
class P:
    def __eq__(self, o): return True
print(P.__hash__)
try:
    {P(): 1}
except TypeError as e:
    print("TypeError:", e)
class Q(P):
    def __hash__(self): return 1
print(hash(Q()), {Q(): 1}[Q()])
