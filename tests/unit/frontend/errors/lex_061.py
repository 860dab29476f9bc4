x = 'a' 'b
