"""Open a report in headless Chromium: collect page errors, count rendered plots, take a screenshot.

Uses the system Chromium (Debian package `chromium`) from the command line: `--dump-dom` after the
page's scripts ran gives the final DOM (plots mark themselves `data-rendered="1"` and count the data points
they drew in `data-points`, errors land in `#js-errors`), `--enable-logging=stderr` gives console messages, `--screenshot` the picture. The
flags keep Chromium off the network entirely, which also proves the page needs none.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from autotune.extras import require_program

FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-extensions",
    "--hide-scrollbars",
    "--virtual-time-budget=20000",
]


@dataclass
class BrowserCheck:
    plots: int
    rendered: int
    page_errors: list[str]
    console_errors: list[str] = field(default_factory=list)
    sections: list[str] = field(default_factory=list)
    external: list[str] = field(default_factory=list)
    screenshot: Path | None = None
    label_overlaps: int = 0
    """Pairs of parallel-coordinates axis titles whose boxes overlap (unreadable labels)."""
    empty: list[str] = field(default_factory=list)
    """The plots drawn with no data point, by div id: blank axes under a legend passed the check (audit 27 F6)."""

    @property
    def ok(self) -> bool:
        clean = not self.page_errors and not self.console_errors and not self.external
        return self.plots == self.rendered and clean and self.label_overlaps == 0 and not self.empty


CHROMIUM = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")


def find_chromium() -> str | None:
    for name in CHROMIUM:
        path = shutil.which(name)
        if path:
            return path
    return None


def require_chromium() -> str:
    """The Chromium binary; MissingPart (one line with the fix) when there is none."""
    return require_program(CHROMIUM, "`autotune report --check`", "apt-get install chromium (the Debian package)")


def inspect(report: Path, screenshot: Path | None = None, width: int = 1400, height: int = 6000) -> BrowserCheck:
    binary = require_chromium()
    url = report.resolve().as_uri()
    with tempfile.TemporaryDirectory() as profile:
        flags = [*FLAGS, f"--user-data-dir={profile}"]
        dom = subprocess.run(
            [binary, *flags, "--enable-logging=stderr", "--v=0", "--dump-dom", url],
            capture_output=True,
            text=True,
            timeout=180,
        )
        if screenshot is not None:
            screenshot.parent.mkdir(parents=True, exist_ok=True)
            subprocess.run(
                [binary, *flags, f"--screenshot={screenshot}", f"--window-size={width},{height}", url],
                capture_output=True,
                text=True,
                timeout=180,
            )
    text = dom.stdout
    errors_block = re.search(r'<pre id="js-errors"[^>]*>(.*?)</pre>', text, re.S)
    page_errors = [e for e in (errors_block.group(1).strip().splitlines() if errors_block else []) if e.strip()]
    console = [
        line for line in dom.stderr.splitlines() if "CONSOLE" in line and re.search(r"Uncaught|Error|error", line)
    ]
    external = re.findall(r'<(?:script|link)[^>]+(?:src|href)="(https?:[^"]+)"', text)
    return BrowserCheck(
        plots=len(re.findall(r'<div id="plot-\d+" class="plot', text)),
        rendered=len(re.findall(r'<div id="plot-\d+" class="plot[^"]*"[^>]*data-rendered="1"', text)),
        page_errors=page_errors,
        console_errors=console,
        sections=re.findall(r'<section id="([\w-]+)"', text),
        external=external,
        screenshot=screenshot if screenshot is not None and screenshot.exists() else None,
        label_overlaps=sum(int(n) for n in re.findall(r'data-label-overlaps="(\d+)"', text)),
        empty=[
            _in_section(text, m.start(), m.group(1))
            for m in re.finditer(r'<div id="(plot-\d+)" class="plot[^"]*"[^>]*data-points="0"', text)
        ],
    )


def _in_section(text: str, at: int, plot: str) -> str:
    """A plot named by its section (`plot-2 (section ablation)`): its DOM id alone named nothing to a reader."""
    sections = re.findall(r'<section id="([\w-]+)"', text[:at])
    return f"{plot} (section {sections[-1]})" if sections else plot
