x = b'abc
