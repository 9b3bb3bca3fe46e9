"""Compares two foehn checkpoints field by field, bit for bit (session 19, call 4).

Prints per field: equal bits, or the largest |a - b| / max|a|; and whether the files are
byte-identical as a whole. Reads the format of docs/adr/0013 (TOML header, raw
little-endian fields, BLAKE3 checksum): field names, dtypes and byte counts from the
header, the fields' bytes just before the 32-byte checksum."""
import re
import sys

import numpy as np


def fields(path):
    d = open(path, "rb").read()
    head = d[: min(len(d), 1 << 20)].decode("latin1")
    spec = re.findall(
        r'\[\[fields\]\]\nname = "([^"]+)"\ndtype = "([^"]+)"\nshape = \[[^\]]*\]\nbytes = (\d+)', head
    )
    total = sum(int(b) for _, _, b in spec)
    off = len(d) - 32 - total
    out = {}
    for name, dtype, b in spec:
        b = int(b)
        out[name] = (dtype, d[off : off + b])
        off += b
    return d, out


da, a = fields(sys.argv[1])
db, b = fields(sys.argv[2])
print(f"{sys.argv[1]} and {sys.argv[2]}: byte-identical files: {da == db}; fields {len(a)} / {len(b)}")
differ = 0
for name in sorted(set(a) | set(b)):
    if name not in a or name not in b:
        print(f"  {name}: only in one file")
        differ += 1
        continue
    (ta, xa), (tb, xb) = a[name], b[name]
    if xa == xb:
        continue
    differ += 1
    if ta == "f64" and tb == "f64":
        va, vb = np.frombuffer(xa, "<f8"), np.frombuffer(xb, "<f8")
        scale = np.abs(va).max() or 1.0
        print(f"  {name}: differs, max |a-b|/max|a| = {np.abs(va - vb).max() / scale:.3e}")
    else:
        print(f"  {name}: differs ({ta})")
print(f"fields that differ: {differ}")
