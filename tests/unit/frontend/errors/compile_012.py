while 1:
    class A:
        break
