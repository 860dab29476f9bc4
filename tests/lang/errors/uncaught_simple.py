# An uncaught exception prints a traceback on stderr and exits with status 1.
print("before")
def inner(x):
    return x / 0
def outer():
    return inner(1)
outer()
print("never")
