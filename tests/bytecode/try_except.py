def guarded(x):
    try:
        y = 10 / x
    except ZeroDivisionError as e:
        print("div", e)
        return None
    except (TypeError, ValueError):
        raise
    else:
        y += 1
    finally:
        print("done")
    return y
