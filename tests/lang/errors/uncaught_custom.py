# Uncaught exceptions of user classes print module-qualified names only outside __main__; args
# with several values print as a tuple; an empty message prints just the name.
class ShapeError(Exception):
    pass
class Quiet(Exception):
    def __str__(self):
        return ""
try:
    raise Quiet()
except Quiet as e:
    print(repr(str(e)))
raise ShapeError("expected", (2, 3), "got", (3, 2))
