# raise ... from None hides the context.
try:
    int("x")
except ValueError:
    raise TypeError("bad config") from None
