"""The wheel carries the target's content table as package data, so an installed tools package
(no repository around it) serves the same files (latencylab_tools/target/content.py)."""

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

TOOLS = Path(__file__).resolve().parent.parent


def test_wheel_ships_the_content_table_and_installed_copy_loads_it(tmp_path):
    # Built from a clean copy: setuptools reuses an in-tree build/ and would ship files
    # deleted from the source since (a stale build/lib is not the wheel users get).
    source = tmp_path / "src"
    shutil.copytree(TOOLS, source, ignore=shutil.ignore_patterns(
        "build", "*.egg-info", "__pycache__", ".pytest_cache", ".mypy_cache", "tests", "native"))
    subprocess.run([sys.executable, "-m", "pip", "wheel", str(source), "--no-deps", "--no-build-isolation",
                    "-q", "-w", str(tmp_path / "dist")], check=True, capture_output=True, timeout=300)
    wheel, = (tmp_path / "dist").glob("latencylab_tools-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    assert {n for n in names if n.startswith("latencylab_tools/data/")} == {
        "latencylab_tools/data/seed_mid_image_series.json"}

    site = tmp_path / "site"
    zipfile.ZipFile(wheel).extractall(site)
    probe = ("from latencylab_tools.target import content; "
             f"assert content.__file__.startswith({str(site)!r}), content.__file__; "
             "assert content.file_sizes()['mid-01'] > 0; print('ok')")
    out = subprocess.run([sys.executable, "-c", probe], cwd=tmp_path, env={"PYTHONPATH": str(site)},
                         capture_output=True, text=True, timeout=60)
    assert out.stdout.strip() == "ok", out.stderr
