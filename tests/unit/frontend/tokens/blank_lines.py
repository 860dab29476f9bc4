x = 1


   
	
# only comments
if x:
    y = 2
    # trailing comment

