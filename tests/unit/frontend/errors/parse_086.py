assert x,
