# SPDX-License-Identifier: MIT
"""End-to-end test of the C++ simulator (sim/): build beryl-sim (cached under build/sim-cpp/),
start it on a temporary socket, attach with sim/client.py and
  - check HELLO and walk the register chain (id -> pcie -> msix -> nic_if -> nic_if),
  - drive the Python driver model (tb/model/beryl_nic.py) through the client: open both
    interfaces, send frames on interface 0, receive them on interface 1 over the simulated wire,
    compare bytes and the NIC's counters,
  - arm the queues (start(irq=True)) and expect an IRQ message for the event queue's vector,
  - check STATS and that an idle simulator sleeps (no CPU burnt while nothing is in flight),
  - run those tests again on the lock-step build (`make -C sim LOCKSTEP=1`): a model without clock
    gates beside the gated one, every output compared after every edge and every design variable
    after every rising edge (the simulator stops on a difference), so the clock gates' enables and
    the harness's skipped falling-edge evals (which open the gates' latches by hand; this build runs
    without --check-fast-edge so that the skip path is the one checked) are checked against the
    ungated RTL under traffic,
  - wire loss / reordering / bad-frame flag, small TLPs (MPS/MRRS 128, completions split at
    every RCB: many straddled RC/RQ beats), and a TAP device (root only, else skipped).
Reference: the frames sent (random payloads); nothing here depends on the RTL's internals.
"""
import asyncio
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tb" / "model"))
sys.path.insert(0, str(ROOT / "tb" / "common"))
from sim.client import SimClient  # noqa: E402

import beryl_seed  # noqa: E402
import sim_build  # noqa: E402

import beryl_nic as N  # noqa: E402
from beryl_discover import discover  # noqa: E402

ETH_LOCAL = 0x88B5


def build_sim(*make_vars):
    """Build (or reuse) the default simulator (or the one make_vars select) under the shared build
    lock; return the binary path (or the binary BERYL_SIM_BIN names, as tb/sw does)."""
    if os.environ.get("BERYL_SIM_BIN") and not make_vars:
        return os.environ["BERYL_SIM_BIN"]
    try:
        return sim_build.build_sim(*make_vars)
    except FileNotFoundError as e:
        pytest.skip(str(e))


@pytest.fixture(scope="module", params=["gated", "lockstep"])
def sim(request):
    binary = build_sim(*(["LOCKSTEP=1"] if request.param == "lockstep" else []))
    tmp = tempfile.mkdtemp(prefix="beryl-sim-test-")
    sock = os.path.join(tmp, "sim.sock")
    shm = os.path.join("/dev/shm" if os.path.isdir("/dev/shm") else tmp, f"beryl-sim-test-{os.getpid()}")
    log = open(os.path.join(tmp, "sim.log"), "w+")
    # --check-fast-edge: cycles whose falling-edge eval the simulator would skip (inputs unchanged)
    # are evaluated anyway and the simulator stops if one changes an output (the other tests here
    # run with the skip)
    check = [] if request.param == "lockstep" else ["--check-fast-edge"]
    proc = subprocess.Popen([binary, "--socket", sock, "--shm", shm, "--mem-mb", "64", *check], stdout=log,
                            stderr=subprocess.STDOUT)
    proc.lockstep = request.param == "lockstep"
    try:
        yield proc, sock, log
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.seek(0)
        print(log.read())
        shutil.rmtree(tmp, ignore_errors=True)
        assert not os.path.exists(shm), "the simulator left its host memory file behind"


def raw_frame(rng, length, seq):
    hdr = bytes([0x02, 0, 0, 0, 0, 2, 0x02, 0, 0, 0, 0, 1]) + ETH_LOCAL.to_bytes(2, "big")
    return hdr + seq.to_bytes(4, "big") + rng.randbytes(length - len(hdr) - 4)


