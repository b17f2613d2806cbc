#!/usr/bin/env python3
"""Summary table and PDF figures of a sweep's RTT logs: see `python3 parse.py -h` and docs/analysis.md."""

import sys

from analysis.cli import main

if __name__ == "__main__":
    sys.exit(main())
