# exec(), eval() and compile(): namespaces, code objects, argument errors (CPython 3.11's rules).
ns = {}
exec("x = 1\ny = x + 1\ndef f(a): return a * y\n", ns)
print(sorted(k for k in ns if k != "__builtins__"), ns["f"](3), type(ns["__builtins__"]).__name__)
print(eval("x + y", ns), eval("  x * 10", ns), eval(b"y", ns), eval("[i*i for i in range(4)]"))
g = {"a": 5}
loc = {}
exec("b = a + 1", g, loc)
print(loc, "b" in g)
code = compile("c = 42", "<mine>", "exec")
print(type(code).__name__, code.co_filename, code.co_name)
exec(code, g)
print(g["c"])
e = compile("1 + 2", "<e>", "eval")
print(eval(e), eval(e, {}), e.co_name)

def in_func():
    z = 7
    print(eval("z + 1"), eval("z", {"z": 0}), eval("z", {}, {"z": -1}))
    exec("print('exec sees', z)")

in_func()

class Mapping:
    def __getitem__(self, k):
        if k == "magic":
            return 99
        raise KeyError(k)

print(eval("magic", {}, Mapping()))
try:
    eval("missing", {}, Mapping())
except NameError as err:
    print("NameError", err)

for bad in ["1 +", "x = ", "def", "a\nb c", "(]"]:
    try:
        compile(bad, "<bad>", "exec")
    except SyntaxError as err:
        print(type(err).__name__, err.msg, err.lineno, err.offset, err.filename, repr(err.text))

for args in [("1", "f", "nope"), ("1", "f", "exec", 0x8), ("1", "f", "exec", 0, False, 5), (1, "f", "exec"),
             ("1", 3, "exec"), ("a\0b", "f", "exec")]:
    try:
        compile(*args)
    except (ValueError, TypeError, SyntaxError) as err:
        print(type(err).__name__, err)

for fn, a in [(exec, ("1", [])), (eval, ("1", [])), (eval, ("1", {}, 1)), (exec, (1,)), (eval, (1,)),
              (exec, ("1", {}, 1))]:
    try:
        fn(*a)
    except TypeError as err:
        print(fn.__name__, err)

try:
    eval("1/0")
except ZeroDivisionError as err:
    print("ZeroDivisionError", err)

print(eval("__name__", {"__name__": "mod"}))
exec("import sys as _s; print(type(_s).__name__)", {})
print(compile("'doc'", "d", "exec").co_consts, eval(compile("'doc'", "d", "eval")))

def outer():
    v = 10
    def inner():
        return v
    try:
        exec(inner.__code__)
    except TypeError as err:
        print("TypeError", err)
    try:
        eval(inner.__code__)
    except TypeError as err:
        print("TypeError", err)

outer()
counter = {"n": 0}
exec("for i in range(3):\n    n += i\n", counter)
print(counter["n"])
src = "class K:\n    attr = 3\n    def m(self): return self.attr * 2\nresult = K().m()\n"
space = {}
exec(src, space)
print(space["result"], space["K"].__module__ if "__name__" in space else "no __name__")
print(eval("lambda q: q + 1")(1), eval("(lambda: __name__)()", {"__name__": "inner"}))
