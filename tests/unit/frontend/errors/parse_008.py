print "x"
