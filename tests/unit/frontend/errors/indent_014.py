try:
    x
finally:
