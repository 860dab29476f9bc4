@dec
@
def f(): pass
