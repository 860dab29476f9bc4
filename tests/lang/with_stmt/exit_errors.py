# Exceptions raised by __enter__ and __exit__, truthy return values, and missing protocol methods.
class Boom:
    def __enter__(self):
        raise ValueError("enter failed")
    def __exit__(self, *a):
        print("never called")
try:
    with Boom():
        print("no body")
except ValueError as e:
    print("caught", e)
class BadExit:
    def __enter__(self): return self
    def __exit__(self, *a):
        raise RuntimeError("exit failed")
try:
    with BadExit():
        raise KeyError("original")
except RuntimeError as e:
    print("caught", e, "context:", repr(e.__context__))
try:
    with BadExit():
        pass
except RuntimeError as e:
    print("caught on clean exit", e)
class Truthy:
    def __enter__(self): return self
    def __exit__(self, *a): return "yes"
with Truthy():
    1 / 0
print("truthy string suppresses")
class NoExit:
    def __enter__(self): return self
try:
    with NoExit():
        pass
except (AttributeError, TypeError) as e:
    print(type(e).__name__, e)
class NoEnter:
    def __exit__(self, *a): pass
try:
    with NoEnter():
        pass
except (AttributeError, TypeError) as e:
    print(type(e).__name__, e)
