x = .a
