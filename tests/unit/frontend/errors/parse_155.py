{a b: c}
