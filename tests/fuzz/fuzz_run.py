"""Run fuzz targets in a child process that the parent watches for crashes and hangs.

    python tests/fuzz/fuzz_run.py [--targets a,b] [--cases N | --seconds S] [--seed K] [--out DIR]

Case ``i`` of target T is ``mutate(seed_files[i % n], i % n, K*10**9 + i)`` (deterministic).  The
child prints ``i`` before and ``i outcome`` after each case; when it dies (a signal: segfault) or
prints nothing for 10 s (a hang), the parent records that case and restarts the child after it.
Every case whose outcome is not ``accepted``/``error`` is saved under ``--out`` with its outcome,
ready to be added to tests/fuzz/corpus/.  Exit status 1 when any such case was found.
"""
from __future__ import annotations

import argparse
import collections
import json
import os
import select
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
HANG = 10.0
BAD = ("traceback", "differs", "invalid", "segfault", "hang")


def worker(target: str, start: int, stop: int, seed: int):
    """Child: run cases start..stop-1, reporting each on stdout."""
    import io
    sys.stderr = io.StringIO()  # cache notes etc.; errors are reported through stdout
    from fuzz_mutate import mutate
    from fuzz_targets import TARGETS, seeds

    fn, family, _ = TARGETS[target]
    ss = seeds(target)
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(start, stop):
            print(i, flush=True)
            data = mutate(ss[i % len(ss)], i % len(ss), seed * 10 ** 9 + i, family)
            try:
                outcome, detail = fn(data, Path(tmp))
            except BaseException as exc:  # noqa: BLE001 - any escape is the finding
                outcome, detail = "traceback", f"{type(exc).__name__}: {str(exc)[:200]}"
            print(i, outcome, json.dumps(detail), flush=True)
            sys.stderr.seek(0)
            sys.stderr.truncate()


def case_bytes(target: str, i: int, seed: int) -> bytes:
    from fuzz_mutate import mutate
    from fuzz_targets import TARGETS, seeds

    ss = seeds(target)
    return mutate(ss[i % len(ss)], i % len(ss), seed * 10 ** 9 + i, TARGETS[target][1])


def run_target(target, cases, seconds, seed, out: Path):
    counts, t0, i = collections.Counter(), time.monotonic(), 0
    stop_at = t0 + seconds if seconds else None
    end = cases if cases else 10 ** 12
    while i < end and (stop_at is None or time.monotonic() < stop_at):
        chunk = min(end, i + 20000)
        proc = subprocess.Popen([sys.executable, __file__, "--worker", target, str(i), str(chunk),
                                 str(seed)], stdout=subprocess.PIPE, text=True, bufsize=1,
                                env={**os.environ, "OMP_NUM_THREADS": "1"})
        current = None
        while True:
            if stop_at is not None and time.monotonic() >= stop_at:
                proc.kill()
                proc.wait()
                break
            ready, _, _ = select.select([proc.stdout], [], [], HANG)
            if not ready:  # no progress for HANG seconds
                proc.kill()
                proc.wait()
                _record(target, current, "hang", f"no result after {HANG:.0f} s", seed, out,
                        counts)
                i = current + 1
                break
            line = proc.stdout.readline()
            if not line:
                code = proc.wait()
                if current is not None and code != 0:
                    _record(target, current, "segfault" if code < 0 else "traceback",
                            f"child exit status {code}", seed, out, counts)
                    i = current + 1
                else:
                    i = chunk
                break
            parts = line.rstrip("\n").split(" ", 2)
            if len(parts) == 1:
                current = int(parts[0])
                continue
            current, outcome = int(parts[0]), parts[1]
            if outcome in BAD:
                _record(target, current, outcome, json.loads(parts[2]), seed, out, counts)
            else:
                counts[outcome] += 1
            current = None
            i = int(parts[0]) + 1
    took = time.monotonic() - t0
    return counts, took


def _record(target, i, outcome, detail, seed, out: Path, counts):
    counts[outcome] += 1
    d = out / target
    d.mkdir(parents=True, exist_ok=True)
    (d / f"{seed}-{i}.bin").write_bytes(case_bytes(target, i, seed))
    (d / f"{seed}-{i}.json").write_text(json.dumps({"outcome": outcome, "detail": detail}))


def main(argv=None):
    from fuzz_targets import TARGETS

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--targets", default=",".join(TARGETS))
    ap.add_argument("--cases", type=int, default=0)
    ap.add_argument("--seconds", type=float, default=0)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default=str(HERE / "findings"))
    args = ap.parse_args(argv)
    if not args.cases and not args.seconds:
        ap.error("give --cases or --seconds")
    found = 0
    for target in args.targets.split(","):
        counts, took = run_target(target, args.cases, args.seconds, args.seed, Path(args.out))
        total = sum(counts.values())
        found += sum(counts[b] for b in BAD)
        print(f"{target:12s} {total:7d} cases in {took:6.1f} s: "
              + ", ".join(f"{k} {counts[k]}" for k in ("accepted", "error") + BAD), flush=True)
    return 1 if found else 0


if __name__ == "__main__":
    sys.path.insert(0, str(HERE))
    if len(sys.argv) > 1 and sys.argv[1] == "--worker":
        worker(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]))
    else:
        sys.exit(main())
