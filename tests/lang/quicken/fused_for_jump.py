# A loop's jump back runs the specialised FOR_ITER it goes to (JUMP_FOR_ITER, opcodes.def note
# [15]).  The same loop given a range, then a list, a tuple, a generator and a string (the
# specialised FOR_ITER de-optimises under the jump), a list grown and shrunk while it is walked,
# `continue` from another line, nested loops, break and else, an exception leaving the loop.
def walk(it):
    out = []
    for x in it:
        out.append(x)
    return out


print(walk(range(5)), walk(range(3)), walk([7, 8]), walk((1, 2)), walk(c for c in "ab"), walk("xyz"))
print(walk(range(10, 0, -3)), walk([]), walk(range(0)), walk(range(4)))


# the loop specialised again between kinds of iterable
kinds = {100: [1, 2], 200: "ab", 300: (3,), 400: iter([4]), 500: range(2, 3)}
print([walk(kinds.get(k, range(k % 3))) for k in range(600)][99::50])


def grow(xs):
    out = []
    for x in xs:
        if x < 3:
            xs.append(x + 10)
        out.append(x)
    return out


def shrink(xs):
    out = []
    for x in xs:
        out.append(x)
        if xs:
            xs.pop()
    return out


print(grow([0, 1, 2, 3]), shrink(list(range(8))))


def skip(n):
    out = []
    for i in range(n):
        if i % 3 == 0:
            continue
        for j in range(i):
            if j == 2:
                break
            out.append((i, j))
        else:
            out.append(i)
    return out


print(skip(8))


def raising(n):
    total = 0
    for i in range(n):
        total += 10 // (5 - i)
    return total


try:
    print(raising(4))
    print(raising(8))
except ZeroDivisionError as e:
    import sys
    print("ZeroDivisionError", e, sys.exc_info()[2].tb_next.tb_lineno)


def loop_lists(xss):
    t = 0
    for xs in xss:
        for x in xs:
            t += x
    return t


print(loop_lists([[1, 2], [3], range(4), (5, 6), [], [7, 8, 9]]))
