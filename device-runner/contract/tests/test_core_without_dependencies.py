"""The contract's core — its files, contract_dir(), load_schema(), the verdict-number rule and the
columnar upload body's writer and reader —
imports with nothing but the standard library, so the CLI can depend on it and install only
httpx and PyYAML besides; only the validator (latencylab_contract.validation) needs jsonschema
and referencing, the `validation` extra the runner asks for. Checked in a Python that sees the
package's source folder and no site-packages at all."""

import json
import subprocess
import sys

from latencylab_contract import contract_dir

PACKAGE_ROOT = contract_dir().parent  # device-runner/contract (an installed copy: its site-packages)

CORE_PROBE = """
import sys
before = set(sys.modules)
import json
import latencylab_contract, latencylab_contract.verdict_numbers as numbers, latencylab_contract.columnar
from latencylab_contract import contract_dir, load_schema
assert (contract_dir() / "verdict-format-vectors.json").is_file()
assert load_schema("result")["$id"]
loaded = {name.split(".")[0] for name in set(sys.modules) - before}
outside = sorted(loaded - set(sys.stdlib_module_names) - {"latencylab_contract"})
print(json.dumps({"outside": outside, "effect": numbers.effect_with_ci(-4.83, [-12.2, 1.04])}))
"""


def bare_python(code: str) -> subprocess.CompletedProcess[str]:
    """-S: no site-packages (so neither jsonschema nor referencing); PYTHONPATH: this package only."""
    return subprocess.run([sys.executable, "-S", "-c", code], env={"PYTHONPATH": str(PACKAGE_ROOT)},
                          capture_output=True, text=True, timeout=60, check=False)


def test_the_core_imports_only_the_standard_library():
    result = bare_python(CORE_PROBE)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == {"outside": [], "effect": "−4.8 % [−12 %, +1.0 %]"}


def test_only_the_validator_needs_the_validation_extra():
    result = bare_python("import latencylab_contract.validation")
    assert result.returncode != 0
    assert "No module named 'jsonschema'" in result.stderr
