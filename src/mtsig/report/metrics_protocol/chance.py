"""A protocol run's chance levels as the command prints them (:mod:`mtsig.studies.metrics_protocol.chance`): a row
``chance`` and each metric's p-value of being above chance below the text table, and the same fields in its JSON."""

from __future__ import annotations

from mtsig.report.metrics_protocol.page import CHANCE_MARK_ALPHA
from mtsig.studies.metrics_protocol import ProtocolResult
from mtsig.studies.metrics_protocol.chance import CHANCE_QUANTILE, ChanceLevel, ProtocolChance


def _chance_fields(level: ChanceLevel | None, metrics: list[str]) -> dict[str, object]:
    """A task's (or the average's) chance level in JSON: ``chance_p`` beside ``metrics`` (None for a metric without
    a p-value), ``chance`` its mean and 95th percentile; both None without a chance level."""
    if level is None:
        return {"chance_p": None, "chance": None}
    return {
        "chance_p": [level.pvalues.get(name) for name in metrics],
        "chance": {"mean": level.mean, f"upper_{round(CHANCE_QUANTILE * 100)}": level.upper},
    }


def with_chance(payload: dict, chance: ProtocolChance | None) -> dict:
    """:func:`protocol_json`'s payload with every task's, extra task's and the average's chance fields
    (:func:`_chance_fields`) and the draws per metric (``chance_draws``, 0 without chance levels)."""
    by_label = {} if chance is None else chance.by_label()
    for task in [*payload["tasks"], *payload["extras"]]:
        task.update(_chance_fields(by_label.get(task["label"]), task["metrics"]))
    average = None if chance is None else chance.average
    payload["average"].update(_chance_fields(average, payload["average"]["metrics"]))
    payload["chance_draws"] = 0 if chance is None else chance.n_draws
    return payload


def chance_text(result: ProtocolResult, chance: ProtocolChance) -> str:
    """The chance levels below the table: a row ``chance`` (each task's mean [95th percentile], the columns of
    :func:`protocol_table_text`), then each metric's p-value of being above chance, ``°`` where p > 0.05."""
    by_label = chance.by_label()
    columns = [("avg", chance.average)] + [(f"task{k + 1}", level) for k, level in enumerate(chance.tasks)]
    columns += [(f"x{k + 1}", by_label.get(task.task.label)) for k, task in enumerate(result.extras)]
    names = list(result.metrics) + sorted({n for t in result.tasks + result.extras for n in t.human})
    width = max(len(name) for name in [*names, "chance"])
    lines = [
        "",
        f'Chance levels ({chance.n_draws} draws per metric; docs/statistics.md, "Chance levels"): each task\'s mean '
        f"[{round(CHANCE_QUANTILE * 100)}th percentile], then each metric's p-value of being above chance "
        f"(° p > {CHANCE_MARK_ALPHA:g})",
        f"{'metric':<{width}}" + "".join(f"  {label + ' ':>14}" for label, _ in columns),
    ]
    row = f"{'chance':<{width}}"
    for _, level in columns:
        cell = "- " if level is None else f"{level.mean:.3f} [{level.upper:.3f}] "
        row += f"  {cell:>14}"
    lines.append(row)
    for name in names:
        row = f"{name:<{width}}"
        for _, level in columns:
            p = None if level is None else level.pvalues.get(name)
            cell = "- " if p is None else f"{p:.3f}" + ("°" if p > CHANCE_MARK_ALPHA else " ")
            row += f"  {cell:>14}"
        lines.append(row)
    return "\n".join(lines) + "\n\n"
