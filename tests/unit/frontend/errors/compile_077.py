match x:
    case a if a:
        pass
    case b:
        pass
    case 3:
        pass
