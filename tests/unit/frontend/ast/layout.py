# Comments and blank lines

x = 1  # trailing comment

   # indented comment on its own line
def f():
    # comment inside a function

    return (1 +
            2 +  # comment inside brackets
            3)

y = [
    1,

    2,
]
z = 1 + \
    2 + \
    3
if x:
    if y:
        if z:
            pass
        # dedent through comment
    w = 1
v = {'a': 1,
     'b': 2}
