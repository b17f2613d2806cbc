"""The data side of the sweep scripts (standard library only): knobs, plan, sweep.json, progress, tables."""
