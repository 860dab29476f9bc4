# Regression: calling f(a, *, k) as f(1) ran the body with `k` unbound (the interpreter's
# positional fast path ignored keyword-only parameters) instead of raising TypeError.
def f(a, *, k):
    return a, k
def g(a, *, k=5):
    return a, k
print(g(1))
try:
    f(1)
except TypeError as e:
    print("TypeError:", e)
