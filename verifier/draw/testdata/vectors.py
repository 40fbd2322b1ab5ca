#!/usr/bin/env python3
"""Independent reference implementation of package draw (stream version 1),
written from the package documentation alone, that generates vectors.json.

Redo the vectors:  python3 verifier/draw/testdata/vectors.py > verifier/draw/testdata/vectors.json
(TestVectors checks the Go code against the file.)"""
import hashlib, json

DOMAIN = b"tirage/draw/v1"

class Stream:
    def __init__(self, beta, label):
        self.prefix = DOMAIN + bytes([len(label)]) + label + beta
        self.buf, self.ctr, self.used = b"", 0, b""
    def read(self, n):
        while len(self.buf) < n:
            self.buf += hashlib.sha256(self.prefix + self.ctr.to_bytes(8, "big")).digest()
            self.ctr += 1
        out, self.buf = self.buf[:n], self.buf[n:]
        self.used += out
        return out
    def uniform(self, n):
        w = 0
        m = n - 1
        while m > 0:
            w += 1
            m >>= 8
        if w == 0:
            return 0
        R = 256 ** w
        limit = R - R % n
        while True:
            x = int.from_bytes(self.read(w), "big")
            if x < limit:
                return x % n
    def bernoulli(self, p, q):
        return self.uniform(q) < p
    def ranked_sample(self, k, n):
        a = list(range(n))
        for i in range(k):
            j = i + self.uniform(n - i)
            a[i], a[j] = a[j], a[i]
        return a[:k]

def beta_of(seed):
    return hashlib.sha256(b"tirage draw vectors " + seed.encode()).digest()

cases = []
def case(seed, label, op, args):
    beta = beta_of(seed)
    s = Stream(beta, label.encode())
    if op == "stream":
        result = s.read(args[0]).hex()
    elif op == "uniform":
        result = [s.uniform(args[0]) for _ in range(args[1])]
    elif op == "bernoulli":
        result = [s.bernoulli(args[0], args[1]) for _ in range(args[2])]
    elif op == "ranked_sample":
        result = s.ranked_sample(args[0], args[1])
    cases.append({"seed": seed, "beta": beta.hex(), "label": label, "op": op, "args": args,
                  "block0": hashlib.sha256(s.prefix + (0).to_bytes(8, "big")).digest().hex(),
                  "consumed": s.used.hex(), "result": result})

case("a", "pick", "stream", [100])
case("b", "x" * 255, "stream", [33])
for n in [1, 2, 3, 30, 100, 129, 255, 256, 257, 1000, 65536, 65537, 16777217, 2**32 + 15, 2**63 + 1, 2**64 - 1]:
    case("u%d" % n, "uniform", "uniform", [n, 8])
for t, (p, q) in enumerate([(3, 506), (86, 969), (59, 455), (3, 44)], 1):
    case("tier", "tier%d" % t, "bernoulli", [p, q, 1])
for n in range(30, 11, -1):
    case("pick%d" % n, "pick", "bernoulli", [3, n, 1])
case("r1", "promo", "ranked_sample", [5, 5])
case("r2", "promo", "ranked_sample", [10, 1000])
case("r3", "promo", "ranked_sample", [3, 3000000])
case("r4", "promo", "ranked_sample", [0, 7])

print(json.dumps({
    "source": "verifier/draw/testdata/vectors.py: independent Python implementation of the package documentation",
    "beta": "SHA-256(\"tirage draw vectors \" || seed)",
    "block0": "SHA-256(\"tirage/draw/v1\" || u8(len(label)) || label || beta || u64be(0))",
    "consumed": "every stream byte the operation read, in order",
    "cases": cases}, indent=1))
