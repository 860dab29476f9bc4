x = 1else 2
