while x:

