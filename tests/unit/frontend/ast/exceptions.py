try:
    pass
except:
    pass
try:
    x = 1
except ValueError:
    pass
except (TypeError, KeyError) as e:
    raise
except Exception as err:
    raise RuntimeError("wrapped") from err
else:
    y = 2
finally:
    z = 3
try:
    pass
finally:
    cleanup()
raise
raise ValueError
raise ValueError("msg")
raise ValueError("msg") from None
assert x
assert x, "message"
assert isinstance(x, int), f"bad {x!r}"
