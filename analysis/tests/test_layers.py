"""The import contracts of pyproject.toml hold: lint-imports (import-linter) finds every one kept."""

import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def test_every_import_contract_of_pyproject_toml_is_kept():
    contracts = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]
    lint = Path(sys.executable).parent / "lint-imports"
    assert lint.is_file(), f"missing {lint}: `make dev` installs requirements-dev.txt"
    # The packages are the checkout's, not installed: they are found from the repository's root.
    result = subprocess.run([lint, "--no-cache"], cwd=REPO, capture_output=True, text=True, timeout=120,
                            env=dict(os.environ, PYTHONPATH=str(REPO)))
    assert result.returncode == 0, result.stdout + result.stderr
    kept = re.search(r"Contracts: (\d+) kept, (\d+) broken", result.stdout)
    assert kept and (int(kept.group(1)), int(kept.group(2))) == (len(contracts), 0), result.stdout
