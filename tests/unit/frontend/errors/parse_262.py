match x:
pass
