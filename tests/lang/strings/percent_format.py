# printf-style %-formatting: every conversion, flags, width/precision (incl. *), mappings.
print("%s|%r|%a|%c|%c" % ("é", "é", "é", 66, "z"))
print("%d|%i|%u|%5d|%-5d|%05d|%+d|% d|%.3d" % (1, -2, 3, 42, 42, -42, 7, 7, 5))
print("%x|%X|%#x|%#X|%o|%#o|%08.3x|%x" % (255, 255, 255, 255, 8, 8, 255, -255))
print("%f|%.2f|%10.3f|%-10.1f|%+.1e|%E|%g|%G|%#g|%.0f|%#.0f" % (3.14159, 2.675, -1.5, 2.25, 12345.678, 0.5, 1e-5, 1e20, 1.0, 2.5, 2.5))
print("%5s|%-5s|%.2s|%5.1s|%05s" % ("ab", "ab", "abc", "xyz", "q"))
print("%*d|%-*d|%.*f|%*.*f" % (5, 1, 5, 2, 2, 3.14159, 8, 3, 2.0))
print("%(name)s is %(age)d years" % {"name": "Ann", "age": 30}, "%(x)s %(x)r" % {"x": "v"})
print("%s" % [1, 2], "%s" % (1,), "%s %s" % (None, True), "%d%%" % 50, "%f" % 1, "%d" % 3.99, "%05.1f" % float("inf"))
print("no args" % (), "%s" % {"k": 1}, "100%% sure" % ())
for bad in [lambda: "%d" % "x", lambda: "%s %s" % (1,), lambda: "%s" % (1, 2), lambda: "%z" % 1,
            lambda: "%(k)s" % (1,), lambda: "%x" % 1.5, lambda: "%c" % "ab", lambda: "%" % (), lambda: "%f" % "x"]:
    try:
        bad()
    except (TypeError, ValueError, KeyError) as e:
        print(type(e).__name__ + ":", e)
