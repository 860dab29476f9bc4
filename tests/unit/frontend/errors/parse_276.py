match x:
    case [1, 2] if :
        pass
