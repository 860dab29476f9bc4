a = 'single'
b = "double"
c = '''triple
single'''
d = """triple
double"""
e = r'raw \n\t'
f = R"RAW \d"
g = b'bytes'
h = B"BYTES"
i = rb'raw bytes \x00'
j = Rb"\q" + bR'\w' + BR"\e" + br'\r'
k = u'unicode kind'
l = U"upper u"
m = 'it\'s' + "say \"hi\"" + 'mixed "quotes"' + "it's"
n = 'a' 'b' "c" '''d''' """e"""
o = ('implicit '
     'joining '
     "across lines")
p = b'a' b'b' B'c'
q = ''
r = b''
s = 'line\
continued'
t = 'tab\tnewline\ncr\rnull\0bell\a'
