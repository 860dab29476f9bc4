class C:
    y = [z := 1 for _ in range(2)]
