x = [a for a in (b := [1, 2])]
