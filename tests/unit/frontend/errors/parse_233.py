while True:
    pass
else
    pass
