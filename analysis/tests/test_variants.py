"""Variants (a runtime run with other options, VARIANTS): their own rows, lines, colours and footnotes."""

import json

import pandas as pd
import pytest
from pypdf import PdfReader

from analysis import load
from suite.palette import Palette

from .conftest import cli
from .logs import samples, write_run

TOKIO = {"flavor": "multi_thread", "threads": 2, "event_interval": 61, "global_queue_interval": 31,
         "max_io_events_per_tick": 1024}
VARIANTS = {"tokio-ct": {"flavor": "current_thread", "threads": 1}, "tokio-ei8": {"event_interval": 8}}


def write_variant_sweep(folder, repeats=2):
    """std, tokio and two tokio variants, TCP, two rates, `repeats` rounds."""
    seed = 0
    for k in range(1, repeats + 1):
        for label, median in (("std", 30_000), ("tokio", 40_000), ("tokio-ct", 35_000), ("tokio-ei8", 45_000)):
            for interval in (0.001, 0.0):
                seed += 1
                stem = write_run(folder, label, "tcp", interval, samples(seed, 400, median), repeat=k)
                path = stem.with_name(f"{stem.name}.json")
                log = json.loads(path.read_text())
                variant = label if label in VARIANTS else None
                log |= {"framework": "tokio" if variant else label, "variant": variant,
                        "runtime_config": None if label == "std" else TOKIO | VARIANTS.get(label, {})}
                path.write_text(json.dumps(log))
    return folder


@pytest.fixture
def variant_sweep(tmp_path):
    return write_variant_sweep(tmp_path / "localhost-20260101-120000")


def test_a_log_is_shown_under_its_variant_when_it_has_one():
    log = {"framework": "tokio", "variant": "tokio-ct", "runtime_config": {"flavor": "current_thread"}}
    assert load.series(log) == {"framework": "tokio-ct", "base": "tokio", "variant": "tokio-ct",
                                "runtime_config": {"flavor": "current_thread"}}
    assert load.series({"framework": "smol"})["framework"] == "smol"


def test_variants_are_rows_of_their_own_after_their_base_with_a_delta_and_their_settings(variant_sweep, capsys):
    status, out, err = cli(capsys, "--summary", "-d", variant_sweep)
    assert status == 0, err
    rows = [line.split()[0] for line in out.splitlines()[2:10]]
    assert rows == ["std"] * 2 + ["tokio"] * 2 + ["tokio-ct"] * 2 + ["tokio-ei8"] * 2
    assert "tokio-ct: tokio with flavor=current_thread, threads=1 (runtime_config; differs from tokio's)" in out
    assert "tokio-ei8: tokio with event_interval=8 (runtime_config; differs from tokio's)" in out
    status, csv, _ = cli(capsys, "--summary", "--format", "csv", "-d", variant_sweep)
    table = pd.read_csv(pd.io.common.StringIO(csv))
    ct = table[table["framework"] == "tokio-ct"]
    assert len(ct) == 2 and ct["delta_p50_ns"].notna().all() and (ct["verdict"] != "").all()
    status, md, _ = cli(capsys, "--summary", "--format", "markdown", "-d", variant_sweep)
    assert "| tokio-ei8 | tcp |" in md and "tokio-ei8: tokio with event_interval=8" in md
    # Filtered and compared by their own label.
    status, out, _ = cli(capsys, "--summary", "-f", "tokio-ei8", "-d", variant_sweep)
    assert {line.split()[0] for line in out.splitlines()[2:4]} == {"tokio-ei8"}


def test_a_variant_is_compared_with_its_base_runtime_paired_by_round_as_with_std(tmp_path, capsys):
    """tokio-ct's runs are 5 µs under tokio's and tokio-ei8's 5 µs over, in every one of 8 rounds."""
    folder = write_variant_sweep(tmp_path / "localhost-20260101-120000", repeats=8)
    status, csv, err = cli(capsys, "--summary", "--format", "csv", "-d", folder)
    assert status == 0, err
    table = pd.read_csv(pd.io.common.StringIO(csv)).set_index(["framework", "interval_s"])
    for label, sign, called in (("tokio-ct", -1, "faster"), ("tokio-ei8", 1, "slower")):
        for interval in (0.001, 0):
            row = table.loc[(label, interval)]
            assert 3_000 < sign * row["delta_base_p50_ns"] < 7_000 and row["verdict_base"] == called, row
            assert row["delta_base_p50_low_ns"] < row["delta_base_p50_ns"] < row["delta_base_p50_high_ns"], row
    assert table.loc[["std", "tokio"], ["delta_base_p50_ns", "verdict_base"]].isna().all().all()  # empty cells
    status, out, _ = cli(capsys, "--summary", "-d", folder)
    header, rows = out.splitlines()[0], {line.split()[0] + line.split()[3]: line for line in out.splitlines()[2:10]}
    assert "Δp50 vs base µs [CI]" in header and "verdict vs base" in header
    assert rows["tokio-ct∞"].split()[-2:] == ["faster", "0"] and rows["tokio∞"].split()[-2:] == ["slower", "0"], out
    assert "Δp50 vs base: a variant (VARIANTS) against its base runtime's line at the same setting" in out


def test_a_sweep_without_variants_has_no_column_against_a_base(tmp_path, capsys):
    folder = tmp_path / "localhost-20260101-120000"
    for k in (1, 2):
        for label in ("std", "tokio"):
            write_run(folder, label, "tcp", 0.001, samples(k, 400), repeat=k)
    status, out, err = cli(capsys, "--summary", "-d", folder)
    assert status == 0 and "vs base" not in out, err


def test_a_variant_alone_names_its_whole_runtime_config(tmp_path, capsys):
    folder = write_variant_sweep(tmp_path / "v", repeats=1)
    for path in folder.glob("tokio-[0-9tu]*"):  # the base's logs only: tokio-tcp-…
        path.unlink()
    status, out, err = cli(capsys, "--summary", "-f", "tokio-ct", "-d", folder)
    assert status == 0, err
    assert "tokio-ct: tokio with flavor=current_thread, threads=1, event_interval=61" in out
    assert "tokio's not measured here" in out


def stroke_colours(pdf) -> set[str]:
    """Every stroking colour set on the PDF's pages (`r g b RG`), as #RRGGBB."""
    found = set()
    for page in PdfReader(pdf).pages:
        words = page.get_contents().get_data().decode("latin-1").split()
        for i, word in enumerate(words):
            if word == "RG":
                r, g, b = (float(w) for w in words[i - 3:i])
                found.add("#" + "".join(f"{round(c * 255):02X}" for c in (r, g, b)))
    return found


@pytest.mark.parametrize("figure", ["stat", "delta", "ecdf"])
def test_every_figure_draws_each_variant_in_its_own_shade_and_names_it_in_the_legend(variant_sweep, capsys,
                                                                                      figure):
    out = variant_sweep / f"{figure}.pdf"
    status, _, err = cli(capsys, "-t", figure, "-d", variant_sweep, "-o", out)
    assert status == 0, err
    palette = Palette({label: "tokio" for label in VARIANTS})  # what parse.py read in the logs
    ct, ei8 = palette.colour("tokio-ct"), palette.colour("tokio-ei8")
    assert len({ct, ei8, palette.colour("tokio")}) == 3 and palette.base_of("tokio-ei8") == "tokio"
    assert {ct, ei8, palette.colour("tokio")} <= stroke_colours(out)
    text = PdfReader(out).pages[0].extract_text()
    assert "tokio-ct" in text and "tokio-ei8" in text
    if figure == "stat":
        assert "TCP, a variant" in text
