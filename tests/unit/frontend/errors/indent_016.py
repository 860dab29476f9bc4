if x:
    pass
elif y:
