else:
  pass
