"""Live cards in a Jupyter kernel: a training job's and a tuning job's state as a MIME bundle.

The studio's notebook panes render ``application/vnd.mlstudio.job.v1+json`` and
``application/vnd.mlstudio.tuning.v1+json`` as native live cards; JupyterLab and nbconvert show
the ``text/html`` twin (a small self-contained table) and plain consoles the ``text/plain`` line.
Outside an IPython kernel nothing is displayed. IPython is imported only when a kernel runs.
"""

import html
import sys

JOB_MIME = "application/vnd.mlstudio.job.v1+json"
TUNING_MIME = "application/vnd.mlstudio.tuning.v1+json"

_STATUS_COLOURS = {
    "InProgress": "#1f6feb",
    "Completed": "#1a7f37",
    "Failed": "#cf222e",
    "Stopping": "#9a6700",
    "Stopped": "#9a6700",
}


def in_kernel():
    """True inside a Jupyter kernel (ipykernel), where display() reaches a frontend."""
    if "IPython" not in sys.modules:
        return False
    try:
        from IPython import get_ipython
    except ImportError:
        return False
    shell = get_ipython()
    return shell is not None and getattr(shell, "kernel", None) is not None


def _format_value(value):
    if isinstance(value, float):
        return "{:.6g}".format(value)
    return "" if value is None else str(value)


def _status_cell(status):
    colour = _STATUS_COLOURS.get(status, "#57606a")
    return '<b style="color:{}">{}</b>'.format(colour, html.escape(status or ""))


def _row(label, value_html):
    return (
        '<tr><th style="text-align:left;padding:2px 12px 2px 0">{}</th>'
        '<td style="text-align:left;padding:2px 0">{}</td></tr>'
    ).format(html.escape(label), value_html)


def _progress_html(step, total):
    if step is None or step < 0:
        return ""
    if total and total > 0:
        share = max(0.0, min(1.0, float(step) / float(total)))
        return (
            '<div style="display:inline-block;width:160px;height:8px;background:#d0d7de;'
            'vertical-align:middle"><div style="width:{:.0f}%;height:8px;background:#1f6feb">'
            "</div></div> {} / {}".format(share * 100, step, total)
        )
    return "step {}".format(step)


def job_html(card):
    """The job card's HTML twin: name, status, experiment, progress, last metrics, failure."""
    status = _status_cell(card.get("status"))
    if card.get("secondary_status"):
        status += " &middot; " + html.escape(card["secondary_status"])
    rows = [
        _row("Training job", "<code>{}</code>".format(html.escape(card["job"]))),
        _row("Status", status),
    ]
    if card.get("experiment"):
        trial = " / " + html.escape(card["trial"]) if card.get("trial") else ""
        rows.append(_row("Experiment", html.escape(card["experiment"]) + trial))
    progress = _progress_html(card.get("step"), card.get("total"))
    if progress:
        rows.append(_row("Progress", progress))
    for name, value in sorted((card.get("metrics") or {}).items()):
        rows.append(_row(name, html.escape(_format_value(value))))
    if card.get("failure_reason"):
        rows.append(
            _row("Reason", '<span style="color:#cf222e">{}</span>'.format(
                html.escape(card["failure_reason"])))
        )
    return '<table class="mlstudio-job">{}</table>'.format("".join(rows))


def job_bundle(card):
    text = "TrainingJob {}: {}".format(card["job"], card.get("status") or "")
    return {JOB_MIME: card, "text/html": job_html(card), "text/plain": text}


def tuning_html(card):
    """The tuning card's HTML twin: counters, best job and a row per training job."""
    objective = card.get("objective") or {}
    head = [
        _row("Tuning job", "<code>{}</code>".format(html.escape(card["tuning"]))),
        _row("Status", _status_cell(card.get("status"))),
        _row("Training jobs", "{} of {} done".format(card.get("done", 0), card.get("max_jobs", 0))),
        _row(
            "Objective",
            html.escape("{} ({})".format(objective.get("name", ""), objective.get("type", ""))),
        ),
    ]
    if card.get("best_job"):
        head.append(
            _row(
                "Best",
                "{} <code>{}</code>".format(
                    html.escape(_format_value(card.get("best_objective"))),
                    html.escape(card["best_job"]),
                ),
            )
        )
    jobs = "".join(
        "<tr><td><code>{}</code></td><td>{}</td><td>{}</td><td>{}</td></tr>".format(
            html.escape(j.get("job", "")),
            _status_cell(j.get("status")),
            html.escape(_format_value(j.get("objective"))),
            "stopped early" if j.get("stopped_early") else "",
        )
        for j in card.get("jobs") or []
    )
    table = ""
    if jobs:
        table = (
            '<table class="mlstudio-tuning-jobs"><thead><tr><th>Training job</th><th>Status</th>'
            "<th>Objective</th><th></th></tr></thead><tbody>{}</tbody></table>".format(jobs)
        )
    return '<table class="mlstudio-tuning">{}</table>{}'.format("".join(head), table)


def tuning_bundle(card):
    text = "HyperparameterTuningJob {}: {} ({} of {} training jobs done)".format(
        card["tuning"], card.get("status") or "", card.get("done", 0), card.get("max_jobs", 0)
    )
    return {TUNING_MIME: card, "text/html": tuning_html(card), "text/plain": text}


class LiveCard:
    """One card in the kernel's output, shown on first update and updated in place after; a
    no-op outside a kernel. ``bundle_of`` turns a card dict into its MIME bundle."""

    def __init__(self, bundle_of):
        self._bundle_of = bundle_of
        self._handle = None
        self._last = None
        self._enabled = in_kernel()

    def update(self, card):
        """Shows or updates the card; returns True when the output changed."""
        if not self._enabled or card == self._last:
            return False
        from IPython.display import display

        bundle = self._bundle_of(card)
        if self._handle is None:
            self._handle = display(bundle, raw=True, display_id=True)
        else:
            self._handle.update(bundle, raw=True)
        self._last = card
        return True
