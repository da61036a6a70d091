"""Loads reports in headless Chromium and checks what the page drew against independent numbers.

- the page renders: the page script finished (``data-rendered``), nothing was thrown, and Chromium saw
  no console message at all (the page logs nothing when it works);
- the time view: Vela is run again here on the arm_pte's .tosa with --verbose-performance, and its
  per-operator CSV must match the operator table and both cycle charts row by row; the operator cycles
  must add up to the summary CSV the build wrote;
- the error view: the error table and chart must show the per-layer numbers embedded in the page, and
  the layer called out as losing the most accuracy must be the one with the largest drop.

Chromium is Debian's `chromium` package (`apt-get install --no-install-recommends chromium`; .ci/run
installs it). Screenshots are kept in the test's undeclared outputs.
"""

from __future__ import annotations

import contextlib
import csv
import io
import json
import os
import shutil
import subprocess
import tempfile
from html.parser import HTMLParser
from pathlib import Path

import pytest

_REPORTS = {
    "small_cnn": "models/small_cnn_u55_pte",
    "mv2": "models/mv2_u55_pte",
}
_CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--hide-scrollbars",
)
_TIMEOUT_S = 300


def _chromium() -> str:
    path = shutil.which("chromium")
    if path is None:
        pytest.fail(
            "headless Chromium is needed: `apt-get install --no-install-recommends chromium` (Debian's package; "
            ".ci/run installs it)"
        )
    return path


def _run_chromium(page: Path, *extra: str) -> subprocess.CompletedProcess:
    with tempfile.TemporaryDirectory(prefix="chromium-profile-") as profile:
        env = dict(os.environ, HOME=profile)
        return subprocess.run(
            [_chromium(), *_CHROMIUM_FLAGS, f"--user-data-dir={profile}", "--virtual-time-budget=10000", *extra,
             page.resolve().as_uri()],
            capture_output=True, text=True, timeout=_TIMEOUT_S, env=env, check=False,
        )


class _Dom(HTMLParser):
    """The parts of the rendered DOM the test reads: attributes by id, table cells, the error box."""

    def __init__(self) -> None:
        super().__init__()
        self.by_id: dict[str, dict[str, str]] = {}
        self.body: dict[str, str] = {}
        self.tables: dict[str, list[list[str]]] = {}
        self.row_attributes: dict[str, list[dict[str, str]]] = {}
        self.texts: dict[str, str] = {}
        self._table: str | None = None
        self._in_body_rows = False
        self._cell: list[str] | None = None
        self._text_of: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attributes = {key: value or "" for key, value in attrs}
        if "id" in attributes:
            self.by_id[attributes["id"]] = attributes
        if tag == "body":
            self.body = attributes
        if tag == "table":
            self._table = attributes.get("id")
            self.tables.setdefault(self._table, [])
            self.row_attributes.setdefault(self._table, [])
        if tag == "tbody":
            self._in_body_rows = True
        if tag == "tr" and self._in_body_rows and self._table:
            self.tables[self._table].append([])
            self.row_attributes[self._table].append(attributes)
        if tag == "td" and self._in_body_rows and self._table:
            self._cell = []
        if tag in ("pre", "p") and "id" in attributes:
            self._text_of.append(attributes["id"])
            self.texts[attributes["id"]] = ""

    def handle_endtag(self, tag: str) -> None:
        if tag == "td" and self._cell is not None:
            self.tables[self._table][-1].append("".join(self._cell))
            self._cell = None
        if tag == "tbody":
            self._in_body_rows = False
        if tag == "table":
            self._table = None
        if tag in ("pre", "p") and self._text_of:
            self._text_of.pop()

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.append(data)
        if self._text_of:
            self.texts[self._text_of[-1]] += data


@pytest.fixture(scope="module", params=sorted(_REPORTS))
def rendered(request):
    stem = Path(_REPORTS[request.param])
    page = stem.with_name(stem.name + "_report.html")
    assert page.is_file(), f"{page} is missing: it is arm_pte's `report` output group"
    dumped = _run_chromium(page, "--enable-logging=stderr", "--v=0", "--dump-dom")
    assert dumped.returncode == 0, dumped.stderr[-2000:]
    dom = _Dom()
    dom.feed(dumped.stdout)
    outputs = Path(os.environ.get("TEST_UNDECLARED_OUTPUTS_DIR", tempfile.gettempdir()))
    shot = _run_chromium(page, "--window-size=1400,2400", f"--screenshot={outputs / (request.param + '_report.png')}")
    assert shot.returncode == 0, shot.stderr[-2000:]
    report = json.loads(_embedded_json(page.read_text()))
    return request.param, stem, dom, dumped.stderr, report, page


def _embedded_json(page: str) -> str:
    start = page.index('<script id="report-data" type="application/json">') + len(
        '<script id="report-data" type="application/json">'
    )
    return page[start : page.index("</script>", start)].replace("<\\/", "</")


def _chart(dom: _Dom, canvas: str) -> dict:
    assert "data-chart" in dom.by_id[canvas], f"{canvas} was not drawn"
    return json.loads(dom.by_id[canvas]["data-chart"])


def _number(text: str) -> float:
    return float(text.replace(",", "").replace("%", "").strip())


