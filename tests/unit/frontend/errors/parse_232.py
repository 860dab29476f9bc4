try:
    pass
else:
    pass
finally:
    pass