def test_hello_and_chain(sim):
    _, sock, _ = sim
    c = SimClient(sock)
    try:
        info = c.info
        assert info["bar0_size"] == 1 << 18 and info["mem_base"] == 1 << 32
        assert info["mem_size"] == 64 << 20 and info["clock_hz"] == 250_000_000
        blocks = asyncio.run(discover(c.aread32, bar_size=info["bar0_size"]))
        assert [b.name for b in blocks] == ["id", "pcie", "msix", "nic_if", "nic_if", "ptp"]
        # an unmapped address in the application window reads all-ones
        assert c.read32(0x20000 + 2 * 512) == 0xFFFFFFFF
        # a second driver is refused while one is attached
        with pytest.raises(Exception):
            SimClient(sock, connect_timeout=1).read32(0)
    finally:
        c.close()


async def pump(c, tx_nif, rx_nif, want_rx, want_tx, timeout_s=240):
    rx, tx = [], []
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        tx += await tx_nif.poll_tx()
        rx += await rx_nif.poll_rx()
        if len(rx) >= want_rx and len(tx) >= want_tx:
            return rx, tx
        await asyncio.sleep(0.002)
    raise AssertionError(f"timeout: {len(rx)}/{want_rx} frames received, {len(tx)}/{want_tx} TX completions; "
                         f"rx counters {await rx_nif.counters()}")


def test_traffic_and_irq(sim):
    proc, sock, _ = sim
    c = SimClient(sock)
    rng = beryl_seed.rng(5, "test_traffic_and_irq")

    async def run():
        dev = await N.NicDevice.open(c.aread32, c.awrite32, c.alloc)
        assert len(dev.interfaces) == 2
        a, b = dev.interfaces
        await a.start(txq_count=2, rxq_count=1, log_size=6, tx_buf_size=4096, rx_buf_size=16384)
        await b.start(txq_count=1, rxq_count=1, log_size=6, rx_buf_size=16384, vector=1, irq=True)
        assert c.poll_irqs() == []
        lengths = [60, 61, 64, 65, 127, 128, 500, 1000, 1514] + [rng.randrange(60, 1515) for _ in range(20)] + [9014]
        frames = [raw_frame(rng, n, k) for k, n in enumerate(lengths)]
        sent = 0
        rx, tx = [], []
        for k in range(0, len(frames), 8):
            batch = frames[k:k + 8]
            for j, f in enumerate(batch):
                assert await a.send(f, txq=(k + j) % 2) is not None
            r, t = await pump(c, a, b, len(batch), len(batch))
            rx += r
            tx += t
            sent += len(batch)
        got = [f for f, _ in rx]
        assert len(got) == len(frames)
        # frames carry their sequence number; order is kept per TX queue (queues are scheduled
        # round-robin, so the two queues' frames may interleave differently)
        seqs = [int.from_bytes(f[14:18], "big") for f in got]
        assert sorted(seqs) == list(range(len(frames))), seqs
        for f in got:
            assert f == frames[int.from_bytes(f[14:18], "big")], "frame bytes differ"
        for q in range(2):
            mine = [s for s in seqs if s % 2 == q]
            assert mine == sorted(mine), f"TX queue {q} frames out of order: {mine}"
        assert all(cpl.status == N.CPL_OK for _, cpl in rx)
        assert all(cpl.status == N.CPL_OK for cpl in tx)
        # interrupts: b's queues are armed, so its RX completions raised an event and MSI-X vector 1
        vecs = c.poll_irqs()
        if not vecs:
            v = c.wait_irq(timeout=60)
            vecs = [v] if v is not None else []
        assert 1 in vecs, f"no IRQ for vector 1 (got {vecs})"
        ev = b.poll_events()
        assert ev, "IRQ without an event queue entry"
        # NIC counters against what was sent
        ca, cb = await a.counters(), await b.counters()
        assert ca["tx_pkts"] == len(frames) and cb["rx_pkts"] == len(frames), (ca, cb)
        st = c.stats()
        assert st["ports"][0]["tx_frames"] == len(frames) and st["ports"][1]["rx_frames"] == len(frames)
        assert st["pcie"]["irqs"] >= 1 and st["pcie"]["bad_dma_rd"] == 0 and st["pcie"]["bad_dma_wr"] == 0
        assert st["cycles_per_s"] > 0
        # the falling-edge eval ran only on cycles whose inputs changed; on the others the default
        # build's skip check ran (the simulator is still alive, so none changed an output) and the
        # lock-step build took the skip path itself, compared with the ungated model
        assert 0 < st["falling_evals"] < st["cycles"] // 2, st
        # frames of several beats change only stream data between their first and last beat: those
        # cycles skip the falling-edge eval (inputs the input region does not read, sim/trig_map.py)
        assert st["payload_skips"] > 0 and st["falling_evals"] + st["payload_skips"] <= st["cycles"], st
        if proc.lockstep:
            assert st["checked_skips"] == 0 and st["lockstep_checks"] == 2 * st["cycles"], st
        else:
            assert st["checked_skips"] > st["cycles"] // 2 and st["lockstep_checks"] == 0, st
        assert proc.poll() is None
        print("simulator stats:", st)

    try:
        asyncio.run(run())
    finally:
        c.close()


