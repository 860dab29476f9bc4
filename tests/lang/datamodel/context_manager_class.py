# A class-based context manager that times, records and optionally swallows errors.
class Recorder:
    log = []
    def __init__(self, name, swallow=()):
        self.name = name
        self.swallow = swallow
    def __enter__(self):
        Recorder.log.append("enter " + self.name)
        return self
    def __exit__(self, et, ev, tb):
        Recorder.log.append(f"exit {self.name} {et.__name__ if et else None}")
        return et is not None and issubclass(et, self.swallow)
with Recorder("a") as r:
    r.value = 1
with Recorder("b", swallow=(KeyError,)):
    {}["x"]
try:
    with Recorder("c", swallow=(KeyError,)):
        [][0]
except IndexError:
    Recorder.log.append("IndexError escaped")
print(r.value)
for line in Recorder.log:
    print(line)
