# Annotations (PEP 526): module, class and function __annotations__, evaluation order, and
# annotated targets that are not simple names.
def ann(a: int, *args: 'str', b: float = 1.0, **kw: bool) -> None:
    pass


print(ann.__annotations__)
x: int = 5
y: 'str'
print(__annotations__)
try:
    y
except NameError as e:
    print(e)


class A:
    p: int
    q: str = 'q'
    (r): list = []


print(A.__annotations__, A.q, 'p' in A.__dict__)


def loc():
    z: int = 3
    w: undefined_name_never_evaluated
    return z


print(loc(), loc.__annotations__)
order = []


def note(v):
    order.append(v)
    return v


class B:
    attr: note('annotation') = note('value')


print(order, B.__annotations__)


class Obj:
    pass


o = Obj()
o.field: note('attr ann') = 7
d = {}
d['key']: note('sub ann') = 8
print(o.field, d, order)
print('field' in __annotations__)

