match x:
    case {1: _, **_}:
        pass
