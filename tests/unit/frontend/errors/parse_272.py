match x:
    case {**a, "k": 1}:
        pass