def test_quit_while_driver_does_not_read(tmp_path):
    """A driver that stops reading its socket: the replies to its reads fill the socket until the
    simulator blocks sending one. A SIGTERM then still ends the simulator (it drops the connection)
    within seconds, instead of retrying the send for ever."""
    import signal
    import struct
    from sim.client import READ32
    binary = build_sim()
    sock = str(tmp_path / "sim.sock")
    proc = subprocess.Popen([binary, "--socket", sock, "--mem-mb", "16", "--quiet"])
    try:
        c = SimClient(sock)
        s = c.sock
        s.setblocking(False)
        reqs = struct.pack("<IIQQ", READ32, 0, 0, 0) * 200000   # BAR0 offset 0, never read back
        off, stalled_since, deadline = 0, None, time.monotonic() + 60
        while off < len(reqs) and time.monotonic() < deadline:
            try:
                off += s.send(reqs[off:off + 65536])
                stalled_since = None
            except BlockingIOError:
                now = time.monotonic()
                stalled_since = stalled_since or now
                if now - stalled_since > 1.0:
                    break          # the simulator stopped reading: it is blocked sending a reply
                time.sleep(0.01)
        assert stalled_since is not None, f"the simulator took all {off // 24} requests without blocking"
        assert proc.poll() is None
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            pytest.fail(f"beryl-sim did not exit within 10 s of SIGTERM ({off // 24} reads sent, none read back)")
        s.close()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(10)


def test_idle_sleeps(sim):
    """With nothing in flight the simulator blocks in poll(): its CPU time stays flat and the
    simulated clock does not move."""
    proc, sock, _ = sim
    c = SimClient(sock)
    try:
        c.read32(0)
        time.sleep(0.5)       # past the idle grace period
        cyc0 = c.stats()["cycles"]
        cpu0 = _cpu_s(proc.pid)
        time.sleep(1.0)
        cpu1 = _cpu_s(proc.pid)
        cyc1 = c.stats()["cycles"]
        assert cpu1 - cpu0 < 0.2, f"idle simulator used {cpu1 - cpu0:.2f} s CPU in 1 s"
        assert cyc1 - cyc0 < 20000, f"the clock ran {cyc1 - cyc0} cycles while idle"
    finally:
        c.close()


