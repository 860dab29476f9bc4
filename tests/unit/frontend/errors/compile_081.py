match x:
    case [a, *_, a]:
        pass
