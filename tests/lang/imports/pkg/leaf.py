print("init leaf", __name__)
def where():
    return __name__
