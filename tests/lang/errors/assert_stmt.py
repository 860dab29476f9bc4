# assert with and without a message; the message expression is evaluated only on failure;
# an uncaught AssertionError.
def msg():
    print("message evaluated")
    return "custom"
assert True, msg()
try:
    assert 0, msg()
except AssertionError as e:
    print("caught:", e, e.args)
try:
    assert [], ("tuple", 1)
except AssertionError as e:
    print("caught:", e.args)
x = 5
assert x > 10, f"x is {x}"
