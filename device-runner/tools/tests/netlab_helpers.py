"""Helpers for the tests over an emulated link (not fixtures): the reference target in a
link's server namespace, the host probe in its client namespace. All traffic stays between
the link's two llab-* namespaces, on 198.18.0.0/15."""
from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import textwrap
from dataclasses import dataclass
from pathlib import Path

import pytest
from latencylab_tools.netlab import EmulatedLink

DEVICE_RUNNER = Path(__file__).resolve().parent.parent

# Runs inside the client namespace: one probe session per arm, every sample
# printed as one JSON document on stdout.  Bounded by the per-request timeout
# and by run_in_client's timeout.
PROBE_SCRIPT = textwrap.dedent("""
    import json, sys, time
    from latencylab_tools.probe import Origin, ProbeRequest, open_session
    cfg = json.loads(sys.argv[1])
    out = []
    for arm in cfg["arms"]:
        origin = Origin("https", cfg["host"], cfg["port"])
        with open_session(protocol=arm["protocol"], connection=arm["connection"], origin=origin,
                          ca_file=cfg["ca_file"], timeout_s=cfg["timeout_s"]) as s:
            # `paths`: the measured requests' paths in order, after `warmup` requests of `path`.
            paths = [arm["path"]] * arm["warmup"] + (arm.get("paths") or [arm["path"]] * arm["n"])
            for i, path in enumerate(paths):
                req = ProbeRequest(method="GET", path=path, op="get")
                if arm.get("concurrent") and i >= arm["warmup"]:
                    # One series: `concurrent` streams issued at once on the warm connection.
                    start = time.perf_counter()
                    batch = s.fetch_concurrent([req] * arm["concurrent"])
                    series_ms = (time.perf_counter() - start) * 1000
                else:
                    batch, series_ms = [s.fetch(req)], None
                for f in batch:
                    f["arm"], f["warmup"], f["series"], f["series_ms"] = arm["name"], i < arm["warmup"], i, series_ms
                    f["path"] = path
                    out.append(f)
                print(arm["name"], i, [f["error_class"] for f in batch], series_ms, file=sys.stderr, flush=True)
    print(json.dumps(out))
""")


@dataclass
class LinkedTarget:
    link: EmulatedLink
    port: int
    ca_file: str

    def probe(self, *arms: dict, timeout_s: float = 15.0, run_timeout_s: float = 60.0) -> dict[str, list[dict]]:
        """Run the arms in the client namespace; measured (non-warm-up) samples per arm."""
        arms_full = [{"connection": "cold", "path": "/healthz", "warmup": 0, "n": 1, **a} for a in arms]
        cfg = {"host": self.link.server_addr, "port": self.port, "ca_file": self.ca_file,
               "timeout_s": timeout_s, "arms": arms_full}
        with tempfile.TemporaryFile("w+") as err:
            try:
                p = self.link.run_in_client([sys.executable, "-c", PROBE_SCRIPT, json.dumps(cfg)],
                                            timeout=run_timeout_s, cwd=DEVICE_RUNNER,
                                            capture_output=False, stdout=subprocess.PIPE, stderr=err)
            except subprocess.TimeoutExpired:
                err.seek(0)
                pytest.fail(f"probe did not finish in {run_timeout_s} s; link {self.link.stats()}; "
                            f"progress:\n{err.read()[-3000:]}")
            err.seek(0)
            assert p.returncode == 0, err.read()[-3000:]
        out: dict[str, list[dict]] = {a["name"]: [] for a in arms_full}
        for f in json.loads(p.stdout):
            assert f["error_class"] is None, f
            if not f["warmup"]:
                out[f["arm"]].append(f)
        return out


def start_target(link: EmulatedLink, tls_dir: Path) -> LinkedTarget:
    srv = link.spawn_in_server(
        [sys.executable, "-m", "latencylab_tools.target", "--host", link.server_addr,
         "--plain-port", "-1", "--tls-port", "8443", "--tls-dir", str(tls_dir)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=DEVICE_RUNNER)
    line = srv.stdout.readline()
    if not line:
        srv.wait(5)
        raise RuntimeError(f"target did not start in the server namespace: {srv.stderr.read()[-2000:]}")
    ready = json.loads(line)
    assert ready["h3_port"] == ready["tls_port"]
    return LinkedTarget(link, ready["tls_port"], str(ready["ca_file"]))
