"""A sibling module imported by the tests in this directory."""
print("importing _helper as", __name__)
VALUE = 42
_private = "hidden"
def double(x):
    return 2 * x
class Thing:
    def __repr__(self):
        return "Thing()"
