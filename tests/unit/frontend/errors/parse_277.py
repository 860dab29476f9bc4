match x:
    case 1 as x.y:
        pass
