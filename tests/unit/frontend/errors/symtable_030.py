x = [(j := 1) for i in range(3) for j in range(2)]
