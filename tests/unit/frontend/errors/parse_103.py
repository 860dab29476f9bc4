for x in : pass
