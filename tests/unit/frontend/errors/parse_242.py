x = a.b.c.
