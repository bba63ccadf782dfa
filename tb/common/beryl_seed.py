# SPDX-License-Identifier: MIT
"""One seed knob for every randomised bench.

    BERYL_SEED unset      the test's own fixed seed (what CI runs; a failure replays as it is)
    BERYL_SEED=N          a seed made from N and the test's own seed (tests of one run still differ)
    BERYL_SEED=random     like BERYL_SEED=N with a fresh N per test

Every call prints the knob value to replay with: `<name>: BERYL_SEED=N -> seed S`."""
import os
import random


def seed(default, name=""):
    """The seed a test should use; `default` is its fixed seed when BERYL_SEED is unset."""
    knob = os.environ.get("BERYL_SEED", "").strip()
    if not knob:
        print(f"{name or 'bench'}: BERYL_SEED unset -> seed {default} (the test's own)", flush=True)
        return default
    if knob == "random":
        n = random.SystemRandom().randrange(1, 1 << 30)
    else:
        try:
            n = int(knob, 0)
        except ValueError:
            raise ValueError(f"BERYL_SEED={knob!r}: expected an integer or 'random'") from None
    s = (n * 1000003 + default) % (1 << 31)
    print(f"{name or 'bench'}: BERYL_SEED={n} -> seed {s}", flush=True)
    return s


def rng(default, name=""):
    """random.Random seeded by seed(default, name)."""
    return random.Random(seed(default, name))
