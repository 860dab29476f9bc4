async lambda: 1