def _cpu_s(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def test_tap(tmp_path):
    """--tap: a frame written into the kernel side of the TAP (AF_PACKET) arrives on the NIC's
    RX ring; a frame sent on the NIC's TX ring comes out of the TAP."""
    if os.geteuid() != 0 or not os.path.exists("/dev/net/tun"):
        pytest.skip("TAP devices need root and /dev/net/tun")
    import socket
    binary = build_sim()
    name = f"bsimt{os.getpid() % 100000}"
    sock_path = str(tmp_path / "sim.sock")
    proc = subprocess.Popen([binary, "--socket", sock_path, "--mem-mb", "16", "--tap", f"0:{name}"],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    c = None
    try:
        c = SimClient(sock_path)
        subprocess.run(["sysctl", "-q", "-w", f"net.ipv6.conf.{name}.disable_ipv6=1"], check=False)
        subprocess.run(["ip", "link", "set", name, "up"], check=True)
        pk = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_LOCAL))
        pk.bind((name, 0))
        pk.settimeout(60)
        rng = beryl_seed.rng(9, "test_tap")

        async def run():
            dev = await N.NicDevice.open(c.aread32, c.awrite32, c.alloc)
            nif = dev.interfaces[0]
            await nif.start(txq_count=1, rxq_count=1, log_size=4)
            # host -> TAP -> NIC RX
            # (the kernel's own frames right after link-up may meet an RX ring still being
            # fetched and be dropped, so the frame is offered up to three times)
            f_in = raw_frame(rng, 100, 1)
            got = []
            for _ in range(3):
                pk.send(f_in)
                deadline = time.monotonic() + 10
                while not got and time.monotonic() < deadline:
                    got = [f for f, _ in await nif.poll_rx() if f[12:14] == ETH_LOCAL.to_bytes(2, "big")]
                    await asyncio.sleep(0.01)
                if got:
                    break
            assert got, f"frame from the TAP not received: {c.stats()['ports']}, {await nif.counters()}"
            assert got[0] == f_in
            # NIC TX -> TAP -> host
            f_out = raw_frame(rng, 200, 2)
            assert await nif.send(f_out) is not None
            data = pk.recv(4096)
            while data == f_in:        # a packet socket also sees its own outgoing frame
                data = pk.recv(4096)
            assert data == f_out

        asyncio.run(run())
        pk.close()
    finally:
        if c:
            c.close()
        proc.terminate()
        out = proc.communicate(timeout=10)[0]
        print(out)


