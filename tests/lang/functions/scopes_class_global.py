# `global` and `nonlocal` inside class bodies (and methods reaching through them), as CPython:
# a class body's global statement binds module names; nonlocal in a class body reaches the
# enclosing function; class scopes are skipped by nested functions' name lookup.
counter = 0
name = "module"

class A:
    global counter
    counter = 10          # the module's counter
    name = "class A"      # a class attribute
    def get(self):
        return name       # class scope skipped: the module's name

print(counter, A.name, A().get(), "counter" in A.__dict__)

def outer():
    x = 1
    class B:
        nonlocal x
        x = 2
        y = x + 1
        def m(self):
            nonlocal x
            x += 10
            return x
    b = B()
    before = x
    after = b.m()
    return before, after, x, B.y, "x" in B.__dict__

print(outer())

def make():
    v = "enclosing"
    class C:
        v = "class attr"
        def f(self):
            return v          # the function's v, not the class's
        w = [v for _ in range(1)]   # comprehension: class scope skipped as well
    return C().f(), C.v, C.w

print(make())

class D:
    global late
    def set(self):
        global late
        late = "set in method"
D().set()
print(late)

def counter_factory():
    count = 0
    class Counter:
        def inc(self):
            nonlocal count
            count += 1
            return count
    return Counter()

c = counter_factory()
print(c.inc(), c.inc(), c.inc())

class E:
    global made_in_class
    made_in_class = [i * i for i in range(4)]
print(made_in_class, hasattr(E, "made_in_class"))
