# regression: "1" followed by a non-ASCII letter is NUMBER NAME in 3.11, not an
# invalid decimal literal
x = (69é, 1)
