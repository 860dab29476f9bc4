# Implicit joining in brackets, backslash continuation, comments, tabs, blank lines.
total = (1 +   # comment inside brackets
         2 +
         3)
items = [
    1,
    2,  # trailing comma next

]
d = {'a':
     1}
x = 1 + \
    2 + \
    3
if total == 6 and \
   x == 6:
    print("continued", total, x, items, d)
def f(a,
      b=2,
      ):
	return a + b   # a tab-indented body
print(f(1))

# a comment-only line

if True:

    print("blank lines inside blocks")    
print(...)
print(True, False, None, Ellipsis is ...)
