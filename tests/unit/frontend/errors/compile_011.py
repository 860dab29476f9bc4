for x in y:
    def f():
        continue
