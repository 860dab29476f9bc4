class Acc:
    def __init__(self):
        self.total = 0

    def add(self, v):
        self.total += v
        return self


def run(n):
    a = Acc()
    for i in range(n):
        a.add(i)
    return a.total


print(run(5000000))
