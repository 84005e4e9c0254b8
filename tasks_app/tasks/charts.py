"""Plotly figures of a task, built server-side from its bundle's public files (and its grading data) as JSON.

Pages render them with plotly.js served locally; only public/ files feed the data charts, so any viewer may see them.
"""

from __future__ import annotations

import csv
import io
import json
import math
import time

import pandas as pd
import plotly.graph_objects as go
import plotly.io as pio

from sandmle.tasks.grading_checks import MAX_SCORE_MAGNITUDE
from sandmle_web.charts import TEMPLATE
from tasks_app.tasks.bundle_files import read_head

MAX_FEATURE_CHARTS = 12  # charted up front; the rest open on demand, so a wide task loses no column
MAX_ROWS_READ = 20000  # synthesized tasks hold 50-200 training rows; a big imported one is sampled by its head
MAX_BYTES_READ = 4 << 20  # a task's public CSVs are tens of KB to a few MB; a page reads no more than this of one
# Synthesized tasks have a few to a few dozen features; each chart costs ~40 ms to build, so a wide imported task
# (up to 1,000 columns, the seed width) shows its first columns rather than taking a minute per page.
MAX_PAGE_COLUMNS = 64
MAX_CHART_SECONDS = 2.0  # a few dozen charts take well under this; more waits for no reader
MAX_CATEGORIES = 15
TEXT_MIN_UNIQUE = 30  # a string column with this many distinct values is free text: chart its lengths
TRAIN_COLOUR, TEST_COLOUR = "#2f6fde", "#e0892f"
# Milestone labels over the ladder: a row is LABEL_ROW_PX high; widths are estimated for a plot at least
# LABEL_PLOT_MIN_PX wide (a 1,024 px page gives it ~800) at LABEL_CHAR_PX per character, a little over the font's average.
LABEL_FONT_PX, LABEL_CHAR_PX, LABEL_ROW_PX, LABEL_GAP_PX, LABEL_PLOT_MIN_PX = 10, 6.5, 16, 4, 600
MILESTONE_COLOURS = {"median": "#7a8699", "bronze": "#a0642b", "silver": "#8e9aaf", "gold": "#c9a227"}


def _layout(title: str, **extra) -> dict:
    return dict(title=dict(text=title, font=dict(size=13)), height=260, margin=dict(l=40, r=10, t=36, b=36),
                template=TEMPLATE) | extra


def _as_json(figure: go.Figure) -> dict:
    # Through plotly's own encoder (numpy arrays, NaN), then plain Python for the template's json_script.
    return json.loads(pio.to_json(figure, validate=False))


def _public_head(bundle_dir: str, name: str) -> bytes | None:
    """The file's first MAX_BYTES_READ bytes cut at the last whole line, read without following a link."""
    data = read_head(bundle_dir, f"public/{name}", max_bytes=MAX_BYTES_READ + 1)
    if len(data) > MAX_BYTES_READ:
        data = data[:data.rfind(b"\n", 0, MAX_BYTES_READ) + 1]
    return data or None


def read_public_frame(bundle_dir: str, name: str, *, keep: tuple[str, ...] = ()) -> pd.DataFrame | None:
    """A public CSV as pages see it: its head in bytes, rows and columns (a wide or huge file costs no more than
    MAX_BYTES_READ parsed into the first MAX_PAGE_COLUMNS columns, plus those named in `keep`, the target say);
    None when it is missing, a link or unreadable."""
    data = _public_head(bundle_dir, name)
    if data is None:
        return None
    try:
        header = next(csv.reader(io.StringIO(data[:data.find(b"\n") + 1 or None].decode("utf-8-sig", "replace"))), [])
        columns = sorted(set(range(min(len(header), MAX_PAGE_COLUMNS)))
                         | {position for position, column in enumerate(header) if column in keep})
        return pd.read_csv(io.BytesIO(data), nrows=MAX_ROWS_READ, usecols=columns, low_memory=False)
    except (ValueError, csv.Error, pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError):
        return None


def _is_identifier(column: pd.Series) -> bool:
    return column.name == "id" or (column.dtype == object and column.is_unique and len(column) > 1)


def feature_columns(train: pd.DataFrame, *, target: str) -> list[str]:
    return [name for name in train.columns if name != target and not _is_identifier(train[name])]


