# Code objects, cells and functions as types.py, inspect and dis-free tools read them:
# co_positions/co_lines/co_code agree in length, code.replace(), types.CellType, writable
# __code__ (free-variable check), __builtins__, member-descriptor __globals__, FunctionType(...).
def f(x):
    y = x + 1
    return y
co = f.__code__
pos = list(co.co_positions())
print(len(pos) * 2 == len(co.co_code), all(p[2] is None for p in pos), {p[0] for p in pos if p[0]} == {1, 2, 3} or {p[0] for p in pos if p[0]} == {2, 3})
lines = list(co.co_lines())
print(lines[-1][1] == len(co.co_code), sorted({l[2] for l in lines if l[2]}) in ([2, 3], [1, 2, 3]), co.co_stacksize > 0)
c = type(f.__closure__ or (lambda: 0).__closure__ or (lambda v=1: (lambda: v))().__closure__[0])
Cell = type((lambda v=1: (lambda: v))().__closure__[0])
print(Cell.__name__, Cell().__repr__().endswith("empty>"), Cell(5).cell_contents, Cell(1) == Cell(1), Cell() < Cell(0))
cl = Cell()
try:
    cl.cell_contents
except ValueError as e:
    print("ValueError:", e)
cl.cell_contents = 3; print(cl.cell_contents); del cl.cell_contents
try:
    hash(cl)
except TypeError as e:
    print("TypeError:", e)
def g():
    pass
g.__code__ = f.__code__
print(g(1), g.__name__, g.__code__.co_name)
def mk():
    z = 1
    def h(): return z
    return h
try:
    g.__code__ = mk().__code__
except ValueError as e:
    print("ValueError:", e)
try:
    g.__code__ = 5
except TypeError as e:
    print("TypeError:", e)
print(g.__builtins__ is __builtins__.__dict__ if hasattr(__builtins__, "__dict__") else g.__builtins__["len"] is len, type(g.__globals__).__name__)
try:
    g.__globals__ = {}
except AttributeError as e:
    print("AttributeError:", e)
FunctionType = type(f)
print(type(FunctionType.__dict__["__globals__"]).__name__, type(FunctionType.__dict__["__code__"]).__name__)
co2 = co.replace(co_name="zz", co_flags=co.co_flags | 0x100)
print(co2.co_name, co2.co_flags - co.co_flags, co2 is co, co2.co_varnames == co.co_varnames)
try:
    co.replace(co_name=5)
except TypeError as e:
    print("TypeError:", e)
try:
    co.replace(bogus=1)
except TypeError as e:
    print("TypeError:", e)
h = FunctionType(co2, globals())
print(h(41), h.__name__)
