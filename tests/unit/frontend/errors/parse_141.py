x = a.
