"""Every protocol beside a production peer, over emulated links (docs/operations.md, "Targets": peer
agreement over links). Prints figures; no pass/fail. Needs root (network namespaces).

    sudo ../.venv/bin/python benchmarks/bench_peers.py [--quick]

Part 1 — the MID series through the runner's own workload path (spec → plan → job → host
harness, as a comparison runs it), sequential, warm connections, HTTPS/1.1 vs HTTP/2 vs
HTTP/3 on the `transatlantic` profile (95 ms RTT, 0.1 % loss): the median total per object.
Physics says a warm connection whose window has grown fetches each of these objects in about
one round trip on every protocol.

Part 2 — the peer matrix (peer_matrix.py): per profile × protocol × object, the medians of
(a) our probe → our target, (b) a production client → our target, (c) our probe → a production
server, (d) production client → production server, and the ratios to (d). Target: (a)/(d)
within 5 % (or 2 ms). The last column: our probe against the target with --tcp-pacing (TCP
paced like QUIC; h3 is paced either way).
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import textwrap
from contextlib import ExitStack
from dataclasses import replace
from pathlib import Path

from latencylab_tools.netlab import EmulatedLink
from latencylab_tools.netlab.presets import PRESETS
from latencylab_tools.netlab.profile import LinkProfile
from latencylab_tools.target import content
from peer_matrix import DEVICE_RUNNER, measure, peer_combos, start_servers, workdir

# The six objects of the table, and three of them for slow links.
TABLE_BYTES = (15_091, 42_669, 65_515, 95_655, 154_009, 309_497)
SIX = [next(n for n, size in content.file_sizes().items() if size == b) for b in TABLE_BYTES]
THREE = [SIX[0], SIX[3], SIX[5]]
PROTOCOLS = ("h1", "h2", "h3")

SERIES_SCRIPT = textwrap.dedent("""
    import json, sys
    from latencylab_runner.drivers.probe_harness import execute_job
    from latencylab_runner.drivers.targets import ReferenceTarget
    from latencylab_runner.workloads.job import build_job
    cfg = json.loads(sys.argv[1])
    spec = {"workload": {"kind": "series", "objects": "seed-mid-24", "periods": [24], "repetitions": 1,
                         "warmup": 1, "concurrency": "sequential"},
            "arms": [{"label": p, "protocol": p, "connection": "warm"} for p in ("h1", "h2", "h3")],
            "blocks": cfg["blocks"], "seed": 11, "timeout_s": 120}
    target = ReferenceTarget(cfg["host"], 9, cfg["port"], cfg["host"], cfg["ca_file"])
    samples = []
    for block in range(cfg["blocks"]):  # each block opens its own connections, as on a runner
        job = build_job(spec, run_id="bench", block=block, attempt=1, target=target)
        samples += execute_job(job)["samples"]
    print(json.dumps([[s["arm"], s["path"], s["phase"], s["app_done"], s["error_class"]] for s in samples]))
