# return, break and continue interacting with finally.
def ret_in_finally():
    try:
        return "try"
    finally:
        return "finally"
print(ret_in_finally())
def swallow():
    try:
        raise ValueError("lost")
    finally:
        return "finally wins"
print(swallow())
def order():
    log = []
    try:
        log.append(1)
        return log
    finally:
        log.append(2)
print(order())
def break_in_finally():
    for i in range(3):
        try:
            raise KeyError(i)
        finally:
            break
    return i
print(break_in_finally())
def continue_in_finally():
    out = []
    for i in range(3):
        try:
            if i == 1:
                raise ValueError
            out.append(i)
        finally:
            continue
    return out
print(continue_in_finally())
def finally_value():
    x = 1
    try:
        return x
    finally:
        x = 2
print(finally_value())
def nested_finally():
    try:
        try:
            return "inner"
        finally:
            print("f1")
    finally:
        print("f2")
print(nested_finally())
def gen_finally():
    try:
        yield 1
        yield 2
    finally:
        print("gen finally")
g = gen_finally()
for v in g:
    print(v)
    break
g.close()   # CPython would also close it when the last reference goes; Ember needs the call
