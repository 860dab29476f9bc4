x: int = *a
