# SPDX-License-Identifier: MIT
"""Test-bench helpers for beryl's segmented 100G user interface ("seg": 4 x 16-byte segments per 512-bit
word), written from the rules in docs/blocks/eth.md ("Segmented user interface"), not from the RTL.

- `pack(frames, ...)`: frames -> a list of seg words obeying the rules (the TX source, the loop test).
- `SegParser`: a receiver fed one word per clock; rebuilds frames and records every rule broken in
  `errors` (the RX output checker, and the checker behind `parse`).
- `parse(words)`: a whole word list -> frames, raising SegRuleError on the first rule broken.

A word is a dict: data (int, 512 bits, segment i = bits [128i+127:128i]), ena, sop, eop, err (4-bit ints,
bit i = segment i), mty (16-bit int, 4 bits per segment), tag (int, meaningful with a sop). `None` in a
word list is a clock with no word (ena = 0)."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "common"))
import beryl_seed  # noqa: E402

SEGS = 4
SEG_B = 16


def _word(segs, tag, rng):
    """segs: list of (bytes, sop, eop, err) for segments 0..len-1."""
    data = ena = sop = eop = mty = err = 0
    for i in range(SEGS):
        if i < len(segs):
            b, s, e, x = segs[i]
            ena |= 1 << i
            sop |= int(s) << i
            eop |= int(e) << i
            err |= int(x and e) << i
            if e:
                mty |= (SEG_B - len(b)) << (4 * i)
            # unused bytes of an eop segment carry garbage: the MAC must ignore them
            fill = bytes(rng.getrandbits(8) for _ in range(SEG_B - len(b))) if rng else bytes(SEG_B - len(b))
            seg = bytes(b) + fill
        else:
            seg = bytes(rng.getrandbits(8) for _ in range(SEG_B)) if rng else bytes(SEG_B)
        data |= int.from_bytes(seg, "little") << (128 * i)
    return {"data": data, "ena": ena, "sop": sop, "eop": eop, "mty": mty, "err": err, "tag": tag}


def pack(frames, rng=None, idle_p=0.0, mid_idle_p=0.0, errs=None, tags=None, max_idle=3):
    """Pack `frames` (list of bytes, DA..payload) into seg words back to back, as densely as the rules
    allow: a frame starts at byte 0 of a segment; after an eop the next frame starts in the next segment
    of the same word when it runs past that word (one sop and one eop per word), else in the next word;
    a frame that starts and ends in one word leaves the rest of it empty.
    idle_p: probability of 1..max_idle idle clocks (None) before a frame (the word is closed first);
    mid_idle_p: probability of an idle clock between two words of one frame (illegal: underflow tests).
    errs: per-frame abort flags; tags: per-frame tags (default: the frame index)."""
    words = []
    state = {"cur": [], "tag": rng.getrandbits(16) if rng else 0, "sop": False}

    def flush():
        if state["cur"]:
            words.append(_word(state["cur"], state["tag"], rng))
        state["cur"] = []
        state["tag"] = rng.getrandbits(16) if rng else 0
        state["sop"] = False

    for i, f in enumerate(frames):
        assert len(f) >= 1
        tag = tags[i] if tags is not None else i
        err = bool(errs[i]) if errs is not None else False
        if i and idle_p and rng.random() < idle_p:
            flush()
            words.extend([None] * rng.randint(1, max_idle))
        nseg = -(-len(f) // SEG_B)
        if state["cur"]:
            room = SEGS - len(state["cur"])
            # the word already ends a frame; a second one may start only if none started here and the new
            # one runs past the word
            if room == 0 or state["sop"] or nseg <= room:
                flush()
        for s in range(nseg):
            if len(state["cur"]) == SEGS:
                flush()
                if mid_idle_p and rng.random() < mid_idle_p:
                    words.append(None)
            chunk = f[SEG_B * s:SEG_B * (s + 1)]
            first, last = s == 0, s == nseg - 1
            if first:
                state["sop"] = True
                state["tag"] = tag
            state["cur"].append((chunk, first, last, err and last))
        if len(state["cur"]) == SEGS:
            flush()
    flush()
    return words


class SegRuleError(AssertionError):
    pass


class SegParser:
    """Receiver model: feed one word per clock (ena = 0 for a clock without a word). Completed frames go
    to `frames` as dicts: data (bytes), err, sop_at / eop_at (the caller's `now` when the sop / eop word
    was fed) and the side fields given with the sop word (e.g. tag, ts, col). Rules checked (each broken
    one appends a message to `errors`): ena contiguous from segment 0; sop/eop/err only in enabled
    segments, err only with eop; at most one sop and one eop per word; a sop only at segment 0 or right
    after an eop, never inside an open frame; no enabled segment outside a frame; a frame that continues
    past a word has all four segments enabled; no empty word inside a frame (unless allow_gaps)."""

    def __init__(self, allow_gaps=False):
        self.allow_gaps = allow_gaps
        self.frames = []
        self.cur = None
        self.errors = []
        self.words = 0
        self.now = 0

    def _err(self, msg):
        if len(self.errors) < 20:
            self.errors.append(f"word {self.words}: {msg}")

    def feed(self, data, ena, sop, eop, mty, err, **side):
        self.words += 1
        if ena == 0:
            if sop or eop or err:
                self._err(f"sop/eop/err without ena ({sop:x}/{eop:x}/{err:x})")
            if self.cur is not None and not self.allow_gaps:
                self._err("empty word inside a frame")
            return
        n = ena.bit_length()
        if ena != (1 << n) - 1:
            self._err(f"ena {ena:04b} not contiguous from segment 0")
        if (sop | eop | err) & ~ena:
            self._err(f"sop {sop:04b} / eop {eop:04b} / err {err:04b} outside ena {ena:04b}")
        if bin(sop).count("1") > 1 or bin(eop).count("1") > 1:
            self._err(f"more than one sop ({sop:04b}) or eop ({eop:04b})")
        if err & ~eop:
            self._err(f"err {err:04b} without eop {eop:04b}")
        b = int(data).to_bytes(SEGS * SEG_B, "little")
        for i in range(n):
            seg = b[SEG_B * i:SEG_B * (i + 1)]
            if (sop >> i) & 1:
                if self.cur is not None:
                    self._err(f"sop in segment {i} inside an open frame")
                if i > 0 and not (eop >> (i - 1)) & 1:
                    self._err(f"sop in segment {i} not right after an eop")
                self.cur = dict(side, data=bytearray(), sop_at=self.now)
            if self.cur is None:
                self._err(f"segment {i} enabled outside a frame")
                continue
            if (eop >> i) & 1:
                m = (mty >> (4 * i)) & 15
                self.cur["data"] = bytes(self.cur["data"] + seg[:SEG_B - m])
                self.cur["err"] = (err >> i) & 1
                self.cur["eop_at"] = self.now
                self.frames.append(self.cur)
                self.cur = None
            else:
                self.cur["data"] += seg
        if self.cur is not None and n < SEGS:
            self._err(f"frame open past a word with ena {ena:04b}")


def parse(words, allow_gaps=False):
    """Read a seg word list back into frames [(bytes, err, tag)]; SegRuleError on any rule broken (the
    rules of SegParser) or a stream that ends inside a frame."""
    p = SegParser(allow_gaps=allow_gaps)
    for w in words:
        if w is None:
            p.feed(0, 0, 0, 0, 0, 0)
        else:
            p.feed(w["data"], w["ena"], w["sop"], w["eop"], w["mty"], w["err"], tag=w["tag"])
        if p.errors:
            raise SegRuleError(p.errors[0])
    if p.cur is not None:
        raise SegRuleError("stream ends inside a frame")
    return [(f["data"], bool(f["err"]), f["tag"]) for f in p.frames]


def drive(dut, w):
    """Put seg word `w` (a dict as pack() makes) on a DUT's s_seg_* inputs."""
    for k in ("data", "ena", "sop", "eop", "mty", "err", "tag"):
        getattr(dut, "s_seg_" + k).value = w[k]


