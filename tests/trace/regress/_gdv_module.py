# the module whose globals guard_dict_versions.py's compiled functions read through its functions
factor = 2.0
offsets = [1.0]


class Box:
    pass


box = Box()
box.k = 3.0


def apply(t):
    return t * factor + offsets[0]


def boxed(t):
    return t * box.k


def set_factor(v):
    global factor
    factor = v


def set_via_globals(name, v):
    globals()[name] = v


flag = False


def flagged(t):
    # the branch is taken at trace time: the code compiled for one value is wrong for the other
    if flag:
        return t + 100
    return t - 1
