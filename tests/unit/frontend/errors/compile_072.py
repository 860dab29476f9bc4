match x:
    case (a | b):
        pass
    case 2:
        pass
