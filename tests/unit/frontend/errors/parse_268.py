match x:
    case C(1, a=2, 3, 4):
        pass
