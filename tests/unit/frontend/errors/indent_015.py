with a:
