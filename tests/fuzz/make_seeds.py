"""Write the fuzzing seeds (tests/fuzz/seeds/) from small real files of the dataset mirror.

Each seed is a real file cut to its header and first rows, so a mutation is parsed in well under a
millisecond.  The .rda seed holds the first rows of the mirror's ``flags`` data as an mldr object,
serialized with the tiny XDR writer of tests/data/test_formats.py (there is no small .rda in the
mirror).  Run once (the seeds are committed):

    MLBENCH_MIRROR=/path/to/mirror python tests/fuzz/make_seeds.py
"""
import bz2
import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
MULAN = "raw.githubusercontent.com/tsoumakas/mulan/43f6389095ad71984264db4387a8074b22bc7d4a/data/multi-label"
MEKA = "raw.githubusercontent.com/Waikato/meka/f9ffe231e06ebaa75b4a95c5cdeb737419731621/src/main/data"
CHMCNN = "raw.githubusercontent.com/EGiunchiglia/C-HMCNN/e887855ab4b3b8f22e4fafc80a0a33c1d1ac0041/HMC_data"


def head_rows(text: bytes, rows: int) -> bytes:
    """The header and the first ``rows`` data rows of an ARFF text."""
    lines = text.split(b"\n")
    k = next(i for i, ln in enumerate(lines) if ln.strip().lower().startswith(b"@data"))
    data = [ln for ln in lines[k + 1:] if ln.strip() and not ln.startswith(b"%")]
    return b"\n".join(lines[:k + 1] + data[:rows]) + b"\n"


def main():
    mirror = Path(os.environ["MLBENCH_MIRROR"])
    seeds = HERE / "seeds"
    seeds.mkdir(exist_ok=True)
    (seeds / "flags.arff").write_bytes(head_rows((mirror / MULAN / "flags/flags-test.arff")
                                                 .read_bytes(), 12))
    (seeds / "tmc2007.arff").write_bytes(head_rows((mirror / MULAN / "tmc2007/tmc2007-500-test.arff")
                                                   .read_bytes(), 8))
    for name in ("flags", "scene"):
        (seeds / f"{name}.xml").write_bytes((mirror / MULAN / f"{name}/{name}.xml").read_bytes())
    (seeds / "yeast-meka.arff").write_bytes(
        head_rows(bz2.decompress((mirror / MEKA / "Yeast.arff.bz2").read_bytes()), 4))
    (seeds / "church-clus.arff").write_bytes(
        head_rows((mirror / CHMCNN / "datasets_FUN/church_FUN/church_FUN.test.arff").read_bytes(), 6))
    sys.path.insert(0, str(HERE.parent / "data"))
    from mlbench.data.arff import read_arff
    from test_formats import _i, _int, _list, _pairlist, _real, _str

    flags = read_arff(mirror / MULAN / "flags/flags-test.arff")
    X = flags.X[:6]
    names = flags.names
    cols, types = [], []
    for j, a in enumerate(flags.attributes):
        if a.values:
            cols.append(_str([a.values[int(v)] for v in X[:, j]]))
            types.append("{" + ",".join(a.values) + "}")
        else:
            cols.append(_real([float(v) for v in X[:, j]]))
            types.append("numeric")
    labels = [j + 1 for j, n in enumerate(names) if n in ("red", "green", "blue", "yellow",
                                                               "white", "black", "orange")]
    feats = [j + 1 for j in range(len(names)) if j + 1 not in labels]
    mldr = _list([_str(["flags"]), _list(cols, names), _int(feats),
                  _str(types, _pairlist([("names", _str(names))])),
                  _list([_int(labels)], ["index"])],
                 ["name", "dataset", "attributesIndexes", "attributes", "labels"])
    (seeds / "flags.rda").write_bytes(b"RDX2\nX\n" + _i(2) + _i(0x040000) + _i(0x020300)
                                      + _pairlist([("flags", mldr)]))
    # a user's CSV dataset (read as flags.csv@2): flags' numeric columns, then two 0/1 labels
    num = [j for j, a in enumerate(flags.attributes) if not a.values]
    rows = [",".join(names[j] for j in num) + ",red,green"]
    red, green = names.index("red"), names.index("green")
    rows += [",".join(f"{flags.X[i, j]:g}" for j in num) + f",{int(flags.X[i, red])},{int(flags.X[i, green])}"
             for i in range(8)]
    (seeds / "flags.csv").write_text("\n".join(rows) + "\n")
    # the same table as Parquet (NAME.parquet@2), uncompressed so that mutations reach the values
    import pandas as pd

    pd.read_csv(seeds / "flags.csv").to_parquet(seeds / "flags.parquet", compression=None, index=False)


if __name__ == "__main__":
    main()
