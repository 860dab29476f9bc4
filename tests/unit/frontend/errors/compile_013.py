try:
    pass
finally:
    continue
