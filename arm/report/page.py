"""Renders a Report as one self-contained HTML page: styles, data, Chart.js and the page script inline.

The page has no external reference at all (no CDN, fonts or images), so it opens offline, from a
mail attachment or a CI artifact. The data sits in a JSON script element; assets/page.js draws the
tables and charts from it and records what it drew in ``data-chart`` attributes, which the browser
test compares with the report's numbers.
"""

from __future__ import annotations

import html
import os
from pathlib import Path

from arm.report.report_data import Report

_ASSETS = Path(__file__).resolve().parent / "assets"
# Where Bazel puts @chartjs//:dist/chart.umd.min.js in runfiles, relative to the runfiles root.
_CHART_RUNFILES_PATH = Path("chartjs") / "dist" / "chart.umd.min.js"
CHART_LIBRARY_ENV = "ARM_REPORT_CHART_JS"


class ChartLibraryNotFound(FileNotFoundError):
    """Chart.js is not where the report looks for it."""


def find_chart_library(explicit: Path | None = None) -> Path:
    """Chart.js's minified build: ``explicit``, $ARM_REPORT_CHART_JS, or the Bazel runfiles copy."""
    if explicit is not None:
        if not explicit.is_file():
            raise ChartLibraryNotFound(f"--chart-library {explicit} is not a file; it should be Chart.js's chart.umd.min.js")
        return explicit
    candidates = []
    if override := os.environ.get(CHART_LIBRARY_ENV):
        candidates.append(Path(override))
    # Under Bazel this file sits at <runfiles>/<workspace>/arm/report/page.py.
    runfiles = Path(os.path.abspath(__file__)).parents[3]
    candidates += [runfiles / _CHART_RUNFILES_PATH, runfiles / "arm_npu" / "external" / _CHART_RUNFILES_PATH]
    for candidate in candidates:
        if candidate.is_file():
            return candidate
    raise ChartLibraryNotFound(
        "the report needs Chart.js (chart.umd.min.js) and cannot find it: run the compiler through Bazel "
        "(./bazelw run //arm/report:compile -- ... --report out.html, which brings @chartjs), or pass "
        f"--chart-library PATH / set {CHART_LIBRARY_ENV} to a chart.umd.min.js from `npm pack chart.js@4.5.1`"
    )


def _script_text(text: str) -> str:
    """Text safe inside <script>: a literal ``</`` would end the element early."""
    return text.replace("</", "<\\/")


def render_html(report: Report, chart_library: Path) -> str:
    template = (_ASSETS / "page.html").read_text()
    replacements = {
        "{{TITLE}}": html.escape(f"{report.header.model} on {report.header.target}"),
        "{{STYLE}}": (_ASSETS / "page.css").read_text(),
        "{{DATA}}": _script_text(report.to_json()),
        "{{CHART_JS}}": _script_text(chart_library.read_text()),
        "{{PAGE_JS}}": _script_text((_ASSETS / "page.js").read_text()),
    }
    for marker, value in replacements.items():
        before, found, after = template.partition(marker)
        if not found:
            raise ValueError(f"assets/page.html has no {marker}")
        template = before + value + after  # not str.replace: the values may contain markers' text
    return template
