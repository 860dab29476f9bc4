with a:
    pass
with a as b:
    pass
with a as b, c as d:
    pass
with a, b:
    pass
with A() as a, B():
    pass
with (a, b):
    pass
with (a as b, c as d):
    pass
with (a as b, c as d,):
    pass
with (
    open("x") as f,
    open("y") as g,
):
    pass
with a as (b, c):
    pass
with a as [b, c]:
    pass
with a as b.c:
    pass
with a as b[0]:
    pass
with (a) as b:
    pass
def gen():
    with (yield) as x:
        pass
