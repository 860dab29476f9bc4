match = 1
match(x)
match x, y:
    case (1, 2): pass
