// The HTML report's table (analysis/html_report.py inlines this): a click on a header sorts the rows by
// that column, again the other way; the selects hide the rows that do not match. No network, no library.
"use strict";
const table = document.getElementById("points");
const rows = table.tBodies[0];
const selects = [...document.querySelectorAll("select[data-facet]")];
const shown = document.getElementById("shown");
// A cell's number is what it starts with, scaled by its unit, so that "950 ns" sorts before "1.2 µs".
const UNITS = {k: 1e3, M: 1e6, G: 1e9, ns: 1, "µs": 1e3, ms: 1e6, s: 1e9, KiB: 1024, MiB: 1024 ** 2, GiB: 1024 ** 3};
const NUMBER = /^([-+]?\d+(?:\.\d+)?(?:e[-+]?\d+)?)\s*(k|M|G|ns|µs|ms|s|KiB|MiB|GiB)?(?!\w)/;

function number(text) {
  const t = text.trim().replace("−", "-");
  if (t.startsWith("∞")) return Infinity;
  const m = NUMBER.exec(t);
  return m ? parseFloat(m[1]) * (UNITS[m[2]] || 1) : null;
}

function order(a, b) {
  // Numbers first, in order; then words; the rows' first order breaks ties.
  if (a.n !== null && b.n !== null && a.n !== b.n) return a.n < b.n ? -1 : 1;
  if ((a.n === null) !== (b.n === null)) return a.n === null ? 1 : -1;
  return a.text.localeCompare(b.text) || a.at - b.at;
}

function sortBy(th) {
  const column = th.cellIndex;
  const up = th.getAttribute("aria-sort") !== "ascending";
  for (const other of th.parentElement.cells) other.removeAttribute("aria-sort");
  th.setAttribute("aria-sort", up ? "ascending" : "descending");
  const keyed = [...rows.rows].map((row, at) => {
    const text = row.cells[column].textContent;
    return {row, text, n: number(text), at};
  });
  keyed.sort((a, b) => (up ? order(a, b) : order(b, a)));
  rows.append(...keyed.map((k) => k.row));
}

function filter() {
  const chosen = selects.filter((s) => s.value).map((s) => [s.dataset.facet, s.value]);
  let count = 0;
  for (const row of rows.rows) {
    row.hidden = !chosen.every(([facet, value]) => row.dataset[facet] === value);
    count += row.hidden ? 0 : 1;
  }
  shown.textContent = `${count} of ${rows.rows.length} rows`;
}

for (const th of table.tHead.rows[0].cells) th.querySelector("button").addEventListener("click", () => sortBy(th));
for (const s of selects) s.addEventListener("change", filter);
filter();