def _feature_figure(name: str, train: pd.Series, test: pd.Series | None) -> go.Figure:
    figure = go.Figure()
    splits = [("train", train, TRAIN_COLOUR)] + ([("test", test, TEST_COLOUR)] if test is not None else [])
    numeric = pd.api.types.is_numeric_dtype(train)
    text = not numeric and train.nunique() >= TEXT_MIN_UNIQUE
    for split, values, colour in splits:
        missing = float(values.isna().mean())
        label = f"{split} ({missing:.0%} missing)" if missing else split
        if numeric:
            figure.add_trace(go.Histogram(x=values.dropna(), name=label, marker_color=colour, opacity=0.65,
                                          histnorm="probability"))
        elif text:
            lengths = values.dropna().astype(str).str.split().str.len()
            figure.add_trace(go.Histogram(x=lengths, name=label, marker_color=colour, opacity=0.65,
                                          histnorm="probability"))
        else:
            shares = values.astype("string").fillna("(missing)").value_counts(normalize=True).head(MAX_CATEGORIES)
            figure.add_trace(go.Bar(x=[str(level) for level in shares.index], y=shares.to_numpy(), name=label,
                                    marker_color=colour, opacity=0.8))
    title = f"{name} (words per value)" if text else name
    figure.update_layout(**_layout(title, barmode="overlay" if numeric or text else "group",
                                   legend=dict(orientation="h", y=-0.25), yaxis=dict(title="share")))
    return figure


def feature_distribution_charts(bundle_dir: str, *, target: str) -> list[dict]:
    """One chart per feature (train and test overlaid), every feature read: histograms, level shares, text lengths.

    Charts stop once MAX_CHART_SECONDS have passed (a wide task on a busy machine), so a page's cost is bounded."""
    train = read_public_frame(bundle_dir, "train.csv", keep=(target,))
    if train is None:
        return []
    test = read_public_frame(bundle_dir, "test.csv")
    charts = []
    deadline = time.monotonic() + MAX_CHART_SECONDS
    for index, name in enumerate(feature_columns(train, target=target), start=1):
        if time.monotonic() > deadline:
            break
        test_values = test[name] if test is not None and name in test.columns else None
        charts.append({"name": name, "element_id": f"feature-figure-{index}",
                       "figure": _as_json(_feature_figure(name, train[name], test_values))})
    return charts


def feature_charts_split(charts: list[dict], *, first: list[str] = ()) -> tuple[list[dict], list[dict]]:
    """The charts shown up front (at most MAX_FEATURE_CHARTS) and the rest, with the columns named in `first` leading.

    Callers pass the hidden rule's columns as `first` only to those who may read the rule: the order alone would tell
    anyone else which columns it uses."""
    rank = {name: position for position, name in enumerate(first)}
    ordered = sorted(charts, key=lambda chart: rank.get(chart["name"], len(rank)))  # stable: the rest keep their order
    return ordered[:MAX_FEATURE_CHARTS], ordered[MAX_FEATURE_CHARTS:]


def label_balance_chart(bundle_dir: str, *, target: str, task_type: str) -> dict | None:
    """Class shares of the training labels (a histogram for regression targets)."""
    train = read_public_frame(bundle_dir, "train.csv", keep=(target,))
    if train is None or target not in train.columns:
        return None
    labels = train[target]
    if task_type == "regression" and pd.api.types.is_numeric_dtype(labels):
        figure = go.Figure(go.Histogram(x=labels.dropna(), marker_color=TRAIN_COLOUR))
        figure.update_layout(**_layout(f"{target}: distribution of the training target"))
    else:
        counts = labels.astype("string").fillna("(missing)").value_counts()
        figure = go.Figure(go.Bar(x=[str(level) for level in counts.index], y=counts.tolist(),
                                  marker_color=TRAIN_COLOUR, text=counts.tolist(), textposition="auto"))
        figure.update_layout(**_layout(f"{target}: label balance ({len(labels)} training rows)",
                                       yaxis=dict(title="rows")))
    return _as_json(figure)


