if True:
    pass
	else_x = 1
