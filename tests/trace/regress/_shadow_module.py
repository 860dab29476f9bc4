# the module whose builtins guard_builtin_shadow.py's compiled functions read through its functions
def count(xs):
    return len(xs)


def biggest(t):
    return max(t.shape)


def shadow_len():
    global len

    def len(xs):
        return 100

    return len


def unshadow_len():
    global len
    del len
