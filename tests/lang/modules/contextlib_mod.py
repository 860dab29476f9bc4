# contextlib: contextmanager (normal exit, exceptions, suppression, as decorator), nullcontext,
# suppress, closing, ExitStack, redirect_stdout.
import contextlib
from contextlib import contextmanager, nullcontext, suppress, ExitStack
@contextmanager
def tag(name):
    print("<" + name + ">")
    try:
        yield name.upper()
    finally:
        print("</" + name + ">")
with tag("b") as t:
    print("inside", t)
try:
    with tag("err"):
        raise ValueError("boom")
except ValueError as e:
    print("propagated", e)
@contextmanager
def swallow():
    try:
        yield
    except KeyError as e:
        print("swallowed", repr(e))
with swallow():
    {}["missing"]
print("after swallow")
@tag("deco")
def decorated(x):
    print("decorated body", x)
    return x * 2
print(decorated(21))
print(decorated(1))
@contextmanager
def no_yield():
    if False:
        yield
try:
    with no_yield():
        pass
except RuntimeError as e:
    print("RuntimeError:", e)
@contextmanager
def two_yields():
    yield 1
    yield 2
try:
    with two_yields():
        pass
except RuntimeError as e:
    print("RuntimeError:", e)
with nullcontext(5) as v:
    print("nullcontext", v)
with nullcontext():
    print("nullcontext none")
with suppress(ZeroDivisionError, KeyError):
    1 / 0
print("suppressed")
try:
    with suppress(KeyError):
        [][0]
except IndexError:
    print("IndexError not suppressed")
class Res:
    def __init__(self, n): self.n = n
    def close(self): print("closing", self.n)
with contextlib.closing(Res(1)) as r:
    print("using", r.n)
with ExitStack() as stack:
    for i in range(3):
        stack.enter_context(tag(f"s{i}"))
    stack.callback(print, "callback", "args")
    print("stack body")
with ExitStack() as stack:
    stack.enter_context(suppress(ValueError))
    stack.enter_context(tag("x"))
    raise ValueError("swallowed by the stack")
print("after stack")
class Buffer:
    def __init__(self): self.parts = []
    def write(self, s): self.parts.append(s)
buf = Buffer()
with contextlib.redirect_stdout(buf):
    print("captured", 1)
print("buffer:", "".join(buf.parts).strip())
