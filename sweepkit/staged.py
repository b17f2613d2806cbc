"""A run's logs written aside, in the sweep folder's .running/, and moved into the folder once its binary has ended."""

# A binary writes its logs as it goes (a ping opens both at its start and fills them at its end), so a sweep
# killed meanwhile would leave half a log in the folder. Written here instead and renamed into the folder
# (one file system: a rename is atomic), every log in the folder is whole: what a sweep leaves at any moment
# reads, and --continue (sweepkit/resume.py) clears what is left in here. The CSV goes first: the analysis
# finds a run by its JSON, so a run is in the folder once its JSON is.

import shutil
from pathlib import Path

FOLDER = ".running"
SUFFIXES = (".csv", ".json")


def stem(folder: Path, name: str) -> Path:
    """Where the run `name`'s binary writes its logs (its --out)."""
    aside = folder / FOLDER
    aside.mkdir(exist_ok=True)
    return aside / name


def publish(folder: Path, name: str) -> None:
    """The run's logs that its binary wrote, moved into the folder whole."""
    for suffix in SUFFIXES:
        written = folder / FOLDER / f"{name}{suffix}"
        if written.exists():
            written.replace(folder / f"{name}{suffix}")


def remove(folder: Path, name: str) -> None:
    """The run's logs, wherever they are (a run that did not count), and the system ping's raw output."""
    for path in (folder / f"{name}.json", folder / f"{name}.csv", folder / f".{name}.ping-output",
                 *(folder / FOLDER / f"{name}{suffix}" for suffix in SUFFIXES)):
        path.unlink(missing_ok=True)


def clear(folder: Path) -> None:
    """What runs cut off left aside."""
    shutil.rmtree(folder / FOLDER, ignore_errors=True)
