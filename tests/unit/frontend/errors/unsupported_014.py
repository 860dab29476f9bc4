x = [y for y in z if (w := y)]
