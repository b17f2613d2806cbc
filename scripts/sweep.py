#!/usr/bin/env python3
"""The data side of run-localhost.sh and run-network.sh: knobs, plan, sweep.json, progress, summary.

Standard library only, so it runs with any python3 before the analysis packages are installed.
`python3 scripts/sweep.py -h` lists the subcommands; the scripts are its only intended callers.
"""

import sys
from pathlib import Path

if sys.version_info < (3, 10):  # before importing what an older Python cannot parse
    sys.stderr.write("sweep.py: needs Python 3.10 or newer; this is %s\n" % sys.version.split()[0])
    sys.exit(2)

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent), str(HERE)]  # analysis.runtimes and analysis.style; sweepkit

from sweepkit.cli import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
