# Instances still alive when the script ends are finalized at exit, in the order they were made
# (CPython clears __main__'s globals in insertion order); their __del__ can still print.
class D:
    def __init__(self, name):
        self.name = name

    def __del__(self):
        print("del", self.name)


class Holder:
    def __init__(self):
        self.item = D("held")


first = D("first")
second = D("second")
h = Holder()
print("end of script")
