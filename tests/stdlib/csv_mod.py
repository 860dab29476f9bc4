# csv (CPython's csv.py over Ember's _csv): reader/writer dialects, quoting modes, escapes,
# DictReader/DictWriter, Sniffer, registry, field_size_limit, errors with CPython's messages.
import csv, io

rows = [["id", "name", "score"], [1, "ann, the first", 3.5], [2, 'say "hi"', None], [3, "multi\nline", -0.25],
        [4, "ünïcode ✓", 10 ** 20], [5, "", 7]]
for quoting in (csv.QUOTE_MINIMAL, csv.QUOTE_ALL, csv.QUOTE_NONNUMERIC):
    s = io.StringIO()
    w = csv.writer(s, quoting=quoting)
    w.writerows(rows)
    text = s.getvalue()
    print(repr(text))
    back = list(csv.reader(io.StringIO(text, newline=""), quoting=quoting))
    print(back)

s = io.StringIO()
w = csv.writer(s, delimiter="\t", quoting=csv.QUOTE_NONE, escapechar="\\", lineterminator="\n")
w.writerow(["a\tb", "c\\d", "e\nf", 'q"q'])
print(repr(s.getvalue()))
print(list(csv.reader(io.StringIO(s.getvalue()), delimiter="\t", quoting=csv.QUOTE_NONE, escapechar="\\")))

data = 'a, "b, c" ,d\r\n"x""y",, \r\n\r\n"multi\r\nline",end\r\n'
for kw in ({}, {"skipinitialspace": True}, {"doublequote": False, "escapechar": "\\"}):
    r = csv.reader(io.StringIO(data, newline=""), **kw)
    print(kw, [row for row in r], r.line_num)

s = io.StringIO()
dw = csv.DictWriter(s, fieldnames=["x", "y", "z"], restval="?", extrasaction="ignore")
dw.writeheader()
dw.writerows([{"x": 1, "y": 2}, {"x": "a,b", "z": 3, "extra": 9}])
print(repr(s.getvalue()))
for row in csv.DictReader(io.StringIO(s.getvalue())):
    print(dict(row))
for row in csv.DictReader(io.StringIO("a,b\n1,2,3,4\n5\n"), restkey="rest", restval="none"):
    print(row)

csv.register_dialect("pipes", delimiter="|", quoting=csv.QUOTE_ALL, lineterminator="\n")
print(sorted(csv.list_dialects()))
d = csv.get_dialect("pipes")
print(d.delimiter, d.quoting, repr(d.lineterminator), d.doublequote, d.escapechar, d.skipinitialspace, d.strict)
s = io.StringIO()
csv.writer(s, "pipes").writerow(["a", 1, None])
print(repr(s.getvalue()), list(csv.reader(["'a'|'b'"], "pipes", quotechar="'")))
csv.unregister_dialect("pipes")
for bad in (lambda: csv.get_dialect("pipes"), lambda: csv.unregister_dialect("nope")):
    try:
        bad()
    except csv.Error as e:
        print("Error", e)

class Semi(csv.Dialect):
    delimiter = ";"
    quotechar = "'"
    doublequote = True
    skipinitialspace = False
    lineterminator = "\n"
    quoting = csv.QUOTE_MINIMAL
s = io.StringIO()
csv.writer(s, Semi).writerow(["a;b", "it's", 2])
print(repr(s.getvalue()), list(csv.reader(io.StringIO(s.getvalue()), Semi)))
print(csv.excel.delimiter, csv.excel_tab.delimiter, repr(csv.unix_dialect.lineterminator))

sample = "name;age;city\nann;31;Oslo\nbob;27;Rome\n"
sn = csv.Sniffer()
dia = sn.sniff(sample)
print(dia.delimiter, sn.has_header(sample))

for kw in ({"delimiter": "ab"}, {"delimiter": 1}, {"quotechar": None, "quoting": csv.QUOTE_ALL}, {"quoting": 9},
           {"lineterminator": None}, {"bogus": 1}, {"escapechar": "xy"}):
    try:
        csv.writer(io.StringIO(), **kw)
        print(kw, "ok")
    except TypeError as e:
        print(kw, "TypeError", e)
for f in (lambda: csv.writer(io.StringIO(), quoting=csv.QUOTE_NONE).writerow(["a,b"]),
          lambda: csv.writer(io.StringIO(), quoting=csv.QUOTE_NONE).writerow([""]),
          lambda: csv.writer(io.StringIO()).writerow(5),
          lambda: list(csv.reader(['a,"b'], strict=True)),
          lambda: list(csv.reader(['"a"b'], strict=True)),
          lambda: list(csv.reader(["a\nb"])),
          lambda: list(csv.reader([b"a,b"])),
          lambda: list(csv.reader(["1,x"], quoting=csv.QUOTE_NONNUMERIC))):
    try:
        print(f())
    except (csv.Error, ValueError) as e:
        print(type(e).__name__, e)
print(list(csv.reader(['a,"b'])), list(csv.reader(['"a"b,c'])))
old = csv.field_size_limit(10)
print(old, csv.field_size_limit())
try:
    list(csv.reader(["x" * 11]))
except csv.Error as e:
    print("Error", e)
csv.field_size_limit(old)
print(list(csv.reader(["1,2.5,'x'"], quoting=csv.QUOTE_NONNUMERIC, quotechar="'")))
print(csv.writer(io.StringIO()).writerow(["ab", "c"]))
s = io.StringIO()
csv.writer(s, quoting=csv.QUOTE_NONNUMERIC).writerow([True, 2, 1.5, "t", None, 3j])
print(repr(s.getvalue()))
