class A(x=1, x=2): pass
