# Syntax error: an irrefutable case that is not last (the compiler's check; checked against CPython 3.11).
def f(x):
    match x:
        case [a]:
            return a
        case other:
            return other
        case 0:
            return 0
