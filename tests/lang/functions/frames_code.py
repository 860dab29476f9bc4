# Frames and code objects as inspect and traceback read them: sys._getframe, f_back of live and
# ended frames, f_lineno/f_lasti/f_locals/f_globals/f_builtins, generator frames, locals() as one
# dict per function frame (exec() names stay), frame.clear(), tracebacks (tb_frame, tb_lineno,
# tb_next, TracebackType), and code/function attributes.
import sys
def f():
    x = 1
    fr = sys._getframe()
    y = 2
    return fr
fr = f()
print(fr.f_back.f_code.co_name, fr.f_lineno, sorted(fr.f_locals), fr.f_code.co_name, fr.f_lasti >= 0, type(fr).__name__)
def g():
    fr = sys._getframe()
    return fr.f_back.f_code.co_name, fr.f_back.f_lineno, sys._getframe(1) is fr.f_back
print(g())
def gen():
    yield sys._getframe()
    yield 2
it = gen()
fr2 = next(it)
print(fr2.f_back, it.gi_frame is fr2, fr2.f_lineno, it.gi_frame.f_lineno, it.gi_code.co_name)
next(it); print(it.gi_frame.f_lineno)
try:
    next(it)
except StopIteration:
    pass
print(it.gi_frame)
def h():
    1 / 0
try:
    h()
except ZeroDivisionError as e:
    tb = e.__traceback__
    print(tb.tb_lineno, tb.tb_frame.f_code.co_name, tb.tb_next.tb_frame.f_code.co_name, tb.tb_next.tb_lineno,
          tb.tb_next.tb_next, tb.tb_lasti >= 0, tb.tb_frame is sys._getframe(), type(tb).__name__)
print(fr.f_globals is globals(), fr.f_builtins["len"] is len)
def loc():
    a = 1
    l1 = locals()
    b = 2
    l2 = locals()
    return l1 is l2, sorted(l1)
print(loc())
def loc_exec():
    exec("w = 41")
    return locals()["w"] + 1
print(loc_exec())
def closure():
    c = 5
    def inner():
        return sys._getframe().f_locals, c
    return inner()
print(closure())
print(sys._getframe().f_locals is globals())
try:
    sys._getframe(100)
except ValueError as e:
    print("ValueError:", e)
fr.clear()
print(fr.f_locals)
def cur():
    return sys._getframe().clear()
try:
    cur()
except RuntimeError as e:
    print("RuntimeError:", e)
# walking the stack as traceback.extract_stack does
def a(): return b()
def b(): return c()
def c():
    out = []
    f = sys._getframe()
    while f is not None:
        out.append((f.f_code.co_name, f.f_lineno))
        f = f.f_back
    return out
print(a())
# tb_next assignment and TracebackType
TB = type(tb)
t2 = TB(None, sys._getframe(), 0, 99)
print(t2.tb_lineno, t2.tb_next, t2.tb_frame is sys._getframe())
try:
    tb.tb_next = tb
except ValueError as e:
    print("ValueError:", e)
try:
    tb.tb_next = 5
except TypeError as e:
    print("TypeError:", e)
# code object attributes
def sample(a, b=1, /, c=2, *args, d, e=3, **kw):
    z = a + b
    def inner(): return z
    return inner
co = sample.__code__
print(co.co_name, co.co_qualname, co.co_argcount, co.co_posonlyargcount, co.co_kwonlyargcount, co.co_varnames,
      co.co_cellvars, co.co_freevars, co.co_nlocals, co.co_firstlineno, co.co_filename.endswith(".py"))
print(co.co_flags & 0x1f, sample(1, d=4).__code__.co_freevars, sample(1, d=4).__closure__[0].cell_contents)
print(sample.__defaults__, sample.__kwdefaults__, sample.__globals__ is globals(), type(sample.__closure__))
