def run(n):
    i = 0
    x = 0.0
    while i < n:
        x = x + 0.5
        i += 1
    return x


print(run(10000000))
