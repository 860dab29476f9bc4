global x,
