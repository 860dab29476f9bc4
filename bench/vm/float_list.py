def run(n):
    xs = []
    for i in range(n):
        xs.append(i * 0.5)
    total = 0.0
    for x in xs:
        total += x
    return total


print(run(1000000))
