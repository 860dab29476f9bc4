(x, y): int
