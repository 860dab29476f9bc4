# Syntax error: a positional sub-pattern after a keyword one (the parser's invalid_class_pattern; checked against CPython 3.11).
match point:
    case Point(x=0, y):
        pass
