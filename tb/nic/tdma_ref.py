# SPDX-License-Identifier: MIT
"""Reference pieces for the TDMA tests (docs/blocks/tdma.md), written from the definitions, not the RTL.

SlotProg: cycle-level slot inputs of the shape beryl_ptp_tdma_timer produces (slot_valid, slot_index,
slot_start, slot_left_ns), from a repeating list of intervals: a slot index, GAP (no slot, time left until
the next slot) or SEARCH (no slot known, left 0). slot_left_ns in the first cycle of an n-cycle interval is
n * ns_per_cycle minus a random 0..ns_per_cycle-1 (the timer floors a fractional time).

gate_need_ns / gate_allows: the TX gate's rule, a frame may start when it can finish before its slot
closes: ceil((max(len, 60) + overhead) * ns_per_byte) + margin <= slot_left_ns.
"""
import random

GAP = "gap"
SEARCH = "search"
FRAC = 1 << 24          # ns per byte fixed point (8.24)


class SlotProg:
    def __init__(self, pattern, ns_per_cycle=4, seed=0):
        self.pattern = list(pattern)
        self.ns = ns_per_cycle
        self.rng = random.Random(seed)
        self.pos = 0
        self.left = self.pattern[0][1]
        self.first = True
        self.occ = 0            # number of the current interval since the start (unique per occurrence)

    def set_pattern(self, pattern):
        """Switch at the end of the current interval."""
        self.next_pattern = list(pattern)

    def step(self):
        """Inputs for this cycle: (valid, index, start, left_ns, occurrence, kind); then advance a cycle."""
        kind, _ = self.pattern[self.pos]
        valid = kind not in (GAP, SEARCH)
        if kind == SEARCH:
            left = 0
        else:
            left = self.left * self.ns - self.rng.randrange(self.ns)
        out = (int(valid), kind if valid else 0, int(valid and self.first), left, self.occ, kind)
        self.first = False
        self.left -= 1
        if self.left == 0:
            nxt = getattr(self, "next_pattern", None)
            if nxt is not None:
                self.pattern, self.pos = nxt, 0
                self.next_pattern = None
            else:
                self.pos = (self.pos + 1) % len(self.pattern)
            self.left = self.pattern[self.pos][1]
            self.first = True
            self.occ += 1
        return out


def nspb_fx(ns_per_byte):
    """ns per byte in the gate's 8.24 format, rounded up (a frame never looks shorter than it is)."""
    return -(-round(ns_per_byte * 10**9) * FRAC // 10**9)


def gate_need_ns(length, nspb, overhead, margin, min_frame=60):
    """Time a frame needs from its release at the gate until its last byte, ns (rounded up)."""
    wire = max(length, min_frame) + overhead
    return -(-wire * nspb // FRAC) + margin


def gate_allows(length, nspb, overhead, margin, left_ns):
    return gate_need_ns(length, nspb, overhead, margin) <= left_ns
