class A(*, x): pass
