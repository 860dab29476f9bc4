def add(a, b=1):
    c = a + b
    if c > 10:
        return c
    return [x * 2 for x in range(c)]


class Point:
    def __init__(self, x):
        self.x = x
