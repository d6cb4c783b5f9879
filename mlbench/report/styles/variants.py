"""The variants table printed after a style's own tables: each variant of the protocol (an ablation,
an alternative reading) against its parent method, on the datasets where the variant ran.

Per metric (row groups) and variant (rows): the parent's mean minus the variant's mean over the
splits both have, one column per dataset, ∗ / ⊛ when the parent is significantly better / worse by
the per-dataset test across splits, and the parent's #win/#tie/#loss; a ``parent`` column when the
variants have more than one parent.  A dataset where the variant
did not run shows "·"; one where it ran without a value "—".
"""
from __future__ import annotations

import numpy as np

from mlbench.report.styles.common import arrow
from mlbench.report.table import Cell, Row, Table

MARK = {1: "∗", -1: "⊛", 0: "", None: ""}


def variants_table(analysis, title=None):
    """The table of ``analysis.variants`` (None when there is none)."""
    if not analysis.variants:
        return None
    ran = [d for d in analysis.metrics[0].datasets
           if any(d in va.metrics[0].datasets for va in analysis.variants)]
    ran += [d for va in analysis.variants for d in va.metrics[0].datasets if d not in ran]
    test = analysis.split_test_name
    parents = list(dict.fromkeys(va.parent for va in analysis.variants))
    one = parents[0] if len(parents) == 1 else None      # one parent: named in the title only
    t = Table("variants", title or f"Variants against their parent{' ' + one if one else ''}: "
              "parent − variant (mean over the splits of the datasets the variant ran on); ∗/⊛: "
              "parent significantly better/worse",
              ["Variant"] + ([] if one else ["parent"]) + ran + ["#win/#tie/#loss"])
    for k in range(len(analysis.metrics)):
        for va in analysis.variants:
            ma = va.metrics[k]
            cells = []
            for d in ran:
                if d not in ma.datasets:
                    cells.append(Cell("·"))
                    continue
                diff = ma.mean.loc[d, va.parent] - ma.mean.loc[d, va.variant]
                cells.append(Cell("—") if not np.isfinite(diff) else
                             Cell(f"{diff:+.4f}", float(diff), marker=MARK[ma.split_marker(d, va.variant)]))
            w, ti, lo = ma.wtl.get(va.variant, [0, 0, 0])
            lead = [] if one else [Cell(va.parent)]
            t.rows.append(Row(va.variant, lead + cells + [Cell(f"{w}/{ti}/{lo}")],
                              group=f"{ma.display} {arrow(ma)}"))
    t.notes.append(f"∗/⊛ and #win/#tie/#loss: the parent against the variant, {test} across splits "
                   f"at α = {analysis.alpha:g}; a positive difference means a higher parent mean; "
                   "·: not run")
    return t
