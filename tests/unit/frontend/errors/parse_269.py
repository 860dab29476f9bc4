match x:
    case 1 + 1:
        pass
