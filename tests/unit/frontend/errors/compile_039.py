class A(metaclass=M, metaclass=N): pass
