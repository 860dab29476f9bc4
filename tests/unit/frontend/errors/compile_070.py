match x:
    case C(__debug__=1):
        pass
