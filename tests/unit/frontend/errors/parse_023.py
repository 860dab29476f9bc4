try:
  pass
