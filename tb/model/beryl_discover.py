# SPDX-License-Identifier: MIT
"""Walk Beryl's register-block chain the way software does.

    blocks = await discover(read32)            # read32(byte_offset) -> int, async

Starting at BAR0 offset 0, each block's header (TYPE +0x0, VERSION +0x4, NEXT +0x8) is read and
NEXT followed until it is 0. Returns a list of Block(name, type, version, offset, next) in chain
order; `name` is the block key from beryl_regs.BLOCK_BY_TYPE, or None for a type this model does
not know (a newer bitstream), which is listed rather than refused. Raises DiscoveryError, naming
the offset, for a loop, a misaligned or out-of-range NEXT, a header that is not a Beryl header
(all-ones from an unmapped read, zeros, garbage) or a chain longer than max_blocks.
"""
from typing import NamedTuple, Optional

try:
    from . import beryl_regs as _regs
except ImportError:  # imported as a top-level module with tb/model on sys.path
    import beryl_regs as _regs


class DiscoveryError(Exception):
    """The chain cannot be walked; the message names the offset and what was read there."""


class Block(NamedTuple):
    name: Optional[str]
    type: int
    version: int
    offset: int
    next: int

    @property
    def version_str(self):
        v = self.version
        return f"{v >> 24}.{(v >> 16) & 0xff}.{v & 0xffff}"


async def discover(read32, bar_size=None, max_blocks=256, regs=_regs):
    """Return the blocks of the chain starting at offset 0 (see module doc)."""
    blocks = []
    seen = {}
    offset = 0
    came_from = None
    while True:
        where = f"block at 0x{offset:x}" + (f" (NEXT of block at 0x{came_from:x})" if came_from is not None else "")
        if offset in seen:
            raise DiscoveryError(f"loop: {where} was already visited as block {seen[offset]}")
        if offset % 4:
            raise DiscoveryError(f"misaligned pointer: {where}")
        if bar_size is not None and offset + 12 > bar_size:
            raise DiscoveryError(f"pointer past the end of BAR0 (0x{bar_size:x} bytes): {where}")
        if len(blocks) >= max_blocks:
            raise DiscoveryError(f"more than {max_blocks} blocks; giving up at {where}")
        typ = await read32(offset + regs.BLOCK_TYPE_OFFSET)
        if typ >> 16 != regs.BLOCK_MAGIC:
            hint = " (all-ones: nothing mapped there)" if typ == 0xFFFFFFFF else ""
            raise DiscoveryError(f"no block header at {where}: TYPE reads 0x{typ:08x}{hint}")
        version = await read32(offset + regs.BLOCK_VERSION_OFFSET)
        nxt = await read32(offset + regs.BLOCK_NEXT_OFFSET)
        seen[offset] = len(blocks)
        blocks.append(Block(regs.BLOCK_BY_TYPE.get(typ), typ, version, offset, nxt))
        if nxt == 0:
            return blocks
        came_from, offset = offset, nxt


def find(blocks, name):
    """The blocks with key `name` (for example 'pcie'), in chain order."""
    return [b for b in blocks if b.name == name]
