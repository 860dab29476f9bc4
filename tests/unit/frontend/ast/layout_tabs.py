if x:
	y = 1
	if y:
		z = 2
w = 3
