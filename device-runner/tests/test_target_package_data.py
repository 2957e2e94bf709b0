"""The wheel carries the wire-contract schemas and examples and the target's content
table as package data, so an installed runner (no repository around it) finds them
(latencylab_runner/contract.py, latencylab_runner/target/content.py)."""

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

DEVICE_RUNNER = Path(__file__).resolve().parent.parent


def test_wheel_ships_contract_json_and_installed_copy_loads_it(tmp_path):
    # Built from a clean copy: setuptools reuses an in-tree build/ and would ship files
    # deleted from the source since (a stale build/lib is not the wheel users get).
    source = tmp_path / "src"
    shutil.copytree(DEVICE_RUNNER, source, ignore=shutil.ignore_patterns(
        "build", "*.egg-info", "__pycache__", ".pytest_cache", ".mypy_cache", "tests", "benchmarks", "harness",
        "fastlane"))
    subprocess.run([sys.executable, "-m", "pip", "wheel", str(source), "--no-deps", "--no-build-isolation",
                    "-q", "-w", str(tmp_path / "dist")], check=True, capture_output=True, timeout=300)
    wheel, = (tmp_path / "dist").glob("latencylab_runner-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    expected = {f"latencylab_runner/contract/{p.relative_to(DEVICE_RUNNER / 'contract')}"
                for p in (DEVICE_RUNNER / "contract").rglob("*.json")}
    assert "latencylab_runner/contract/sample.schema.json" in expected
    assert expected <= names
    assert {n for n in names if n.startswith("latencylab_runner/data/")} == {
        "latencylab_runner/data/seed_mid_image_series.json"}

    site = tmp_path / "site"
    zipfile.ZipFile(wheel).extractall(site)
    probe = ("import latencylab_runner.contract as c, json, sys; d = c.contract_dir(); "
             "assert d == c._PACKAGE_DIR / 'contract', d; c.validate_sample(json.load(open(d / 'examples' / "
             "'sample-h1-cold.json'))); from latencylab_runner.target import content; "
             "assert content.file_sizes()['mid-01'] > 0; print('ok')")
    out = subprocess.run([sys.executable, "-c", probe], cwd=tmp_path, env={"PYTHONPATH": str(site)},
                         capture_output=True, text=True, timeout=60)
    assert out.stdout.strip() == "ok", out.stderr
