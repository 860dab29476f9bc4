match x:
    case (x as y) | (y as x):
        pass
