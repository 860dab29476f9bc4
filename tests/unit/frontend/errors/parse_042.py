@
def f(): pass
