{a: b, c}
