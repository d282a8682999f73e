"""The report's figures, drawn with matplotlib as PNG bytes."""

from __future__ import annotations

import io
import math
import statistics
from typing import TYPE_CHECKING

from attnkit.gradedata import AssignmentData, fmt_score
from attnkit.report.data import PassRate, cell_scores

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

BLUE, GREEN, AMBER, RED, GREY, INK = ("#3b6ea8", "#3f9a5b", "#e0a030", "#c8553d", "#9aa3ad",
                                      "#1f2933")


def _style(ax: Axes) -> None:
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    for side in ("left", "bottom"):
        ax.spines[side].set_color("#c5ccd3")
    ax.tick_params(colors="#52606d", labelsize=8)
    ax.set_axisbelow(True)


def _figure(**options: object) -> Figure:
    """A matplotlib figure (matplotlib is imported here: every ``attnkit`` command imports the
    report, few of them draw)."""
    from matplotlib.figure import Figure

    return Figure(dpi=150, layout="constrained", **options)


def _png(fig: Figure) -> bytes:
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    buffer = io.BytesIO()
    FigureCanvasAgg(fig).print_png(buffer)
    return buffer.getvalue()


def _empty(ax: Axes, text: str) -> None:
    ax.text(0.5, 0.5, text, ha="center", va="center", color="#7b8794", fontsize=10,
            transform=ax.transAxes)
    ax.set_xticks([])
    ax.set_yticks([])


def _step(top: float, bins: int) -> float:
    """A round bin width that splits 0..top into about ``bins`` bins."""
    raw = max(top, 1e-9) / bins
    for step in (0.25, 0.5, 1, 2, 2.5, 5, 10, 20, 25, 50, 100):
        if step >= raw:
            return step
    return 10 ** math.ceil(math.log10(raw))


def figure_scores(data: AssignmentData) -> bytes:
    scores = [s.score for s in data.graded]
    fig = _figure(figsize=(7.2, 2.4))
    ax = fig.add_subplot()
    _style(ax)
    if not scores:
        _empty(ax, "no graded submissions")
        return _png(fig)
    step = max(_step(data.max_score, 12), 0.5)
    edges = [i * step for i in range(int(math.ceil(data.max_score / step)) + 2)]
    counts, _, _ = ax.hist(scores, bins=edges, color=BLUE, edgecolor="white", linewidth=1.2,
                           rwidth=0.92)
    top = max(counts) * 1.22 + 0.1  # headroom for the labels
    ax.set_ylim(0, top)
    mean = statistics.fmean(scores)
    ax.axvline(mean, color=INK, linestyle="--", linewidth=1)
    ax.text(mean, top * 0.98, f" mean {fmt_score(mean, 2)}", color=INK, fontsize=8, va="top")
    ax.axvline(data.max_score, color=GREY, linewidth=1, linestyle=":")
    ax.text(data.max_score, top * 0.98, f" max {fmt_score(data.max_score)}", color="#7b8794",
            fontsize=8, va="top")
    ax.set_xlim(-step * 0.25, edges[-1])
    if len(edges) <= 25:
        ax.set_xticks(edges)
        ax.set_xticklabels([fmt_score(e) for e in edges])
    ax.set_xlabel(f"score (out of {data.max_score:g})", fontsize=9, color="#52606d")
    ax.set_ylabel("students", fontsize=9, color="#52606d")
    ax.yaxis.get_major_locator().set_params(integer=True)
    ax.grid(axis="y", color="#e4e7eb", linewidth=0.8)
    return _png(fig)


def figure_cells(data: AssignmentData) -> bytes:
    """Small multiples: how many students got each score on each graded cell."""
    cells = data.cells
    cols = min(4, max(1, len(cells)))
    rows = max(1, math.ceil(len(cells) / cols))
    fig = _figure(figsize=(1.85 * cols + 0.4, 1.75 * rows + 0.2))
    axes = fig.subplots(rows, cols, squeeze=False)
    for index, ax in enumerate(axes.flat):
        if index >= len(cells):
            ax.set_visible(False)
            continue
        cell = cells[index]
        _style(ax)
        scores = cell_scores(data, cell)
        pending = sum(1 for s in data.graded
                      if cell.key in s.marks and s.marks[cell.key].needs_manual_grade)
        title = cell.label if len(cell.label) <= 26 else cell.label[:25] + "…"
        ax.set_title(title, fontsize=8, color=INK, loc="left")
        if not scores:
            _empty(ax, f"{pending} pending" if pending else "no scores")
            continue
        values = sorted(set(scores) | {0.0, cell.max_score})
        counts = [scores.count(v) for v in values]
        colors = [GREEN if v >= cell.max_score else RED if v <= 0 else AMBER for v in values]
        width = max(cell.max_score, 1) * 0.12
        ax.bar(values, counts, width=width, color=colors)
        ax.set_xticks(values)
        ax.set_xticklabels([f"{v:g}" for v in values], fontsize=7)
        ax.set_ylim(0, max(counts) * 1.25 + 0.1)
        ax.yaxis.get_major_locator().set_params(integer=True)
        mean = statistics.fmean(scores)
        note = f"mean {fmt_score(mean, 2)} / {fmt_score(cell.max_score)}"
        if pending:
            note += f" · {pending} pending"
        ax.text(0.99, 0.97, note, transform=ax.transAxes, ha="right", va="top", fontsize=7,
                color="#52606d")
        ax.grid(axis="y", color="#e4e7eb", linewidth=0.6)
    if not cells:
        axes[0][0].set_visible(True)
        _empty(axes[0][0], "no graded cells")
    return _png(fig)


def figure_pass_rates(data: AssignmentData, rates: list[PassRate]) -> bytes:
    fig = _figure(figsize=(7.2, 0.3 * max(len(rates), 2) + 0.55))
    ax = fig.add_subplot()
    _style(ax)
    if not rates or not any(r.total for r in rates):
        _empty(ax, "no autograded cells graded")
        return _png(fig)
    labels = [r.cell.label for r in rates][::-1]
    values = [100 * r.rate for r in rates][::-1]
    colors = [GREEN if v >= 75 else AMBER if v >= 40 else RED for v in values]
    ax.barh(labels, [100] * len(values), color="#eef1f4", height=0.62)
    ax.barh(labels, values, color=colors, height=0.62)
    for y, rate in enumerate(rates[::-1]):
        ax.text(101.5, y, f"{100 * rate.rate:.0f}%  ({rate.passed}/{rate.total})", va="center",
                fontsize=8, color=INK)
    ax.set_xlim(0, 125)
    ax.set_xticks([0, 25, 50, 75, 100])
    ax.set_xticklabels(["0", "25", "50", "75", "100%"])
    ax.tick_params(axis="y", labelsize=8, length=0)
    ax.spines["left"].set_visible(False)
    return _png(fig)
