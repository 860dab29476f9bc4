class A:
  return 1
