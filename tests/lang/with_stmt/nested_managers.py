# Nested and generator-based context managers: exceptions replaced in __exit__, return values
# from inside with blocks, managers reused, and the order of __exit__ calls.
from contextlib import contextmanager
log = []
@contextmanager
def step(name):
    log.append("enter " + name)
    try:
        yield name
    except ValueError as e:
        log.append(f"{name} handled {e}")
    finally:
        log.append("exit " + name)
with step("outer") as o:
    with step("inner") as i:
        raise ValueError("boom")
    log.append("after inner")
print(log)
class Convert:
    def __enter__(self): return self
    def __exit__(self, et, ev, tb):
        if et is KeyError:
            raise LookupError("converted") from ev
        return False
try:
    with Convert():
        {}["k"]
except LookupError as e:
    print("LookupError:", e, "cause:", repr(e.__cause__))
def find(items, target):
    with step("search"):
        for i, x in enumerate(items):
            if x == target:
                return i
    return -1
log.clear()
print(find("abc", "b"), find("abc", "z"), log)
class Reusable:
    def __init__(self): self.depth = 0
    def __enter__(self):
        self.depth += 1
        return self.depth
    def __exit__(self, *a):
        self.depth -= 1
r = Reusable()
with r as a:
    with r as b:
        print("depths", a, b)
print("after", r.depth)
