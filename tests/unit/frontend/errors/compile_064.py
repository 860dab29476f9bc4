match x:
    case {1: a, True: b}:
        pass
