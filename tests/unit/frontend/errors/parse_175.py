x = 5.e5
x = 5e5.
