match x:
    case f"x":
        pass
