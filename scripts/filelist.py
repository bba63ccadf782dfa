#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Resolve a Beryl source list (<top>.f) into an ordered list of absolute paths.

A .f file lists one source per line, relative to the .f file's own folder.
`-f other.f` includes another list (its direct dependencies). Blank lines and
lines starting with # or // are ignored. Duplicates keep their first position,
so packages listed first stay first.
"""
import sys
from pathlib import Path


def resolve(flist, _seen=None):
    flist = Path(flist).resolve()
    if _seen is None:
        _seen = set()
    if flist in _seen:
        return []
    _seen.add(flist)
    out = []
    for raw in flist.read_text().splitlines():
        line = raw.split("//")[0].strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("-f"):
            inc = (flist.parent / line[2:].strip()).resolve()
            out += resolve(inc, _seen)
        else:
            p = (flist.parent / line).resolve()
            if not p.exists():
                raise FileNotFoundError(f"{flist}: listed source {line} does not exist")
            out.append(p)
    uniq, seen = [], set()
    for p in out:
        if p not in seen:
            seen.add(p)
            uniq.append(p)
    return uniq


if __name__ == "__main__":
    for p in resolve(sys.argv[1]):
        print(p)
