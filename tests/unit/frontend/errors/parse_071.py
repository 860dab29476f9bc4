x = lambda: yield
