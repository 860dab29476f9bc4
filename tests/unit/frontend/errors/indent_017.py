if x:
    pass
else:
