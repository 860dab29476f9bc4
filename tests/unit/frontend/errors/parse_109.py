(x for x in y if)
