# os, os.path, pathlib, shutil, glob, io, struct: the file handling of data-prep and checkpoint
# code, in a scratch directory (paths printed relative to it).  tempfile waits for __del__
# finalizers (pycore): its classes define __del__.
import os, os.path, pathlib, shutil, glob, io, struct, sys, stat

print(os.path.join("a", "b", "c.txt"), os.path.split("/x/y/z.py"), os.path.splitext("m.tar.gz"), os.path.basename("/p/q"))
print(os.path.dirname("/p/q/r"), os.path.normpath("a/./b/../c//d"), os.path.isabs("/a"), os.path.relpath("/a/b/c", "/a"))
print(os.path.expanduser("~") == os.environ.get("HOME"), os.sep, os.name, os.curdir, os.pardir, os.linesep == "\n")
print(os.path.commonprefix(["/a/bc", "/a/bd"]), os.path.commonpath(["/a/b/c", "/a/b/d"]), os.fspath(pathlib.Path("x")))
d = os.path.join("/tmp", "ember_os_files_%d" % os.getpid())
os.mkdir(d)
if True:
    rel = lambda p: os.path.relpath(p, d)
    os.makedirs(os.path.join(d, "data", "raw"), exist_ok=True)
    p = os.path.join(d, "data", "input.txt")
    with open(p, "w") as f:
        f.write("hello world\nsecond line\n")
    with open(p) as f:
        print(f.read().splitlines(), os.path.getsize(p), os.path.exists(p), os.path.isfile(p), os.path.isdir(os.path.dirname(p)))
    with open(p, "a", encoding="utf-8") as f:
        print(f.write("caf\u00e9\n"))
    with open(p, "rb") as f:
        print(f.read())
    with open(p) as f:
        print([line.rstrip("\n") for line in f])
    with open(os.path.join(d, "data", "w.bin"), "wb") as f:
        f.write(struct.pack("<3f", 1.0, 2.5, -3.0))
    with open(os.path.join(d, "data", "w.bin"), "rb") as f:
        print(struct.unpack("<3f", f.read()))
    print(sorted(os.listdir(os.path.join(d, "data"))), sorted(rel(x) for x in glob.glob(os.path.join(d, "data", "*"))))
    print(sorted(rel(x) for x in glob.glob(os.path.join(d, "**", "*.txt"), recursive=True)))
    walked = [(rel(root), sorted(dirs), sorted(files)) for root, dirs, files in os.walk(d)]
    print(sorted(walked))
    shutil.copy(p, os.path.join(d, "copy.txt"))
    shutil.copytree(os.path.join(d, "data"), os.path.join(d, "data2"))
    shutil.move(os.path.join(d, "copy.txt"), os.path.join(d, "data2", "moved.txt"))
    print(sorted(os.listdir(os.path.join(d, "data2"))))
    shutil.rmtree(os.path.join(d, "data2"))
    os.rename(p, p + ".bak")
    os.remove(p + ".bak")
    print(sorted(os.listdir(os.path.join(d, "data"))), stat.S_ISDIR(os.stat(d).st_mode))
    root = pathlib.Path(d)
    q = root / "ckpt" / "model.pt"
    q.parent.mkdir(parents=True)
    q.write_bytes(b"\x00\x01")
    (root / "notes.md").write_text("# notes\n")
    print(q.name, q.stem, q.suffix, q.parent.name, q.exists(), q.read_bytes(), (root / "notes.md").read_text())
    print(sorted(str(x.relative_to(root)) for x in root.rglob("*")), sorted(x.name for x in root.iterdir()))
    print(pathlib.PurePosixPath("/a/b/c.tar.gz").suffixes, pathlib.Path("a/b").with_suffix(".py"), pathlib.Path("x") / "y")
    try:
        open(os.path.join(d, "missing.txt"))
    except FileNotFoundError as e:
        print("FileNotFoundError", e.errno, e.strerror, rel(e.filename))
    try:
        os.mkdir(d)
    except FileExistsError as e:
        print("FileExistsError", e.errno)
    fd = os.open(os.path.join(d, "raw.npy"), os.O_WRONLY | os.O_CREAT, 0o644)
    os.write(fd, b"abc")
    os.close(fd)
    print(os.path.getsize(os.path.join(d, "raw.npy")))
shutil.rmtree(d)
print(os.path.exists(d))
s = io.StringIO()
s.write("a\nb\n")
print(s.getvalue().split(), io.BytesIO(b"xyz").read(2), os.environ.get("EMBER_NOT_SET", "unset"), os.getpid() > 0)
