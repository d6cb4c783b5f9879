"""The metric conventions a results row records (its ``conventions`` column).

A measure whose definition changes in a way that changes its values (how ties are counted, what an
empty label set scores, how labels are averaged) declares a new convention in :data:`CONVENTIONS`
(measure name -> convention name); measures absent from it are at their first definition.
:func:`metric_conventions` is the text a protocol's rows record: rows recorded under other
conventions are stale (:mod:`mlbench.experiment.provenance`).
"""
from __future__ import annotations

#: measure name -> the name of its current convention (absent: its first definition)
CONVENTIONS: dict[str, str] = {}


def metric_conventions(protocol) -> str:
    """The ``conventions`` column of ``protocol``'s rows: ``"v1"`` followed by
    ``;MEASURE=CONVENTION`` for each of its measures with a declared convention, sorted, and
    ``;ties=T`` when the protocol scores ranking measures with tie convention T other than the
    default ``pessimistic`` (:data:`mlbench.metrics.ranking.TIES`), so a protocol that changes its
    convention reruns its cells."""
    from mlbench.metrics import get_measure

    parts = sorted(f"{m}={CONVENTIONS[m]}" for m in protocol.metrics if m in CONVENTIONS)
    ties = getattr(protocol, "ties", "pessimistic")
    if ties != "pessimistic" and any(get_measure(m).kind == "ranking" for m in protocol.metrics):
        parts.append(f"ties={ties}")
    return ";".join(["v1"] + parts)
