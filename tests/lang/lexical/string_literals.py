# String literals: quotes, triple quotes, escapes, raw strings, implicit joining.
print('single', "double", '''triple
single''', """triple
double""")
print('it\'s', "say \"hi\"", 'tab\tnew\\n', "\x41\101\u00e9\U0001F600", "a")
print(r"raw\n\t", R'raw\'q', r"\\", len(r"\n"))
print("implicit" " joining" ' works', "x" f"{1+1}" "y")
s = ("a"
     "b"
     "c")
print(s, len("é"), len("\n"), "\a\b\f\v\r\0".encode() if False else repr("\a\b\f\v\r\0"))
print(repr('quote"s'), repr("it's"), repr('both \' and "'), repr("\\"), repr("é\u2603"))
print("line one\
 continued")
print('''a\
b''')
print(repr("\x7f\x80\u200b"))
