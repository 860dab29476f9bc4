x = [(yield) for i in y]
