(yield x) = 1
