match x:
    case {1.0: a, 1: b}:
        pass
