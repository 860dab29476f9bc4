x = '''abc
def
