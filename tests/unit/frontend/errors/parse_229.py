try:
    pass
except E as e, f:
    pass
