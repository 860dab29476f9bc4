x = 1e+
