x = 0o9