def test_page_renders_without_errors(rendered):
    _, _, dom, stderr, _, page = rendered
    assert dom.body.get("data-rendered") == "ok"
    assert dom.texts.get("page-errors", "") == ""
    # Chromium's own pages (chrome://...) log to the console too; only the report's lines count.
    console = [line for line in stderr.splitlines() if ":CONSOLE" in line and f"source: {page.resolve().as_uri()}" in line]
    assert console == []


def _vela_per_layer(tosa: Path, header: dict) -> tuple[list[dict], str]:
    from ethosu.vela import vela  # Vela itself, not the flow's wrapper: the independent side

    config = header["vela_config"]
    with tempfile.TemporaryDirectory() as workdir:
        model = Path(workdir) / "model.tosa"
        shutil.copy(tosa, model)
        with contextlib.redirect_stdout(io.StringIO()):
            status = vela.main([
                f"--accelerator-config={config['accelerator']}",
                f"--system-config={config['system config']}",
                f"--memory-mode={config['memory mode']}",
                "--config=Arm/vela.ini",
                "--output-format=raw",
                "--verbose-performance",
                f"--output-dir={workdir}/out",
                str(model),
            ])
        assert status == 0
        rows = list(csv.DictReader((Path(workdir) / "out" / "model_per-layer.csv").open()))
    return rows, config["accelerator"]


def test_time_view_matches_vela(rendered):
    _, stem, dom, _, report, _ = rendered
    rows, _ = _vela_per_layer(stem.with_suffix(".tosa"), report["header"])
    cycles = [int(float(row["Op Cycles"])) for row in rows]

    table = dom.tables["vela-table"]
    assert len(table) == len(rows)
    for cells, row in zip(table, rows):
        assert cells[2] == row["Original Operator"]
        assert cells[3] == row["Name"]
        assert _number(cells[5]) == int(float(row["Op Cycles"]))
        assert _number(cells[6]) == int(float(row["NPU"]))
        assert _number(cells[7]) == int(float(row["SRAM AC"]))
        assert _number(cells[11]) == int(float(row["MAC Count"]))

    assert _chart(dom, "cycles-chart")["datasets"][0]["data"] == cycles
    kinds = {dataset["label"]: dataset["data"] for dataset in _chart(dom, "kinds-chart")["datasets"]}
    assert kinds["compute (NPU) cycles"] == [int(float(row["NPU"])) for row in rows]
    assert kinds["SRAM access cycles"] == [int(float(row["SRAM AC"])) for row in rows]
    assert kinds["flash access cycles"] == [
        int(float(row["OnFlash AC"])) + int(float(row["OffFlash AC"])) for row in rows
    ]

    summary = next(csv.DictReader(Path(f"{stem}_vela_summary.csv").open()))
    assert sum(cycles) == int(float(summary["cycles_total"]))
    assert _number(dom.tables["partition-table"][0][1]) == int(float(summary["cycles_total"]))

    ranked = sorted(range(len(cycles)), key=lambda index: -cycles[index])[:10]
    assert _chart(dom, "top-chart")["datasets"][0]["data"] == [cycles[index] for index in ranked]
    top = dom.tables["top-table"]
    assert [int(_number(cells[1])) for cells in top] == ranked
    assert [_number(cells[4]) for cells in top] == [cycles[index] for index in ranked]


def test_error_view_shows_the_computed_errors(rendered):
    _, _, dom, _, report, _ = rendered
    errors = report["errors"]
    assert errors, "a quantized Ethos-U model has per-layer errors"
    chart = {dataset["label"]: dataset["data"] for dataset in _chart(dom, "error-chart")["datasets"]}
    assert chart["SQNR delegate vs float (dB)"] == [error["sqnr_delegate_db"] for error in errors]
    assert chart["SQNR quantized torch vs float (dB)"] == [error["sqnr_quantized_db"] for error in errors]
    assert chart["LSB max, delegate vs quantized torch"] == [error["lsb_max"] for error in errors]

    table = dom.tables["error-table"]
    assert [cells[1] for cells in table] == [error["layer"] for error in errors]
    for cells, error in zip(table, errors):
        assert _number(cells[4]) == pytest.approx(error["sqnr_quantized_db"], abs=0.006)
        if error["sqnr_delegate_db"] is not None:
            assert _number(cells[5]) == pytest.approx(error["sqnr_delegate_db"], abs=0.006)

    assert _chart(dom, "drop-chart")["datasets"][0]["data"] == [error["drop_db"] for error in errors]
    worst = max(errors, key=lambda error: error["drop_db"])
    assert dom.by_id["worst-layer"]["data-layer"] == worst["layer"]
    highlighted = [attributes.get("data-layer") for attributes in dom.row_attributes["error-table"] if "highlight" in attributes.get("class", "")]
    assert highlighted == [worst["layer"]]
    # Every delegated layer of these models was compared with the delegate, not just the torch model.
    assert all(error["sqnr_delegate_db"] is not None for error in errors if error["partition"] is not None)


def test_placement_lists_every_node(rendered):
    _, _, dom, _, report, _ = rendered
    placement = report["placement"]
    cpu = [node for node in placement if node["partition"] is None]
    assert [cells[1] for cells in dom.tables["cpu-table"]] == [node["name"] for node in cpu]
    assert all(cells[4] for cells in dom.tables["cpu-table"]), "every CPU node shows a reason"
    assert any(node["partition"] == 0 for node in placement)
