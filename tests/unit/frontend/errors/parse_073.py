x = a not b
