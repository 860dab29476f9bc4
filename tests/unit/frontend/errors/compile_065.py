match x:
    case {"k": a, "k": b}:
        pass
