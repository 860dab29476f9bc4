print("starting import")
def broken():
    return 1 / 0
VALUE = broken()