def test_wire_loss_reorder(tmp_path):
    """--wire A:B:DELAY:LOSS:REORDER:BAD: lost frames are counted by the simulator and never
    arrive; frames flagged bad (s_axis_rx_tuser) are dropped and counted by the NIC; the others
    arrive intact, some out of order."""
    binary = build_sim()
    sock_path = str(tmp_path / "sim.sock")
    proc = subprocess.Popen([binary, "--socket", sock_path, "--mem-mb", "16", "--wire", "0:1:100:0.25:0.25:0.15",
                             "--seed", str(beryl_seed.seed(7, "test_wire_loss_reorder wire"))],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    c = None
    try:
        c = SimClient(sock_path)
        rng = beryl_seed.rng(3, "test_wire_loss_reorder")

        async def run():
            dev = await N.NicDevice.open(c.aread32, c.awrite32, c.alloc)
            a, b = dev.interfaces
            await a.start(txq_count=1, rxq_count=1, log_size=6)
            await b.start(txq_count=1, rxq_count=1, log_size=6)
            frames = [raw_frame(rng, 200, k) for k in range(40)]
            for f in frames:
                assert await a.send(f) is not None
            tx = []
            deadline = time.monotonic() + 60
            while len(tx) < len(frames) and time.monotonic() < deadline:
                tx += await a.poll_tx()
                await asyncio.sleep(0.01)
            assert len(tx) == len(frames)
            st = c.stats()["ports"]
            lost = st[0]["wire_dropped"]
            assert 0 < lost < len(frames) and st[0]["wire_reordered"] > 0, st
            rx = []
            while time.monotonic() < deadline:
                rx += [f for f, _ in await b.poll_rx()]
                p1 = c.stats()["ports"][1]
                if p1["rx_frames"] == len(frames) - lost and len(rx) == p1["rx_frames"] - p1["rx_bad"]:
                    break
                await asyncio.sleep(0.01)
            bad = p1["rx_bad"]
            assert p1["rx_frames"] == len(frames) - lost and bad > 0, p1
            want = len(frames) - lost - bad
            assert len(rx) == want
            assert (await b.counters())["rx_drop_mac_err"] == bad
            seqs = [int.from_bytes(f[14:18], "big") for f in rx]
            assert len(set(seqs)) == want and all(f == frames[s] for f, s in zip(rx, seqs))
            assert seqs != sorted(seqs), "reordering asked for but every frame arrived in order"

        asyncio.run(run())
    finally:
        if c:
            c.close()
        proc.terminate()
        print(proc.communicate(timeout=10)[0])


def test_small_tlps(tmp_path):
    """Small TLPs everywhere (MPS 128, MRRS 128, completions split at every 64-byte RCB
    boundary, Gen3 x8): many straddled RC and RQ beats; frames still arrive intact."""
    binary = build_sim()
    sock_path = str(tmp_path / "sim.sock")
    proc = subprocess.Popen([binary, "--socket", sock_path, "--mem-mb", "16", "--mps", "128", "--mrrs", "128",
                             "--cpl-split-rcb", "--width", "8"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True)
    c = None
    try:
        c = SimClient(sock_path)
        rng = beryl_seed.rng(4, "test_small_tlps")

        async def run():
            dev = await N.NicDevice.open(c.aread32, c.awrite32, c.alloc)
            a, b = dev.interfaces
            await a.start(txq_count=1, rxq_count=1, log_size=5, tx_buf_size=4096)
            await b.start(txq_count=1, rxq_count=1, log_size=5, rx_buf_size=16384)
            lengths = [60, 61, 62, 63, 64, 65, 66, 67, 127, 129, 191, 255, 257, 1514, 4100, 9014]
            frames = [raw_frame(rng, n, k) for k, n in enumerate(lengths)]
            for f in frames:
                assert await a.send(f) is not None
            rx, tx = await pump(c, a, b, len(frames), len(frames))
            assert [f for f, _ in rx] == frames
            st = c.stats()["pcie"]
            assert st["bad_dma_rd"] == 0 and st["bad_dma_wr"] == 0

        asyncio.run(run())
    finally:
        if c:
            c.close()
        proc.terminate()
        print(proc.communicate(timeout=10)[0])


def test_generator_and_tx_pacing(tmp_path):
    """GEN message (docs/sim_protocol.md): a port's RX generator delivers exactly COUNT frames
    (the default frame with its number at byte 14, or a given frame) back to back at line rate,
    (N - 1) / (t_N - t_1) = line rate / ((length + 4 FCS + 20) * 8) within one cycle over the run;
    the frames reach the host in order and the NIC counts each one as received or dropped. The TX
    side of an unconnected port (--no-wire) paces at line rate: at 25G (below what one TX queue
    reaches) a burst of frames leaves at exactly line rate, and the measurement window counts
    exactly the frames sent."""
    try:
        binary = build_sim()
    except AssertionError as e:
        pytest.skip(f"the simulator cannot be built here: {str(e)[:200]}")
    sock_path = str(tmp_path / "sim.sock")
    gbps = 25
    proc = subprocess.Popen([binary, "--socket", sock_path, "--mem-mb", "32", "--no-wire", "--line-gbps", str(gbps)],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    c = None

    def line_pps(length):            # length without FCS
        return gbps * 1e9 / ((length + 4 + 20) * 8)

    def rate(n, first, last, clk_ns):
        return (n - 1) / ((last - first) * clk_ns * 1e-9)

    try:
        c = SimClient(sock_path)
        clk_ns = 1e9 / c.info["clock_hz"]
        rng = beryl_seed.rng(11, "test_generator_and_tx_pacing")

        async def rx_until(nif, n, deadline):
            got = []
            while len(got) < n and time.monotonic() < deadline:
                got += [f for f, cp in await nif.poll_rx() if cp.status == N.CPL_OK]
                await asyncio.sleep(0.005)
            return got

        async def run():
            dev = await N.NicDevice.open(c.aread32, c.awrite32, c.alloc)
            nif = dev.interfaces[0]
            await nif.start(txq_count=1, rxq_count=1, log_size=7, tx_buf_size=2048, rx_buf_size=2048)
            deadline = time.monotonic() + 120
            # 1) 100 default frames of 1514 bytes: all delivered, in order, at exactly line rate
            count, length = 100, 1514
            base = await nif.counters()
            c.gen(0, count, length=length)
            got = await rx_until(nif, count, deadline)
            p = c.port_stats(0)
            assert p["gen_sent"] == count and p["gen_left"] == 0, p
            assert len(got) == count, f"{len(got)}/{count} frames received; {p}"
            hdr = bytes([0x02, 0, 0, 0, 0, 2, 0x02, 0, 0, 0, 0, 1, 0x88, 0xB5])
            for k, f in enumerate(got):
                assert len(f) == length and f[:14] == hdr and int.from_bytes(f[14:18], "little") == k
                assert f[18:] == bytes(i & 0xFF for i in range(18, length))
            r = rate(count, p["gen_first_cycle"], p["gen_last_cycle"], clk_ns)
            frame_cycles = (length + 24) / (gbps / 8 * clk_ns)        # wire bytes / bytes per cycle
            assert abs(p["gen_last_cycle"] - p["gen_first_cycle"] - (count - 1) * frame_cycles) <= 2, p
            assert abs(r / line_pps(length) - 1) < 0.002, (r, line_pps(length))
            cnt = await nif.counters()
            assert cnt["rx_pkts"] - base["rx_pkts"] == count
            # 2) 300 minimum frames: the generator keeps line rate (the NIC drops what it cannot
            # take: delivered + dropped = sent)
            count, length = 300, 60
            base = await nif.counters()
            c.gen(0, count, length=length)
            while c.port_stats(0)["gen_left"] and time.monotonic() < deadline:
                time.sleep(0.005)
            p = c.port_stats(0)
            assert p["gen_sent"] == count, p
            r = rate(count, p["gen_first_cycle"], p["gen_last_cycle"], clk_ns)
            assert abs(r / line_pps(length) - 1) < 0.005, (r, line_pps(length))
            got = []
            while time.monotonic() < deadline:
                got += await rx_until(nif, 1, time.monotonic() + 0.05)
                cnt = await nif.counters()
                rx = cnt["rx_pkts"] - base["rx_pkts"]
                drops = sum(cnt[k] - base[k] for k in cnt if k.startswith("rx_drop"))
                if rx + drops == count and len(got) == rx:
                    break
            assert rx + drops == count and len(got) == rx, (rx, drops, len(got))
            # 3) a given frame, three times
            f3 = raw_frame(rng, 300, 77)
            c.gen(0, 3, frame=f3)
            assert await rx_until(nif, 3, deadline) == [f3] * 3
            # 4) TX pacing: 64 frames of 1514 bytes queued at once leave at line rate (the NIC
            # could send faster); the window counts exactly them
            c.gen(0, 0)                                                  # window restart only
            frames = [raw_frame(rng, 1514, k) for k in range(64)]
            for f in frames:
                assert await nif.send(f, ring_doorbell=False) is not None
            await nif.kick(0)
            tx = []
            while len(tx) < len(frames) and time.monotonic() < deadline:
                tx += await nif.poll_tx()
                await asyncio.sleep(0.005)
            assert len(tx) == len(frames)
            p = c.port_stats(0)
            assert p["win_tx_frames"] == len(frames) and p["tx_unconnected"] == len(frames), p
            assert p["gen_sent"] == 0, p
            r = rate(len(frames), p["win_tx_first_cycle"], p["win_tx_last_cycle"], clk_ns)
            assert abs(r / line_pps(1514) - 1) < 0.002, (r, line_pps(1514))

        asyncio.run(run())
    finally:
        if c:
            c.close()
        proc.terminate()
        print(proc.communicate(timeout=10)[0])
