while x
  pass
