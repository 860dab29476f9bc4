# try with except/else/finally in all combinations.
def run(fail):
    log = []
    try:
        log.append("try")
        if fail:
            raise ValueError("v")
    except ValueError as e:
        log.append("except " + str(e))
    else:
        log.append("else")
    finally:
        log.append("finally")
    return log
print(run(False), run(True))
try:
    pass
finally:
    print("try/finally only")
try:
    raise TypeError("t")
except (ValueError, TypeError) as e:
    print("tuple of types", type(e).__name__)
try:
    raise KeyError("k")
except ValueError:
    print("no")
except LookupError as e:
    print("base class matched", type(e).__name__)
except Exception:
    print("no")
try:
    raise IndexError
except:
    print("bare except")
try:
    try:
        raise ValueError("inner")
    finally:
        print("inner finally")
except ValueError as e:
    print("outer caught", e)
try:
    x = 1
except Exception:
    pass
else:
    print("else without finally", x)
def nested():
    try:
        try:
            raise ValueError("a")
        except ValueError:
            raise TypeError("b")
    except TypeError as e:
        return "caught " + str(e) + " context " + repr(e.__context__)
print(nested())
e = "before"
try:
    raise ValueError("x")
except ValueError as e:
    pass
try:
    print(e)
except NameError as err:
    print("NameError:", err)
