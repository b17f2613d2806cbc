"""docs/findings.md made again from scratch: the sweeps it uses, its figures, and the tables between its markers."""
