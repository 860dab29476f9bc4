x = (f"""a
  {b} {c!r:>{w}}""")
y = f"""
{
b}"""
z = f'''first {one}
second {two} third {three}
fourth'''
w = (f"{a}"
     f"{b}"
     "plain")
v = f"{x:>{y}}" f"{z}"
