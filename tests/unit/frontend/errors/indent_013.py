try:
    x
except:
