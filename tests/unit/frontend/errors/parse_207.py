x = [i if i else for i in y]
