# tests/hostile/python.sh: threads, exceptions raised and caught through
# many frames, generators, a recursion limit hit and survived, a C
# extension call (zlib).  Prints in a fixed order, exits 7.
import sys
import threading
import zlib


def deep(n):
    return 0 if n == 0 else deep(n - 1) + 1


def gen(n):
    for i in range(n):
        yield i * i


def work(i, out):
    try:
        if i % 2:
            raise ValueError(i)
        out[i] = sum(gen(1000 + i))
    except ValueError as e:
        out[i] = -int(str(e))


out = [None] * 6
ts = [threading.Thread(target=work, args=(i, out)) for i in range(6)]
for t in ts:
    t.start()
for t in ts:
    t.join()
print(out)
print(deep(500))
try:
    deep(10 ** 6)
except RecursionError:
    print("recursion limit")
data = b"utrace " * 1000
print(len(zlib.compress(data)), zlib.decompress(zlib.compress(data)) == data)
sys.exit(7)
