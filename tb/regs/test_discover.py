# SPDX-License-Identifier: MIT
"""Discovery helper (tb/model/beryl_discover.py) against a fake BAR0 built from the register model."""
import asyncio
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from model import beryl_regs as R  # noqa: E402
from model.beryl_discover import DiscoveryError, discover, find  # noqa: E402


# Blocks placed in BAR0 by the register map (app blocks are placed by a NIC build at run time)
BAR0_BLOCKS = {k: b for k, b in R.BLOCKS.items() if not b["app"]}


def fake_bar0():
    """Header words of every block at its generated place; everything else reads all-ones."""
    mem = {}
    for blk in BAR0_BLOCKS.values():
        mem[blk["base"] + R.BLOCK_TYPE_OFFSET] = blk["type"]
        mem[blk["base"] + R.BLOCK_VERSION_OFFSET] = blk["version"]
        mem[blk["base"] + R.BLOCK_NEXT_OFFSET] = blk["next"]
    return mem


def walk(mem, **kw):
    reads = []

    async def read32(addr):
        reads.append(addr)
        return mem.get(addr, 0xFFFFFFFF)

    return asyncio.run(discover(read32, **kw)), reads


def test_chain_of_generated_map():
    blocks, _ = walk(fake_bar0(), bar_size=1 << R.BAR0_ADDR_W)
    assert [b.name for b in blocks] == list(BAR0_BLOCKS)
    assert [b.offset for b in blocks] == [blk["base"] for blk in BAR0_BLOCKS.values()]
    assert blocks[0].name == "id" and blocks[0].offset == 0
    assert blocks[-1].next == 0
    assert find(blocks, "pcie")[0].type == R.PCIE_BLOCK_TYPE
    assert blocks[0].version_str == f"{R.ID_BLOCK_VERSION >> 24}.{(R.ID_BLOCK_VERSION >> 16) & 0xff}.0"


def test_unknown_type_is_listed():
    mem = fake_bar0()
    last = list(BAR0_BLOCKS.values())[-1]["base"]
    mem[last + R.BLOCK_NEXT_OFFSET] = 0x4000
    mem.update({0x4000: 0x4252FFFF, 0x4004: 0x00010000, 0x4008: 0})
    blocks, _ = walk(mem)
    assert blocks[-1].name is None and blocks[-1].type == 0x4252FFFF


@pytest.mark.parametrize("bad_next, message", [
    (list(BAR0_BLOCKS.values())[1]["base"], "loop"),   # back to the second block
    (0x3000, "all-ones"),                            # nothing mapped there
    (0x102, "misaligned"),
    (0x1000000, "past the end"),
])
def test_bad_pointers(bad_next, message):
    mem = fake_bar0()
    last = list(BAR0_BLOCKS.values())[-1]["base"]
    mem[last + R.BLOCK_NEXT_OFFSET] = bad_next
    with pytest.raises(DiscoveryError, match=message) as e:
        walk(mem, bar_size=1 << R.BAR0_ADDR_W)
    assert f"0x{bad_next:x}" in str(e.value)


def test_self_loop_and_garbage():
    mem = fake_bar0()
    mem[R.BLOCK_NEXT_OFFSET] = 0  # a lone identity block is a complete chain
    assert len(walk(mem)[0]) == 1
    # A block whose NEXT points at itself (NEXT = 0 would end the chain, so use a block at 0x800).
    mem[R.BLOCK_NEXT_OFFSET] = 0x800
    mem.update({0x800: R.PCIE_BLOCK_TYPE, 0x804: 0, 0x808: 0x800})
    with pytest.raises(DiscoveryError, match="loop"):
        walk(mem)
    with pytest.raises(DiscoveryError, match="no block header at block at 0x0"):
        walk({0: 0})


def test_max_blocks():
    mem = {}
    for i in range(10):
        base = 0x100 * i
        mem.update({base: R.PCIE_BLOCK_TYPE, base + 4: 0, base + 8: base + 0x100})
    with pytest.raises(DiscoveryError, match="more than 5 blocks"):
        walk(mem, max_blocks=5)
