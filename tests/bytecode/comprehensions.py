def comps(xs):
    squares = [x * x for x in xs if x > 0]
    index = {x: i for i, x in enumerate(xs)}
    unique = {x % 3 for x in xs}
    lazy = (x + 1 for x in xs)
    return squares, index, unique, sum(lazy)
