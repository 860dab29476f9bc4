def make_adder(k):
    def add(x):
        return x + k
    return add


def run(n):
    add = make_adder(3)
    s = 0
    for i in range(n):
        s = add(s)
    return s


print(run(5000000))
