lambda x: yield x