def milestone_label_rows(marks: list[tuple[float, str]], *, low: float, high: float,
                         plot_px: float = LABEL_PLOT_MIN_PX) -> list[tuple[int, str]]:
    """(row, xanchor) for each (x, label), in their order: labels on one row never overlap. A label is centred on its
    x unless that runs it past the plot's side (then it ends there); it takes the first row (0 = nearest the plot)
    whose last label ends before it starts."""
    span = (high - low) or 1.0
    row_ends: list[float] = []  # per row, the x (in px) where its rightmost label ends
    placed = [(0, "center")] * len(marks)
    for index in sorted(range(len(marks)), key=lambda index: marks[index][0]):
        x, label = marks[index]
        at, width = (x - low) / span * plot_px, len(label) * LABEL_CHAR_PX
        anchor, start = "center", at - width / 2
        if start < 0:
            anchor, start = "left", at
        elif start + width > plot_px:
            anchor, start = "right", at - width
        row = next((row for row, end in enumerate(row_ends) if end + LABEL_CHAR_PX <= start), len(row_ends))
        if row == len(row_ends):
            row_ends.append(0.0)
        row_ends[row] = start + width
        placed[index] = (row, anchor)
    return placed


def chart_number(value: object) -> float | None:
    """A score the ladder chart can draw: a finite number of sane size (sandmle.tasks.grading_checks' bound), else
    None."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    if isinstance(value, int) and abs(value) > MAX_SCORE_MAGNITUDE:
        return None
    number = float(value)
    return number if math.isfinite(number) and abs(number) <= MAX_SCORE_MAGNITUDE else None


def ladder_chart(*, ladder: dict, milestones: dict, milestone_sources: dict | None = None,
                 is_lower_better: bool = False, headroom: float | None = None, metric: str = "") -> dict | None:
    """The reference ladder's scores as bars and the milestone thresholds as lines, on one score axis.

    Each threshold line names the reference that set it when grading.json records it (`milestone_sources`)."""
    ladder = ladder if isinstance(ladder, dict) else {}
    milestones = milestones if isinstance(milestones, dict) else {}
    # Rows stored before grading files were checked may hold text or huge numbers: those entries are left out.
    scored = sorted(((str(name), number) for name, value in ladder.items() if (number := chart_number(value)) is not None),
                    key=lambda item: item[1], reverse=is_lower_better)
    if not scored:
        return None
    sources = milestone_sources if isinstance(milestone_sources, dict) else {}
    figure = go.Figure(go.Bar(
        y=[name for name, _ in scored], x=[value for _, value in scored], orientation="h", marker_color="#9fb6e8",
        text=[f"{value:.4f}" for _, value in scored], textposition="inside", name="references",
        hovertemplate="%{y}: %{x:.4f}<extra></extra>",
    ))
    marks = []
    for name in ("median", "bronze", "silver", "gold"):
        value = chart_number(milestones.get(name))
        if value is None:
            continue
        label = f"{name} {value:.4f}" + (f" ← {str(sources[name])[:80]}" if sources.get(name) else "")
        figure.add_vline(x=value, line_dash="dash", line_color=MILESTONE_COLOURS[name], line_width=2)
        marks.append((name, value, label))
    direction = "lower is better" if is_lower_better else "higher is better"
    title = f"Reference ladder and milestones ({metric}, {direction})" if metric else "Reference ladder and milestones"
    if chart_number(headroom) is not None:
        title += f" · headroom {chart_number(headroom):.2f}"
    values = [value for _, value in scored] + [value for _, value, _ in marks]
    low, high = min(values), max(values)
    pad = (high - low) * 0.08 or 0.05
    placed = milestone_label_rows([(value, label) for _, value, label in marks], low=low - pad, high=high + pad)
    for (name, value, label), (row, anchor) in zip(marks, placed):
        # Level labels above the plot, each on the first row where it clears its neighbours: never on top of another.
        figure.add_annotation(x=value, xref="x", y=1, yref="paper", yanchor="bottom", xanchor=anchor,
                              yshift=LABEL_GAP_PX + row * LABEL_ROW_PX, text=label, showarrow=False,
                              font=dict(size=LABEL_FONT_PX, color=MILESTONE_COLOURS[name]),
                              name=f"milestone-{name}")
    label_rows = max((row for row, _ in placed), default=-1) + 1
    figure.update_layout(**_layout(title, height=120 + 34 * len(scored) + LABEL_ROW_PX * label_rows, showlegend=False,
                                   xaxis=dict(title=metric or "score", range=[low - pad, high + pad]),
                                   margin=dict(l=80, r=20, t=44 + LABEL_GAP_PX + LABEL_ROW_PX * label_rows, b=40)))
    return _as_json(figure)
