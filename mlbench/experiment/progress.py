"""Progress of a run: a live rich display on a terminal, one plain line per finished cell otherwise.

The live view shows cells done / total, the cells running now with their elapsed time, the run's
elapsed time and an ETA (elapsed time / cells finished x cells left, which already reflects the
parallel jobs).  It refreshes from the driver's loop (no refresh thread), which keeps forking
workers safe.
"""
from __future__ import annotations

import sys
import time


class Progress:
    def __init__(self, total, skipped=0, jobs=1, console=None, live=None):
        from rich.console import Console

        self.console = console or Console(stderr=True)
        self.live_enabled = self.console.is_terminal if live is None else live
        self.total, self.skipped, self.jobs = total, skipped, jobs
        self.done = 0
        self.counts = {}
        self.running = {}
        self.t0 = time.monotonic()
        self._live = None

    # -- events ------------------------------------------------------------------------------------
    def __enter__(self):
        if self.skipped:
            self.console.print(f"resuming: {self.skipped} cell(s) already in the results, "
                               f"{self.total} to run")
        if self.live_enabled and self.total:
            from rich.live import Live

            self._live = Live(self._render(), console=self.console, auto_refresh=False,
                              transient=True)
            self._live.__enter__()
        return self

    def started(self, spec):
        self.running[spec.key] = (spec, time.monotonic())
        self.refresh()

    def finished(self, spec, row):
        start = self.running.pop(spec.key, (spec, time.monotonic()))[1]
        self.done += 1
        status = row.get("status", "?")
        self.counts[status] = self.counts.get(status, 0) + 1
        took = time.monotonic() - start
        line = f"[{self.done}/{self.total}] {spec.label} {status} {took:.1f}s"
        if status != "ok" and row.get("error"):
            line += f" ({row['error'][:120]})"
        if self._live is not None:
            self._live.console.print(line, markup=False, highlight=False)
            self.refresh()
        else:
            print(line, file=sys.stderr, flush=True)

    def refresh(self):
        if self._live is not None:
            self._live.update(self._render(), refresh=True)

    def __exit__(self, *exc):
        if self._live is not None:
            self._live.__exit__(*exc)
            self._live = None
        return False

    # -- rendering -----------------------------------------------------------------------------
    def eta(self):
        elapsed = time.monotonic() - self.t0
        if not self.done:
            return None
        return elapsed / self.done * (self.total - self.done)

    def _render(self):
        from rich.table import Table

        elapsed = time.monotonic() - self.t0
        eta = self.eta()
        counts = ", ".join(f"{k} {v}" for k, v in sorted(self.counts.items()))
        head = (f"cells {self.done}/{self.total}" + (f" ({counts})" if counts else "")
                + f"   elapsed {_hms(elapsed)}   ETA {_hms(eta) if eta is not None else '--'}")
        table = Table(title=head, title_justify="left", show_edge=False, box=None)
        table.add_column("running")
        table.add_column("for", justify="right")
        now = time.monotonic()
        for spec, start in self.running.values():
            table.add_row(spec.label, _hms(now - start))
        return table


def _hms(seconds):
    seconds = int(round(seconds))
    h, rem = divmod(seconds, 3600)
    m, s = divmod(rem, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m}:{s:02d}"
