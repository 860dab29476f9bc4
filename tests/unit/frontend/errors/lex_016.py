x = "\xZZ"
