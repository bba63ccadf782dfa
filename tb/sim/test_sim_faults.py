# SPDX-License-Identifier: MIT
"""Fault injection through the whole DMA read error path, on the default simulator build.

`beryl-sim --cpl-discontinue P` makes the host model discontinue a random fraction of the
completions with data it sends (PG213: RC tuser discontinue on the TLP's last beat; the simulator
inverts their payload, so data that gets used anyway shows). The Python driver model sends a few
hundred random frames interface 0 -> wire -> interface 1, in one descriptor each
(test_cpl_discontinue) or cut into several (test_cpl_discontinue_multi_desc: a descriptor fetch that
fails for good then cuts packets; docs/blocks/nic_core.md, "Failed TX descriptor reads"), and the
test checks, against the frames sent, the completions the driver saw and the simulator's own counts
(nothing taken from the RTL):
  (a) every frame received is byte-identical to one sent, none twice, none whose TX completion
      reported an error;
  (b) nothing is lost silently: frames received + TX DMA errors (sender) + RX drops with their
      reasons (receiver) = frames sent, and the NIC's counters (read by libberyl, `beryl stats`)
      agree with the completions (TX_DMA_ERR also counts the error completions inside failed
      packets that the driver consumes); the faults had an effect (reads retried: TX_DESC_RETRY,
      TX_DATA_RETRY, RX_DESC_RETRY, or frames dropped) and, with several descriptors per frame at a
      high P, some descriptor reads failed for good (completions inside packets);
  (c) the PCIe block counted exactly the completions the simulator delivered with discontinue on a
      beat (dma_rd_cpl_discarded), finished at least one and at most that many read descriptors with
      POISON, and no other DMA read error;
  (d) the NIC keeps working under faults: the queues never stall (every batch completes) and most
      frames of the last fifth arrive.
"""
import asyncio
import fcntl
import json
import shutil
import subprocess
import time

import pytest

from test_sim import ROOT, N, SimClient, beryl_seed, build_sim, raw_frame

FRAMES = 320
BATCH = 16            # frames in flight; TX and RX rings hold 64 (128 with several descriptors per frame)

# RX drops that produce no completion (the others, DMA error and too long, complete their descriptor)
RX_NOCPL_DROPS = ["rx_drop_no_desc", "rx_drop_disabled", "rx_drop_no_slot", "rx_drop_oversize",
                  "rx_drop_mac_err"]
DMA_RD_OTHER_ERRORS = ["dma_rd_err_timeout", "dma_rd_err_ur", "dma_rd_err_ca", "dma_rd_cpl_unexpected"]


