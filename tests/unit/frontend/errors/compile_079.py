match x:
    case [x] | [y] | [z]:
        pass