def _self_check():
    rng = beryl_seed.rng(1, "segtb self check")
    for _ in range(200):
        frames = [bytes(rng.getrandbits(8) for _ in range(rng.choice([1, 14, 16, 17, 33, 48, 49, 60, 64, 65,
                                                                          rng.randint(1, 300)])))
                  for _ in range(rng.randint(1, 12))]
        words = pack(frames, rng, idle_p=0.3)
        got = parse(words)
        assert [g[0] for g in got] == frames
        assert [g[2] for g in got] == list(range(len(frames)))
    # the checker catches violations
    w = pack([bytes(40), bytes(40)], rng)
    bad = [[dict(w[0], ena=5)] + w[1:], [dict(w[0], sop=3)] + w[1:], [dict(w[0], eop=0)] + w[1:]]
    w2 = pack([bytes(100), bytes(100)], rng)         # eop in segment 2 of word 1, sop in segment 3
    assert w2[1]["eop"] == 4 and w2[1]["sop"] == 8
    bad += [[w2[0], dict(w2[1], sop=0)] + w2[2:], [w2[0], dict(w2[1], err=8)] + w2[2:],
            [w2[0], None] + w2[1:]]                  # idle clock inside the first frame
    for b in bad:
        try:
            parse(b)
        except SegRuleError:
            continue
        raise AssertionError(f"rule checker missed {b}")
    assert [f[0] for f in parse([w2[0], None] + w2[1:], allow_gaps=True)] == [bytes(100)] * 2


if __name__ == "__main__":
    _self_check()
    print("segtb self check ok")

