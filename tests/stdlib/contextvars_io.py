# _contextvars (ContextVar/Token/Context/copy_context), BytesIO.getbuffer() as a live memoryview,
# pickle through it, decimal/fractions/statistics (which need _contextvars), and ExceptionGroup.
import io, pickle, contextvars
b = io.BytesIO(b"hello")
v = b.getbuffer()
print(bytes(v), len(v))
v[0] = ord("J")
print(b.getvalue())
try: b.write(b"x")
except BufferError as e: print("BufferError", e)
del v
print(b.write(b"!"), b.getvalue(), b.seek(0, 2), b.tell(), b.truncate(3), b.getvalue())
print(pickle.loads(pickle.dumps({"a": [1, 2], "b": b"xy"} , protocol=5)))
cv = contextvars.ContextVar("cv", default=1)
print(cv.get(), cv.name)
t = cv.set(5)
ctx = contextvars.copy_context()
print(cv.get(), ctx[cv], cv in ctx, len(ctx), list(ctx.items()) == [(cv, 5)], t.old_value is contextvars.Token.MISSING)
cv.reset(t); print(cv.get(), ctx.run(cv.get))
def f(x):
    cv.set(x); return cv.get()
print(ctx.run(f, 9), cv.get(), ctx[cv])
try: cv.reset(t)
except RuntimeError as e: print("RuntimeError", str(e)[:20])
v2 = contextvars.ContextVar("nodef")
try: v2.get()
except LookupError as e: print("LookupError", type(e).__name__)
print(v2.get("d"), repr(contextvars.Token.MISSING), contextvars.ContextVar[int])
try: ctx.run(lambda: ctx.run(print))
except RuntimeError as e: print("RuntimeError", str(e)[:22])
import decimal, fractions, statistics
print(decimal.Decimal("1.1") + decimal.Decimal("2.2"), fractions.Fraction(3, 6), statistics.mean([1, 2, 3, 4]), statistics.stdev([1.0, 2.0, 4.0]))
with decimal.localcontext() as c:
    c.prec = 5; print(decimal.Decimal(1) / decimal.Decimal(7))
eg = ExceptionGroup("many", [ValueError(1), TypeError("t")])
print(type(eg).__name__, eg, repr(eg.message), eg.exceptions, eg.args[0], isinstance(eg, Exception), isinstance(eg, BaseExceptionGroup))
beg = BaseExceptionGroup("b", [ValueError()])
print(type(beg).__name__, BaseExceptionGroup("c", [KeyboardInterrupt()]).__class__.__name__, ExceptionGroup.__mro__)
for args in [("m", []), ("m", [1]), (1, [ValueError()]), ("m", 5)]:
    try: ExceptionGroup(*args)
    except Exception as e: print(type(e).__name__, e)
try: ExceptionGroup("x", [KeyboardInterrupt()])
except TypeError as e: print(e)
print(eg.derive([KeyError()]), ExceptionGroup[int])
try:
    raise eg
except ExceptionGroup as e:
    print("caught", e)
import traceback
print(traceback.format_exception_only(type(eg), eg))
