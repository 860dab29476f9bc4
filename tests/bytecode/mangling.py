class Counter:
    __step = 1
    def __init__(self, __start=0):
        self.__n = __start
    def __bump(self):
        global __total
        self.__n += Counter.__step
        __total = [__i for __i in range(self.__n)]
    def run(self, key):
        self.__bump()
        return dict(__key=key)
