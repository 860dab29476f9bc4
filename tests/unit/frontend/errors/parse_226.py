del a, *b