def beryl_cli():
    """build/sw/beryl (make -C sw under tb/sw's build lock), or skip without a C compiler."""
    if not shutil.which("cc") and not shutil.which("gcc"):
        pytest.skip("no C compiler: libberyl's `beryl` tool cannot be built")
    out = ROOT / "build" / "sw"
    out.mkdir(parents=True, exist_ok=True)
    with open(out / ".build.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        r = subprocess.run(["make", "-s", "-C", str(ROOT / "sw"), "-j2"], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    return out / "beryl"


async def exchange(c, a, b, batch, base, rx, deadline, pieces=None):
    """Send `batch` (seq -> frame) on a, each frame in the descriptors pieces[seq] gives (buffer
    lengths; default one descriptor), collect its TX completions and b's RX completions until every
    frame that left is accounted for at b (a completion, or a drop counted without one).
    Returns (TX OK seqs, TX error seqs)."""
    idx = {}
    for seq, f in batch.items():
        first = await a.send(f, segments=pieces[seq] if pieces else None)
        assert first is not None, "TX ring full"
        idx[first] = seq
    tx_ok, tx_err, got = [], [], 0
    nocpl, last_check = 0, time.monotonic()
    while True:
        for cpl in await a.poll_tx():
            (tx_ok if cpl.status == N.CPL_OK else tx_err).append((idx.pop(cpl.index), cpl.status))
            got += 1
        new = await b.poll_rx()
        rx += new
        want = base["tx_ok"] + len(tx_ok)
        if got == len(batch) and len(rx) + nocpl >= want:
            break
        if got == len(batch) and not new and time.monotonic() - last_check > 0.3:
            cnt = await b.counters()
            nocpl = sum(cnt[k] for k in RX_NOCPL_DROPS)
            last_check = time.monotonic()
            if len(rx) + nocpl >= want:
                break
        if time.monotonic() > deadline:
            raise AssertionError(f"stalled: {got}/{len(batch)} TX completions of the batch, {len(rx)} RX completions "
                                 f"+ {nocpl} drops of {want} frames; sim {c.stats()['ports']}; "
                                 f"tx counters {await a.counters()}; rx counters {await b.counters()}")
        await asyncio.sleep(0.002)
    base["tx_ok"] += len(tx_ok)
    return [s for s, _ in tx_ok], tx_err


def run_traffic(tmp_path, name, p, opts, frames, pieces=None, log_size=6, batch=BATCH):
    """Start beryl-sim with --cpl-discontinue p, send `frames` interface 0 -> 1 through the driver
    model in batches of `batch` (frame k in the descriptors pieces[k], default one per frame), then
    read every counter with `beryl stats --json`. Returns a dict of what the test checks."""
    binary = build_sim()
    beryl = beryl_cli()
    sock = str(tmp_path / "sim.sock")
    seed = beryl_seed.seed(31, f"test_cpl_discontinue[{name}] sim")
    proc = subprocess.Popen([binary, "--socket", sock, "--mem-mb", "64", "--cpl-discontinue", str(p),
                             "--seed", str(seed), *opts], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    c = None
    try:
        c = SimClient(sock)

        async def run():
            dev = await N.NicDevice.open(c.aread32, c.awrite32, c.alloc)
            a, b = dev.interfaces
            await a.start(txq_count=1, rxq_count=1, log_size=log_size, tx_buf_size=16384)
            await b.start(txq_count=1, rxq_count=1, log_size=log_size, rx_buf_size=16384)
            rx, tx_ok, tx_err, base = [], [], [], {"tx_ok": 0}
            deadline = time.monotonic() + 150
            for k in range(0, len(frames), batch):
                ok, err = await exchange(c, a, b, {s: frames[s] for s in range(k, min(k + batch, len(frames)))},
                                         base, rx, deadline, pieces)
                tx_ok += ok
                tx_err += err
            return rx, tx_ok, tx_err, a.tx_cpl_inside, await b.counters()

        rx, tx_ok, tx_err, inside, rx_cnt = asyncio.run(run())
        sim = c.stats()
        c.close()
        c = None
        cli = json.loads(subprocess.run([beryl, "-s", sock, "stats", "--json"], capture_output=True, text=True,
                                        check=True, timeout=120).stdout)
    finally:
        if c:
            c.close()
        proc.terminate()
        print(proc.communicate(timeout=10)[0])
    return {"rx": rx, "tx_ok": tx_ok, "tx_err": tx_err, "inside": inside, "rx_cnt": rx_cnt, "sim": sim,
            "cli": cli}


def check_delivery(r, frames, expect_drops=True):
    """Checks (a)-(d) of the module docstring on what run_traffic returned. expect_drops False (the
    benchmark bench/sim/bench_faults.py, at any P down to 0): the same checks, without requiring that
    some fault was injected and dropped a frame."""
    rx, tx_ok, tx_err, inside, rx_cnt = r["rx"], r["tx_ok"], r["tx_err"], r["inside"], r["rx_cnt"]
    sent = len(frames)
    pcie, ports = r["sim"]["pcie"], r["sim"]["ports"]
    dc = r["cli"]["device"]["counters"]
    ca, cb = r["cli"]["interfaces"][0]["counters"], r["cli"]["interfaces"][1]["counters"]
    got_ok = [f for f, cpl in rx if cpl.status == N.CPL_OK]
    rx_err = [cpl for _, cpl in rx if cpl.status == N.CPL_DMA_ERR]
    rx_nocpl = {k: cb[k] for k in RX_NOCPL_DROPS}
    print(f"figures: {sent} frames sent; {pcie['cpl_discontinued']} completions discontinued "
          f"({pcie['cpl_discontinue_covered']} with a beat carrying the flag) of {pcie['down_tlps']} TLPs down; "
          f"device: {dc['dma_rd_cpl_discarded']} completions discarded, {dc['dma_rd_err_poison']} of "
          f"{dc['dma_rd_desc']} read descriptors POISON; TX: {len(tx_ok)} sent, {len(tx_err)} DMA errors, "
          f"{ca['tx_desc_retry']} descriptor fetch retries, {ca['tx_data_retry']} packets read again, "
          f"{inside} error completions inside failed packets; RX: {cb['rx_desc_retry']} descriptor fetch retries, "
          f"{len(got_ok)} delivered, {len(rx_err)} DMA errors, other drops {rx_nocpl}")

    # (a) no corrupted frame delivered, none twice, none that its sender reported failed
    seqs = [int.from_bytes(f[14:18], "big") for f in got_ok]
    bad = [s for f, s in zip(got_ok, seqs) if s >= sent or f != frames[s]]
    assert not bad, f"{len(bad)} of {len(got_ok)} frames delivered corrupted (claimed seqs {bad[:10]})"
    assert len(set(seqs)) == len(seqs), "a frame was delivered twice"
    assert set(seqs) <= set(tx_ok), f"frames whose TX completion reported an error arrived: {set(seqs) - set(tx_ok)}"
    assert all(st == N.CPL_DMA_ERR for _, st in tx_err), tx_err
    assert all(cpl.status in (N.CPL_OK, N.CPL_DMA_ERR) for _, cpl in rx), [cpl for _, cpl in rx]

    # (b) nothing lost silently: the wire (simulator) carried exactly the frames TX reported sent,
    # and every one of them was delivered or dropped with a counted reason. TX_DMA_ERR counts every
    # error completion, those inside a failed packet (which the driver consumes) too.
    tx_err_pkts = ca["tx_dma_err"] - inside
    assert len(tx_ok) + len(tx_err) == sent
    assert ports[0]["tx_frames"] == len(tx_ok) == ports[1]["rx_frames"] and ports[1]["rx_bad"] == 0, ports
    assert len(got_ok) + len(rx_err) + sum(rx_nocpl.values()) == len(tx_ok)
    assert len(got_ok) + tx_err_pkts + cb["rx_dma_err"] + sum(rx_nocpl.values()) == sent, (ca, cb)
    assert ca["tx_pkts"] == len(tx_ok) and tx_err_pkts == len(tx_err) and ca["tx_drop_bad_desc"] == 0, ca
    assert cb["rx_pkts"] == len(got_ok) and cb["rx_dma_err"] == len(rx_err) and cb["rx_drop_too_long"] == 0, cb
    assert rx_cnt["rx_dma_err"] == cb["rx_dma_err"]      # the model's read and libberyl's agree
    assert rx_cnt["tx_desc_retry"] == 0 and cb["tx_desc_retry"] == 0 and cb["tx_data_retry"] == 0, \
        "TX retries of an interface that sent nothing"
    assert ca["rx_desc_retry"] == 0, "RX retries of an interface that received nothing"
    assert ca["cpl_dma_err"] == cb["cpl_dma_err"] == 0, (ca, cb)
    assert ca["cq_drop_full"] == cb["cq_drop_full"] == 0, (ca, cb)
    # every read is retried twice, so at a low P most faults cost a retry and no frame
    retries = ca["tx_desc_retry"] + ca["tx_data_retry"] + cb["rx_desc_retry"]
    assert ca["tx_dma_err"] + cb["rx_dma_err"] + retries > 0 or not expect_drops, \
        "faults injected but no read was retried and no frame dropped"

    # (c) the PCIe block discarded exactly what the simulator flagged
    assert pcie["cpl_discontinued"] > 0 or not expect_drops, pcie
    assert pcie["cpl_discontinue_covered"] >= pcie["cpl_discontinued"], pcie
    assert dc["dma_rd_cpl_discarded"] == pcie["cpl_discontinue_covered"], (dc, pcie)
    assert 0 < dc["dma_rd_err_poison"] <= dc["dma_rd_cpl_discarded"] or \
        not expect_drops and dc["dma_rd_err_poison"] == dc["dma_rd_cpl_discarded"] == 0, dc
    assert all(dc[k] == 0 for k in DMA_RD_OTHER_ERRORS), dc
    assert pcie["bad_dma_rd"] == 0 and pcie["bad_dma_wr"] == 0, pcie

    # (d) still working at the end: every batch completed (no queue stalled), and the last fifth of the
    # frames arrived at no less than half the rate of all (the faults stay on to the end)
    last = set(range(sent - sent // 5, sent))
    late = len(last & set(seqs))
    assert late >= 0.5 * len(last) * len(got_ok) / sent, f"only {late} of the last {len(last)} frames arrived"
    return ca


# (name, probability, more simulator options): the default link (256-byte completions), and small
# TLPs (64-byte completions: most RC beats carry two TLPs, so the flag often covers a neighbour too)
CASES = [("mps256", 0.02, []),
         ("small_tlps", 0.01, ["--mps", "128", "--mrrs", "128", "--cpl-split-rcb"])]


@pytest.mark.parametrize("name,p,opts", CASES, ids=[c[0] for c in CASES])
def test_cpl_discontinue(tmp_path, name, p, opts):
    """One descriptor per frame: a TX completion (OK or DMA error) is one frame, none lies inside one."""
    rng = beryl_seed.rng(17, f"test_cpl_discontinue[{name}] frames")
    lengths = [60, 61, 64, 65, 127, 128, 1514, 9014] + [rng.randrange(60, 1515) for _ in range(FRAMES - 12)] \
        + [rng.randrange(1515, 9015) for _ in range(4)]
    rng.shuffle(lengths)
    frames = [raw_frame(rng, n, k) for k, n in enumerate(lengths)]
    r = run_traffic(tmp_path, name, p, opts, frames)
    check_delivery(r, frames)
    assert r["inside"] == 0, "an error completion inside a packet of one descriptor"


# Frames of several descriptors (random cuts, pieces of 1 byte up): a descriptor fetch that fails for
# good cuts packets, and the TX engine completes the failed batch descriptor by descriptor and skips
# the rest of a cut packet (docs/blocks/nic_core.md, "Failed TX descriptor reads"), completions that
# the drivers consume. Each fetch is tried three times, so persistent failures need a high P: "high_p"
# (short frames, so that some still arrive) must see them; the others see retries only, mostly. At
# P 0.3 an RX descriptor fetch that fails three times drops the next 8 frames at once: many frames, so
# that (d) compares rates over enough of these clusters (a run takes about 1 s).
# (name, probability, simulator options, frames, frame lengths, most pieces per frame)
MULTI_CASES = [("mps256", 0.05, [], FRAMES, (60, 1515), 6),
               ("small_tlps", 0.02, ["--mps", "128", "--mrrs", "128", "--cpl-split-rcb"], FRAMES, (60, 1515), 6),
               ("high_p", 0.3, [], 1920, (60, 400), 4)]


@pytest.mark.parametrize("name,p,opts,count,span,most", MULTI_CASES, ids=[c[0] for c in MULTI_CASES])
def test_cpl_discontinue_multi_desc(tmp_path, name, p, opts, count, span, most):
    rng = beryl_seed.rng(23, f"test_cpl_discontinue_multi_desc[{name}] frames")
    lengths = [rng.randrange(*span) for _ in range(count)]
    frames = [raw_frame(rng, n, k) for k, n in enumerate(lengths)]
    pieces = []
    for f in frames:
        cuts = sorted(rng.sample(range(1, len(f)), rng.randint(1, most - 1)))
        pieces.append([e - s for s, e in zip([0] + cuts, cuts + [len(f)])])
    assert sum(len(s) for s in pieces) > 2.5 * count
    # 128-entry rings: 16 frames of up to 6 descriptors in flight
    r = run_traffic(tmp_path, f"multi_{name}", p, opts, frames, pieces, log_size=7)
    ca = check_delivery(r, frames)
    # TX reads retried (about 160 descriptor-batch reads of one completion each, 320 frames of several
    # completions: at P 0.02 some descriptor read is retried in all but about 4 % of runs, some data
    # read in all)
    assert ca["tx_desc_retry"] + ca["tx_data_retry"] > 0, "no TX read was retried"
    if name == "high_p":
        # some fetches failed three times: their batches completed descriptor by descriptor and the
        # resync skipped the rest of a cut packet, error completions inside failed packets
        assert r["inside"] > 0, "no descriptor fetch failed for good (nothing completed inside a packet)"
