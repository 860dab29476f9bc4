# Regression: '#' with a zero precision dropped the decimal point, zero padding ignored the
# grouping separators, inf/nan lost their '%', and a multi-byte fill character was rejected.
print(format(3.0, "#.0f"), format(2.5, "#.0e"), format(1234, "09,d"), format(1234567, "012_d"))
print(format(float("inf"), "%"), format(-1234.5, "012,.1f"), format(7, "é>5"), format(1.25, ".1"))
