"""Report notes for a C that internal cross-validation chose at an end of its grid."""
import json

import pandas as pd

from mlbench.report.build import make_report
from mlbench.report.tuning import grid_edge_counts, grid_edge_notes

GRID = [0.01, 0.1, 1.0, 10.0, 100.0]


def row(method, dataset, C, params=None, split="r0"):
    return dict(dataset=dataset, method=method, protocol="toy", split=split, status="ok",
                n_train=80, n_test=20, macro_f1=0.5,
                params=json.dumps(params if params is not None else {"Cs": GRID}),
                extra=json.dumps({"C": C}))


def frame(*rows):
    return pd.DataFrame(list(rows))


def test_counts_read_every_layout_of_the_choices():
    f = frame(row("crf", "d", 0.01),                                     # one C per fit
              row("sc", "d", [0.01, 0.1, None, 100.0]),                  # per label; None: no choice
              row("epcc", "d", [[0.01, 0.01], [0.1, 0.01]]),             # per chain, per label
              row("br", "d", [0.01, 1.0], {"base": "lr-cv", "base_params": {"Cs": GRID}}))
    counts = grid_edge_counts(f)
    assert counts[("crf", "d", "C")] == (GRID, 1, 1, 0)
    assert counts[("sc", "d", "C")] == (GRID, 3, 1, 1)
    assert counts[("epcc", "d", "C")] == (GRID, 4, 3, 0)
    assert counts[("br", "d", "C")] == (GRID, 2, 1, 0)


def test_any_hyper_parameter_with_a_plural_grid_is_read():
    f = frame(row("hc", "d", None, {"rhos": [0.1, 1.0, 10.0]}))
    f.loc[0, "extra"] = json.dumps({"rho": 10.0, "lbfgs_iterations": 12})
    assert grid_edge_counts(f) == {("hc", "d", "rho"): ([0.1, 1.0, 10.0], 1, 0, 1)}
    assert grid_edge_notes(f) == ["hc: internal CV chose the largest rho of its grid (10) for d 100% of "
                                  "its choices; the best rho may lie above the grid (widen rhos)"]


def test_a_lower_case_grid_name_is_read_too():
    # HRLR records its chosen C against the grid ``cs``
    f = frame(row("hrlr", "d", 0.01, {"cs": [0.01, 0.1, 1.0]}))
    assert grid_edge_counts(f) == {("hrlr", "d", "C"): ([0.01, 0.1, 1.0], 1, 1, 0)}


def test_rows_without_a_grid_or_a_choice_or_with_malformed_json_are_skipped():
    f = frame(row("br", "d", [0.01], {"base": "lr-cv", "base_params": None}),   # grid not recorded
              row("m", "d", None), row("m", "e", 0.01, {"Cs": [0.01]}),        # no choice; 1-point grid
              row("m", "f", 0.01, {"Cs": ["a", 1]}), row("m", "g", [True, 0.01]))
    f.loc[len(f)] = {**row("m", "h", 0.01), "params": "{not json"}
    f.loc[len(f)] = {**row("m", "i", 0.01), "extra": "[1, 2]"}
    assert set(grid_edge_counts(f)) == {("m", "g", "C")}   # True is not a C; 0.01 is
    assert grid_edge_counts(f)[("m", "g", "C")] == (GRID, 1, 1, 0)
    assert grid_edge_counts(pd.DataFrame({"method": ["m"], "dataset": ["d"]})) == {}
    # nesting deeper than the interpreter's recursion limit is skipped, not a crash
    deep = row("m", "j", 0.01)
    deep["extra"] = '{"C": ' + "[" * 100_000 + "0.01" + "]" * 100_000 + "}"
    assert grid_edge_counts(frame(deep)) == {}
    deep["extra"] = '{"C": ' + "[" * 500 + "0.01" + "]" * 500 + "}"     # parseable: counted
    assert grid_edge_counts(frame(deep)) == {("m", "j", "C"): (GRID, 1, 1, 0)}


