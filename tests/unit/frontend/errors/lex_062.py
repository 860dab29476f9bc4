x = b"\xZZ"
