# Exception objects: args, str/repr, attributes, __traceback__, with_traceback, custom
# hierarchies caught in order, catching by a tuple held in a variable, exception lifetime.
class AppError(Exception):
    pass
class NetError(AppError):
    def __init__(self, host, code):
        super().__init__(f"{host} failed with {code}")
        self.host = host
        self.code = code
class Timeout(NetError):
    pass
for exc in [Timeout("a.com", 504), NetError("b.com", 500), AppError("plain"), ValueError("other")]:
    try:
        raise exc
    except Timeout as e:
        print("Timeout", e.host, e.code, e.args)
    except NetError as e:
        print("NetError", e, repr(e))
    except AppError as e:
        print("AppError", e)
    except Exception as e:
        print("Exception", type(e).__name__, e)
handled = (KeyError, IndexError)
for fn in [lambda: {}["x"], lambda: [][0]]:
    try:
        fn()
    except handled as e:
        print("tuple variable caught", type(e).__name__)
e = ValueError("v")
print(e.args, e.__traceback__, e.__cause__, e.__context__, e.__suppress_context__)
try:
    raise e
except ValueError as caught:
    print(caught is e, caught.__traceback__ is not None, type(caught.__traceback__).__name__)
e2 = RuntimeError("x").with_traceback(None)
print(repr(e2), str(KeyError("k", 2)), str(KeyError()), repr(IndexError(1, 2)))
err = None
try:
    int("bad")
except ValueError as ex:
    err = ex
print(type(err).__name__, err, err.args)
try:
    try:
        raise ValueError("first")
    finally:
        print("finally sees the exception in flight")
except ValueError as ex:
    print("then caught", ex)
try:
    raise TypeError("in except")
except TypeError:
    try:
        raise KeyError("nested")
    except KeyError as inner:
        print("nested context:", repr(inner.__context__))
class WithSlots(Exception):
    def __str__(self):
        return "custom " + str(len(self.args))
print(str(WithSlots(1, 2, 3)), repr(WithSlots()), BaseException("b").args)