def test_a_note_names_each_dataset_at_or_above_the_share_and_the_direction():
    f = frame(*[row("sc", "d1", [0.01, 0.01], split=f"r{s}") for s in range(3)],
              row("sc", "d2", [0.01, 0.1]),                                   # 50%: named
              row("sc", "d3", [0.01, 0.1, 1.0]),                              # 33%: not named
              row("crf", "d1", 100.0))
    notes = grid_edge_notes(f)
    assert notes == [
        "crf: internal CV chose the largest C of its grid (100) for d1 100% of its choices; the best C "
        "may lie above the grid (widen Cs)",
        "sc: internal CV chose the smallest C of its grid (0.01) for d1 100%, d2 50% of its choices; "
        "the best C may lie below the grid (widen Cs)"]
    assert grid_edge_notes(f, share=0.6) == notes[:1] + [notes[1].replace(", d2 50%", "")]
    assert grid_edge_notes(frame(row("sc", "d", [0.1, 1.0]))) == []


def test_the_report_carries_the_note(tmp_path):
    path = tmp_path / "r.csv"
    frame(*[row(m, d, 0.01 if m == "sc" else 1.0, split=f"r{s}")
            for m in ("sc", "br") for d in ("d1", "d2") for s in range(3)]).to_csv(path, index=False)
    text, analysis, _ = make_report([path], fmt="markdown")
    assert any(n.startswith("sc: internal CV chose the smallest C") for n in analysis.notes)
    assert not any(n.startswith("br:") for n in analysis.notes)
    assert "internal CV chose the smallest C" in text


def test_a_random_search_s_choice_is_read_from_its_search_records():
    """RandomSearch (the bogatinovski2022 protocol) records its grid in params.search.grid and its
    choice in extra.search.chosen; its version 1 scanned the grid in order and, stopped by the
    budget, chose the smallest C: the note would have said so."""
    grid = {"C": [0.03125, 0.5, 8.0], "gamma": [2.0, 0.125], "labelset_size": [3, {"labels": 0.5}],
            "pruning": [1]}
    f = frame(row("rakel2", "ng20", None, {"search": {"grid": grid, "budget_seconds": 300}}),
              row("rakel2", "scene", None, {"search": {"grid": grid}}))
    f.loc[0, "extra"] = json.dumps({"search": {"chosen": {"C": 0.03125, "gamma": 2.0,
                                                           "labelset_size": 3, "pruning": 1}}})
    f.loc[1, "extra"] = json.dumps({"search": {"chosen": {"C": 0.5, "gamma": True}}})
    counts = grid_edge_counts(f)
    assert counts == {("rakel2", "ng20", "C"): ([0.03125, 0.5, 8.0], 1, 1, 0),
                      ("rakel2", "ng20", "gamma"): ([0.125, 2.0], 1, 0, 1),
                      ("rakel2", "scene", "C"): ([0.03125, 0.5, 8.0], 1, 0, 0)}
    notes = grid_edge_notes(f)
    assert notes[0] == ("rakel2: internal CV chose the smallest C of its grid (0.03125) for ng20 "
                        "100% of its choices; the best C may lie below the grid (widen Cs)")
    assert len(notes) == 2 and "largest gamma" in notes[1]



def test_a_grid_starting_at_zero_is_not_widened_below_it():
    """EPS's ``max_subsets`` from {0, 1, 2, 3}: nothing lies below 0, so choosing 0 is no note;
    choosing 3, and choosing the smallest of a grid that starts above 0, still are."""
    grid = {"max_subsets": [0, 1, 2, 3], "pruning": [1, 2, 3], "shift": [-1, 0, 1]}
    f = frame(*[row(m, d, None, {"search": {"grid": grid}}) for m, d in
                (("eps", "d"), ("eps", "e"), ("pst", "d"))])
    for i, chosen in enumerate(({"max_subsets": 0, "pruning": 2},
                                {"max_subsets": 3, "pruning": 2},
                                {"max_subsets": 2, "pruning": 1, "shift": -1})):
        f.loc[i, "extra"] = json.dumps({"search": {"chosen": chosen}})
    assert grid_edge_counts(f)[("eps", "d", "max_subsets")] == ([0.0, 1.0, 2.0, 3.0], 1, 1, 0)
    notes = [n.split(":")[0] + n.split("chose the")[1].split(" of")[0] for n in grid_edge_notes(f)]
    assert notes == ["eps largest max_subsets", "pst smallest pruning", "pst smallest shift"]
