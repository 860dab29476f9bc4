# Regression: `return` inside an `except E as e:` handler failed to assemble ("stack underflow"):
# the compiler popped the handled exception twice (HANDLER_CLEANUP and EXCEPTION_HANDLER).
def named():
    try:
        raise ValueError("v")
    except ValueError as e:
        return "named " + str(e)
def unnamed():
    for i in range(3):
        try:
            raise KeyError(i)
        except KeyError:
            if i == 1:
                return "unnamed", i
            continue
def nested():
    try:
        try:
            raise ValueError("a")
        except ValueError:
            raise TypeError("b")
    except TypeError as e:
        return "nested " + str(e)
def in_loop():
    while True:
        try:
            1 / 0
        except ZeroDivisionError:
            break
    return "after break"
print(named(), unnamed(), nested(), in_loop())