""")


def size_of(name: str) -> int:
    return content.file_sizes()[name]


def series_table(profile: LinkProfile, blocks: int, *, paced: bool = False) -> None:
    print(f"\n== Part 1: MID series through the workload path, {profile.name} ({2 * profile.down.delay_ms:.0f} ms RTT, "
          f"{profile.down.loss_pct} % loss), sequential, warm, {blocks} blocks (new connections each) of one series "
          f"per arm, target {'with --tcp-pacing' if paced else 'as it runs'}: median total ms per object ==")
    with ExitStack() as stack, workdir() as wd:
        link = stack.enter_context(EmulatedLink(profile, backend="userspace"))
        servers = start_servers(link, stack, Path(wd))
        cfg = {"blocks": blocks, "host": servers.host, "port": servers.ports["target-paced" if paced else "target"],
               "ca_file": servers.ca_file}
        p = link.run_in_client([sys.executable, "-c", SERIES_SCRIPT, json.dumps(cfg)], timeout=1800, cwd=DEVICE_RUNNER)
        if p.returncode != 0:
            print("(failed)", p.stderr[-1500:])
            return
        rows = json.loads(p.stdout)
        errors = sum(1 for r in rows if r[4] is not None)
        by: dict[tuple[str, str], list[float]] = {}
        for arm, path, phase, app_done, error in rows:
            if phase == "measure" and error is None:
                by.setdefault((arm, path.rsplit("/", 1)[-1]), []).append(app_done / 1000)
        print(f"{'object bytes':>12} " + " ".join(f"{p:>9}" for p in PROTOCOLS) + "   h2/h1   h3/h1")
        for name in sorted(SIX, key=size_of):
            med = {p: statistics.median(by[(p, name)]) for p in PROTOCOLS}
            print(f"{size_of(name):12,d} " + " ".join(f"{med[p]:9.1f}" for p in PROTOCOLS)
                  + f"  {med['h2'] / med['h1']:6.3f}  {med['h3'] / med['h1']:6.3f}")
        all_ratio = {p: statistics.median(
            statistics.median(by[(p, n)]) / statistics.median(by[("h1", n)]) for n in content.file_sizes()
            if n.startswith("mid-")) for p in ("h2", "h3")}
        print(f"all 24 objects, median of per-object ratios: h2/h1 {all_ratio['h2']:.3f}, h3/h1 {all_ratio['h3']:.3f}; "
              f"error samples: {errors}")


def matrix(profile: str, objects: list[str], rounds: int, warmups: int, *, fresh_per_round: bool = False) -> None:
    how = (f"{rounds} rounds, each on a new connection after {warmups} warm-ups" if fresh_per_round
           else f"{rounds} rounds on one connection after {warmups} warm-ups")
    print(f"\n== Part 2: peers on {profile}: median total ms per object, {how} ==")
    with ExitStack() as stack, workdir() as wd:
        link = stack.enter_context(EmulatedLink(profile, backend="userspace"))
        servers = start_servers(link, stack, Path(wd))
        print(f"{'proto':5} {'object bytes':>12} {'(a) probe→target':>17} {'(b) peer→target':>16} "
              f"{'(c) probe→peer':>15} {'(d) peer→peer':>14} {'a/d':>6} {'b/d':>6} {'c/d':>6}   peers")
        for protocol in PROTOCOLS:
            ways = peer_combos(protocol)
            if protocol == "h3":
                extra = {"Caddy 2.6: probe": ("probe", "h3", "caddy"), "quic-go client": ("peer-h3get", "h3", "caddy")}
            else:
                extra = {"probe → target --tcp-pacing": ("probe", protocol, "target-paced")}
            got = measure(link, servers, [*ways.values(), *extra.values()], objects, rounds=rounds, warmups=warmups,
                          fresh_per_round=fresh_per_round)
            for name in sorted(objects, key=size_of):
                a, b, c, d = (got[ways[k]][name] for k in "abcd")
                print(f"{protocol:5} {size_of(name):12,d} {a:17.1f} {b:16.1f} {c:15.1f} {d:14.1f} "
                      f"{a / d:6.3f} {b / d:6.3f} {c / d:6.3f}   {ways['b'][0]} / {ways['d'][2]}; "
                      + ", ".join(f"{who} {got[combo][name]:.1f}" for who, combo in extra.items()))
        counters = ("delivered", "dropped_loss", "dropped_queue")
        print("link:", json.dumps({direction: {m: v for m, v in stats.items() if m in counters}
                                   for direction, stats in link.stats().items() if isinstance(stats, dict)}))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true", help="fewer rounds (a smoke run)")
    args = parser.parse_args()
    q = args.quick
    transatlantic = PRESETS["transatlantic"]
    lossless = replace(transatlantic, name="transatlantic-lossless", down=replace(transatlantic.down, loss_pct=0.0),
                       up=replace(transatlantic.up, loss_pct=0.0))
    series_table(lossless, blocks=2 if q else 4)  # the table without loss: physics
    series_table(transatlantic, blocks=3 if q else 8)  # the link: losses add round trips at random
    series_table(lossless, blocks=2 if q else 4, paced=True)  # the sender policy aligned
    matrix("none", SIX, rounds=3 if q else 7, warmups=3)
    # Lossy links: a new connection per round (peer_matrix.measure says why).
    matrix("transatlantic", SIX, rounds=3 if q else 9, warmups=3, fresh_per_round=True)
    matrix("lossy-wifi", SIX, rounds=3 if q else 11, warmups=3, fresh_per_round=True)
    matrix("3g", THREE, rounds=2 if q else 3, warmups=2)
    print("\npeers: curl (libcurl + nghttp2) and nginx for h1/h2; quic-go's http3 client (peer-h3get) and server "
          "(peer-h3fileserver) for h3, with Debian's Caddy 2.6 beside them (docs/methodology.md, Peers)")


if __name__ == "__main__":
    main()
