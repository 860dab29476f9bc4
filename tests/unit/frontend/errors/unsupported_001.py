x = 5j
