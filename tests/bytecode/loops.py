def loops(n):
    total = 0
    for i in range(n):
        if i % 2:
            continue
        total += i
    else:
        total -= 1
    while total > 100:
        total //= 2
        if total == 7:
            break
    return total
