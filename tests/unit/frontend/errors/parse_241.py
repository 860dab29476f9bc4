x = a ! b
