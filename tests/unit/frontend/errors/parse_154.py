{a:, b: c}
