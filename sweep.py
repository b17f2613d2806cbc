#!/usr/bin/env python3
"""The sweeps of run-localhost.sh and run-network.sh, which only hand over to it: sweepkit.cli.

Standard library only, so it runs with any python3 (3.11 or newer) before the analysis packages are
installed. `python3 sweep.py` lists the commands; the two scripts are its intended callers.
"""

import sys

if sys.version_info < (3, 11):  # before importing what an older Python cannot parse
    prog = sys.argv[2] if len(sys.argv) > 2 else "sweep.py"
    sys.stderr.write("%s: needs Python 3.11 or newer; this is %s\n" % (prog, sys.version.split()[0]))
    sys.exit(2)

from sweepkit.cli import main  # noqa: E402  (the suite's root, this file's folder, is on the path)

if __name__ == "__main__":
    sys.exit(main())
