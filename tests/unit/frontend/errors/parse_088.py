return x y
