"""Plotly figures of a task, built server-side from its bundle's public files (and its grading data) as JSON.

Pages render them with plotly.js served locally; only public/ files feed the data charts, so any viewer may see them.
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import plotly.graph_objects as go
import plotly.io as pio

MAX_FEATURE_CHARTS = 12
MAX_ROWS_READ = 20000  # synthesized tasks hold 50-200 training rows; a big imported one is sampled by its head
MAX_CATEGORIES = 15
TEXT_MIN_UNIQUE = 30  # a string column with this many distinct values is free text: chart its lengths
TRAIN_COLOUR, TEST_COLOUR = "#2f6fde", "#e0892f"
MILESTONE_COLOURS = {"median": "#7a8699", "bronze": "#a0642b", "silver": "#8e9aaf", "gold": "#c9a227"}


def _layout(title: str, **extra) -> dict:
    return dict(title=dict(text=title, font=dict(size=13)), height=260, margin=dict(l=40, r=10, t=36, b=36),
                font=dict(size=11), template="plotly_white") | extra


def _as_json(figure: go.Figure) -> dict:
    # Through plotly's own encoder (numpy arrays, NaN), then plain Python for the template's json_script.
    return json.loads(pio.to_json(figure, validate=False))


def read_public_frame(bundle_dir: str, name: str) -> pd.DataFrame | None:
    path = Path(bundle_dir) / "public" / name
    if not path.is_file() or path.is_symlink():
        return None
    return pd.read_csv(path, nrows=MAX_ROWS_READ, low_memory=False)


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
    """One chart per feature (train and test overlaid): histograms, level shares, text lengths."""
    train = read_public_frame(bundle_dir, "train.csv")
    if train is None:
        return []
    test = read_public_frame(bundle_dir, "test.csv")
    charts = []
    for index, name in enumerate(feature_columns(train, target=target)[:MAX_FEATURE_CHARTS], start=1):
        test_values = test[name] if test is not None and name in test.columns else None
        charts.append({"name": name, "element_id": f"feature-figure-{index}",
                       "figure": _as_json(_feature_figure(name, train[name], test_values))})
    return charts


def label_balance_chart(bundle_dir: str, *, target: str, task_type: str) -> dict | None:
    """Class shares of the training labels (a histogram for regression targets)."""
    train = read_public_frame(bundle_dir, "train.csv")
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


def ladder_chart(*, ladder: dict, milestones: dict, milestone_sources: dict | None = None,
                 is_lower_better: bool = False, headroom: float | None = None, metric: str = "") -> dict | None:
    """The reference ladder's scores as bars and the milestone thresholds as lines, on one score axis.

    Each threshold line names the reference that set it when grading.json records it (`milestone_sources`)."""
    scored = sorted(((name, float(value)) for name, value in (ladder or {}).items() if value is not None),
                    key=lambda item: item[1], reverse=is_lower_better)
    if not scored:
        return None
    sources = milestone_sources or {}
    figure = go.Figure(go.Bar(
        y=[name for name, _ in scored], x=[value for _, value in scored], orientation="h", marker_color="#9fb6e8",
        text=[f"{value:.4f}" for _, value in scored], textposition="inside", name="references",
        hovertemplate="%{y}: %{x:.4f}<extra></extra>",
    ))
    for name in ("median", "bronze", "silver", "gold"):
        value = (milestones or {}).get(name)
        if value is None:
            continue
        label = f"{name} {float(value):.4f}" + (f" ← {sources[name]}" if sources.get(name) else "")
        figure.add_vline(x=float(value), line_dash="dash", line_color=MILESTONE_COLOURS[name], line_width=2,
                         annotation_text=label, annotation_position="top", annotation_font_size=10,
                         annotation_textangle=-20)
    direction = "lower is better" if is_lower_better else "higher is better"
    title = f"Reference ladder and milestones ({metric}, {direction})" if metric else "Reference ladder and milestones"
    if headroom is not None:
        title += f" · headroom {headroom:.2f}"
    values = [value for _, value in scored] + [float(v) for v in (milestones or {}).values() if v is not None]
    low, high = min(values), max(values)
    pad = (high - low) * 0.08 or 0.05
    # A tall top margin: the slanted threshold labels rise about 50 px above the plot and must not run into the title.
    figure.update_layout(**_layout(title, height=160 + 34 * len(scored), showlegend=False,
                                   xaxis=dict(title=metric or "score", range=[low - pad, high + pad]),
                                   margin=dict(l=80, r=20, t=130, b=40)))
    return _as_json(figure)
