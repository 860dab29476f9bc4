x: int, y: int = 1, 2
