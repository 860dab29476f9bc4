"""A first Ember script: classes, closures, generators and f-strings run as in CPython."""


class Counter:
    def __init__(self):
        self.counts = {}

    def add(self, word):
        self.counts[word] = self.counts.get(word, 0) + 1

    def top(self, n):
        return sorted(self.counts.items(), key=lambda kv: (-kv[1], kv[0]))[:n]


def words(text):
    for w in text.lower().split():
        yield w.strip(".,")


c = Counter()
for w in words("The VM runs the script. The script runs on the VM, unchanged."):
    c.add(w)
for word, n in c.top(3):
    print(f"{word:>8} {n}")
