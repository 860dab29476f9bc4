elif x:
    pass
