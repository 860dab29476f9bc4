# tempfile (its classes define __del__): TemporaryDirectory, mkstemp, mkdtemp, NamedTemporaryFile,
# TemporaryFile, SpooledTemporaryFile; paths are printed relative to their directory.
import os, tempfile, shutil

with tempfile.TemporaryDirectory(prefix="ember_") as d:
    print(os.path.isdir(d), os.path.basename(d).startswith("ember_"))
    fd, p = tempfile.mkstemp(suffix=".bin", dir=d)
    os.write(fd, b"abc")
    os.close(fd)
    print(os.path.dirname(p) == d, p.endswith(".bin"), os.path.getsize(p))
    sub = tempfile.mkdtemp(dir=d)
    print(os.path.isdir(sub), os.path.dirname(sub) == d)
    with tempfile.NamedTemporaryFile("w+", suffix=".txt", dir=d) as f:
        f.write("hello")
        f.flush()
        f.seek(0)
        print(f.read(), os.path.exists(f.name), f.name.endswith(".txt"))
        name = f.name
    print(os.path.exists(name))
    with tempfile.NamedTemporaryFile(dir=d, delete=False) as f:
        f.write(b"kept")
    print(open(f.name, "rb").read())
    with tempfile.TemporaryFile() as t:
        t.write(b"xyz")
        t.seek(0)
        print(t.read())
    with tempfile.SpooledTemporaryFile(max_size=10) as s:
        s.write(b"small")
        print(s._rolled, s.tell())
        s.write(b"x" * 20)
        print(s._rolled)
    td = tempfile.TemporaryDirectory(dir=d)
    tdn = td.name
    td.cleanup()
    print(os.path.exists(tdn), sorted(x == os.path.basename(sub) for x in os.listdir(d)))
print(os.path.exists(d), tempfile.gettempdir() == "/tmp", isinstance(tempfile.gettempprefix(), str))
