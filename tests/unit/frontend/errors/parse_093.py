class A(*a, **b, c): pass
