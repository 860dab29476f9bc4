# An uncaught exception raised inside a with block, in __exit__, through nested calls and a
# generator: the traceback shows every frame with its source line.
class Guard:
    def __enter__(self):
        return self
    def __exit__(self, et, ev, tb):
        print("exit saw", et.__name__)
        return False
def produce():
    yield 1
    raise RuntimeError("generator failed")
def consume():
    with Guard():
        for v in produce():
            print("got", v)
def main():
    consume()
main()
