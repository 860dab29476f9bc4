# Ember-specific (recorded with --ember): str and bytes values are immutable C layouts, so
# subclassing them raises NotImplementedError at the class statement (CPython accepts these
# classes).  Types CPython itself refuses keep CPython's TypeError.
for base in (str, bytes):
    try:
        class Sub(base):
            pass
    except NotImplementedError as e:
        print("NotImplementedError:", e)
try:
    class B(bool):
        pass
except TypeError as e:
    print("TypeError:", e)
class Name(str):
    pass
