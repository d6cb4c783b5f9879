"""load_dataset, fetch and the cache; the CLI's one-line errors (exit status 2)."""
import functools
import hashlib
import http.server
import os
import threading

import numpy as np
import pytest
import scipy.sparse as sp

import mlbench.data.registry as reg
from mlbench.data import cache, load_dataset
from mlbench.data.dataset import Dataset
from mlbench.data.registry import DatasetEntry, FileEntry, get_entry, list_datasets
from mlbench.errors import DataError

TOY_ARFF = b"""@relation toy
@attribute f1 numeric
@attribute f2 {a,b}
@attribute L1 {0,1}
@attribute L2 {0,1}
@data
0.5,a,1,0
1.5,b,0,1
2.5,a,1,1
"""
TOY_XML = (b'<?xml version="1.0"?><labels xmlns="http://mulan.sourceforge.net/labels">'
           b'<label name="L1"/><label name="L2"/></labels>')
HOST = "example.org"


def sha(b):
    return hashlib.sha256(b).hexdigest()


@pytest.fixture
def env(tmp_path, monkeypatch):
    """A data dir, no mirror, no network (a dead proxy makes any download fail at once)."""
    monkeypatch.setenv("MLBENCH_DATA", str(tmp_path / "data"))
    monkeypatch.delenv("MLBENCH_MIRROR", raising=False)
    for var in ("HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy"):
        monkeypatch.setenv(var, "http://127.0.0.1:9")
    monkeypatch.delenv("NO_PROXY", raising=False)
    monkeypatch.delenv("no_proxy", raising=False)
    return tmp_path


def add_toy(monkeypatch, mirror, arff=TOY_ARFF, xml=TOY_XML, pinned_arff=None):
    """Register dataset 'toy' (files in ``mirror``) next to the real registry."""
    (mirror / HOST / "toy").mkdir(parents=True, exist_ok=True)
    (mirror / HOST / "toy" / "toy.arff").write_bytes(arff)
    (mirror / HOST / "toy" / "toy.xml").write_bytes(xml)
    entry = DatasetEntry(name="toy", format="mulan", domain="test",
                         published={"instances": 3, "features": 2, "labels": 2},
                         files=(FileEntry("full", f"https://{HOST}/toy/toy.arff",
                                          pinned_arff or sha(TOY_ARFF)),
                                FileEntry("labels-xml", f"https://{HOST}/toy/toy.xml",
                                          sha(xml))))
    table = dict(reg.registry())
    table["toy"] = entry
    monkeypatch.setattr(reg, "registry", lambda: table)
    return entry


# --- registry -----------------------------------------------------------------------------
def test_registry_has_every_paper_dataset_and_manifest_entry():
    names = set(list_datasets())
    for n in ["emotions", "yeast", "scene", "cal500", "enron", "medical", "genbase", "birds",
              "corel5k", "rcv1subset1", "rcv1subset5", "corel16k-s1", "corel16k-s2", "tmc2007",
              "mediamill", "image", "eurlex-sm", "ImCLEF07A", "dmoz-small", "ipc", "rcv1v2-hier"]:
        assert n in names, n
    for n in ["ipc", "rcv1v2-hier"]:
        e = get_entry(n)
        assert not e.fetchable and not e.verified and e.source
    for n in ["mediamill", "tmc2007", "eurlex-sm"]:
        e = get_entry(n)
        assert e.fetchable and e.network_only and e.pinned and not e.verified
    assert get_entry("image").verified and not get_entry("image").network_only
    assert set(list_datasets("soshf")) >= {"cal500", "emotions", "rcv1subset2", "mediamill"}
    for e in reg.registry().values():
        for f in e.files:
            assert f.sha256 is None or len(f.sha256) == 64
            assert "/" in f.url and (f.sha256 or not e.verified)



def test_every_paper_key_of_the_registry_is_a_known_paper():
    from mlbench.methods.registry import PAPERS

    for e in reg.registry().values():
        assert set(e.papers) <= set(PAPERS), (e.name, e.papers)


def test_the_comprehensive_study_datasets():
    """Issue 45 item 3: the datasets of Bogatinovski et al. 2022 (the 40 rows of the study's table):
    those the mirror holds are pinned and verified, the others unavailable with a source and a reason."""
    study = list_datasets("bogatinovski2022")
    assert len(study) == len(set(study)) == 40
    mirrored = {"emotions", "yeast", "scene", "cal500", "enron", "medical", "genbase", "birds",
                "corel5k", "bibtex", "delicious", "flags", "foodtruck", "tmc2007-500-mldr", "langlog",
                "ng20", "ohsumed", "reutersk500", "slashdot", "stackex_chess", "stackex_cs",
                "stackex_philosophy"}
    assert mirrored <= set(study)
    for name in study:
        e = get_entry(name)
        if name in mirrored:
            assert e.fetchable and e.pinned and e.verified and not e.network_only, name
        else:
            assert not e.fetchable and e.source and e.note.startswith("not in the mirror"), name
    # the study's tmc2007-500 is the mldr.datasets copy (see test_mirror_datasets), not MULAN's
    assert "tmc2007-500" not in study and get_entry("tmc2007-500-mldr").format == "mldr-rda"

def test_names_are_case_insensitive_and_unknown_suggests():
    assert get_entry("CAL500").name == "cal500" and get_entry("Emotions").name == "emotions"
    with pytest.raises(DataError, match="unknown dataset 'emotion'; did you mean 'emotions'"):
        get_entry("emotion")


# --- loading ------------------------------------------------------------------------------
def test_emotions_embedded_without_network_or_mirror(env):
    ds = load_dataset("emotions")
    assert (ds.n_instances, ds.n_features, ds.n_labels) == (593, 72, 6)
    assert len(ds.parts["train"]) == 391 and ds.parts["test"][0] == 391
    assert ds.Y.dtype == np.int8 and ds.X.dtype == np.float64 and ds.X.flags.c_contiguous
    assert ds.label_names[0] == "amazed-suprised" and ds.domain == "music"
    assert abs(ds.Y.sum(1).mean() - 1.868) < 1e-3
    assert (env / "data" / "emotions.npz").is_file()
    again = load_dataset("emotions")  # from the cache
    np.testing.assert_array_equal(again.X, ds.X)
    assert again.sha256 == ds.sha256 and again.parts.keys() == ds.parts.keys()


def test_cache_round_trip_csr_and_hierarchy(tmp_path):
    from mlbench.data.hierarchy import Hierarchy

    ds = Dataset(name="c", X=sp.csr_matrix(np.array([[0, 1.5], [2, 0]])),
                 Y=np.array([[1, 0], [0, 1]], dtype=np.int8), feature_names=["a", "b"],
                 label_names=["p", "q"], nominal={1: ["x", "y"]},
                 parts={"train": np.array([0]), "test": np.array([1])},
                 hierarchy=Hierarchy([("p", "q")]), sha256="abc", domain="d")
    cache.save(tmp_path, ds)
    assert sorted(os.listdir(tmp_path)) == ["c.npz"]  # no temporary file left behind
    back = cache.load(tmp_path, "c", "abc")
    assert back.X.format == "csr" and (back.X != ds.X).nnz == 0
    assert back.nominal == {1: ["x", "y"]} and back.hierarchy.edges == [("p", "q")]
    assert back.parts["test"].tolist() == [1]
    assert cache.load(tmp_path, "c", "other-hash") is None


def test_mirror_directory(env, monkeypatch):
    add_toy(monkeypatch, env / "mirror")
    ds = load_dataset("toy", mirror=str(env / "mirror"))
    assert ds.Y.tolist() == [[1, 0], [0, 1], [1, 1]] and ds.nominal == {1: ["a", "b"]}
    np.testing.assert_array_equal(ds.X, [[0.5, 0], [1.5, 1], [2.5, 0]])


@pytest.fixture
def http_mirror(env, monkeypatch):
    """A local HTTP server over ``env / "www"`` (base URL of a mirror)."""
    (env / "www").mkdir()
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(env / "www"))
    handler.log_message = lambda *a, **k: None
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    for var in ("HTTP_PROXY", "http_proxy"):
        monkeypatch.delenv(var)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1")
    monkeypatch.setattr("mlbench.data.fetch.RETRIES", 0)
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


def test_mirror_base_url_download(env, monkeypatch, http_mirror):
    add_toy(monkeypatch, env / "www")
    ds = load_dataset("toy", mirror=http_mirror)
    assert ds.n_instances == 3
    assert (env / "data" / "files" / HOST / "toy" / "toy.arff").read_bytes() == TOY_ARFF


def test_download_checksum_mismatch_removes_file(env, monkeypatch, http_mirror, cli):
    add_toy(monkeypatch, env / "www", pinned_arff="1" * 64)
    code, _, msg = cli(["fetch", "toy", "--mirror", http_mirror])
    assert code == 2 and "checksum mismatch" in msg and "1" * 64 in msg and sha(TOY_ARFF) in msg
    assert "removed" in msg
    assert not [p for p in (env / "data").rglob("*") if p.is_file() and "toy.arff" in p.name]


# --- CLI errors: one line, exit status 2, nothing half-written ------------------------------
def test_cli_unknown_name(env, cli):
    code, _, msg = cli(["info", "yeest"])
    assert code == 2 and "did you mean 'yeast'" in msg


def test_cli_checksum_mismatch(env, monkeypatch, cli):
    add_toy(monkeypatch, env / "mirror", pinned_arff="0" * 64)
    code, _, msg = cli(["fetch", "toy", "--mirror", str(env / "mirror")])
    assert code == 2 and "checksum mismatch" in msg and "0" * 64 in msg and sha(TOY_ARFF) in msg
    assert not (env / "data" / "toy.npz").exists()


def test_cli_stale_copy_in_data_dir_is_removed(env, monkeypatch, cli):
    add_toy(monkeypatch, env / "mirror")
    stale = env / "data" / "files" / HOST / "toy" / "toy.arff"
    stale.parent.mkdir(parents=True)
    stale.write_bytes(b"corrupt")
    code, out, _ = cli(["fetch", "toy", "--mirror", str(env / "mirror")])
    assert code == 0 and "verified" in out and not stale.exists()


def test_cli_malformed_arff(env, monkeypatch, cli):
    bad = TOY_ARFF.replace(b"1.5,b,0,1", b"1.5,b,0")
    add_toy(monkeypatch, env / "mirror", arff=bad, pinned_arff=sha(bad))
    code, _, msg = cli(["fetch", "toy", "--mirror", str(env / "mirror")])
    assert code == 2 and "toy.arff:8:8: malformed ARFF data: expected 4 values, found 3" in msg
    assert not (env / "data" / "toy.npz").exists()


@pytest.mark.parametrize("cut, words", [
    (b"@attribute L2", "toy.arff:4:1: truncated ARFF: no @data section"),
    (b",0,1\n2.5", "toy.arff:8:6: malformed ARFF data: expected 4 values, found 2"),
])
def test_cli_truncated_arff(env, monkeypatch, cut, words, cli):
    bad = TOY_ARFF[:TOY_ARFF.index(cut)]
    add_toy(monkeypatch, env / "mirror", arff=bad, pinned_arff=sha(bad))
    code, _, msg = cli(["fetch", "toy", "--mirror", str(env / "mirror")])
    assert code == 2 and words in msg


def test_cli_xml_labels_missing(env, monkeypatch, cli):
    xml = TOY_XML.replace(b'"L2"', b'"L3"')
    entry = add_toy(monkeypatch, env / "mirror", xml=xml)
    table = reg.registry()
    table["toy"] = DatasetEntry(**{**entry.__dict__, "files": (
        entry.files[0], FileEntry("labels-xml", entry.files[1].url, sha(xml)))})
    code, _, msg = cli(["fetch", "toy", "--mirror", str(env / "mirror")])
    assert code == 2 and "labels missing from" in msg and "'L3'" in msg


def test_cli_no_network_no_mirror(env, monkeypatch, cli):
    monkeypatch.setattr("mlbench.data.fetch.RETRIES", 0)  # no waiting between attempts
    code, _, msg = cli(["fetch", "yeast"])
    assert code == 2 and "MLBENCH_MIRROR" in msg and "cannot download" in msg
    assert not list((env / "data").rglob("*.arff"))


def test_cli_unverified_dataset_reported(env, cli):
    code, out, _ = cli(["fetch", "ipc"])
    assert code == 0 and "ipc" in out and "unverified" in out


def test_cli_info_formats(env, cli):
    code, out, _ = cli(["info", "emotions", "--format", "csv"])
    assert code == 0
    header, row = out.strip().splitlines()
    assert header.startswith("name,domain,instances,features,labels,feature_type,cardinality")
    assert row.startswith("emotions,music,593,72,6,numeric,1.86")


def test_cli_info_with_protocol(env, cli):
    pytest.importorskip("mlbench.protocols", reason="protocols are provided by the runner part")
    pytest.importorskip("mlbench.data.preprocess", reason="preprocessing is the runner's part")
    code, out, _ = cli(["info", "emotions", "--protocol", "soshf", "--format", "json"])
    assert code == 0
    import json

    row = json.loads(out)[0]
    assert row["instances"] == 593 and row["labels"] <= 6 and row["ir_max"] <= 50


# --- issue 18: hostile files give one line and exit status 2; bad caches are rebuilt -----------
@pytest.mark.parametrize("arff, xml, words", [
    (TOY_ARFF.replace(b"2.5,a,1,1", b"{99999999999999999999 1}"), TOY_XML,
     "toy.arff:9:2: malformed ARFF data: sparse index out of range"),
    (TOY_ARFF.replace(b"2.5,a,1,1", b"{0 1, 0 2}"), TOY_XML, "toy.arff:9:7: malformed ARFF data: "
     "sparse index not greater than the previous one"),
    (TOY_ARFF.replace(b"2.5,a", b"0x10,a"), TOY_XML, "toy.arff:9:1: malformed ARFF data: "
     "attribute 'f1': value is not a number ('0x10')"),
    (TOY_ARFF, TOY_XML.replace(b'<label name="L1"/>', b"".join(
        b'<label name="d%d">' % i for i in range(5000)) + b"</label>" * 5000),
     "toy.xml:1:1: labels nested deeper than"),
    (TOY_ARFF, TOY_XML.replace(b'version="1.0"', b'version="1.0" encoding="bogus"'),
     "toy.xml:1:1: cannot decode the MULAN label XML"),
])
def test_cli_hostile_file_one_line_exit_2_nothing_cached(env, monkeypatch, cli, arff, xml, words):
    add_toy(monkeypatch, env / "mirror", arff=arff, xml=xml, pinned_arff=sha(arff))
    code, _, msg = cli(["fetch", "toy", "--mirror", str(env / "mirror")])
    assert code == 2 and words in msg and msg.count("\n") == 1 and "Traceback" not in msg
    assert not (env / "data" / "toy.npz").exists()
    assert not [p for p in (env / "data").glob(".toy-*")]


def _toy_loaded(env, monkeypatch):
    add_toy(monkeypatch, env / "mirror")
    return load_dataset("toy", mirror=str(env / "mirror"))


def test_corrupt_cache_is_discarded_and_rebuilt(env, monkeypatch, capsys):
    ds = _toy_loaded(env, monkeypatch)
    path = env / "data" / "toy.npz"
    path.write_bytes(path.read_bytes()[:100])  # a torn zip: BadZipFile
    capsys.readouterr()
    again = load_dataset("toy", mirror=str(env / "mirror"))
    err = capsys.readouterr().err
    assert "note:" in err and "toy.npz: discarding an unusable dataset cache" in err
    np.testing.assert_array_equal(again.X, ds.X)
    assert cache.load(env / "data", "toy") is not None  # rebuilt


def test_cache_whose_features_disagree_is_discarded(env, monkeypatch, capsys):
    ds = _toy_loaded(env, monkeypatch)
    bad = Dataset(ds.name, np.hstack([ds.X, ds.X[:, :1]]), ds.Y, ds.feature_names,
                  ds.label_names, ds.nominal, sha256=ds.sha256, domain=ds.domain)
    cache.save(env / "data", bad)
    capsys.readouterr()
    assert cache.load(env / "data", "toy") is None
    assert "X has 3 columns for 2 feature names" in capsys.readouterr().err
    assert not (env / "data" / "toy.npz").exists()
    assert load_dataset("toy", mirror=str(env / "mirror")).n_features == 2


# --- network-only files --------------------------------------------------------------------------
def _network_only_pins():
    """(url, sha256, bytes) of every row of the mirror's NETWORK_ONLY.tsv."""
    import csv
    import os

    path = os.path.join(os.environ.get("MLBENCH_MIRROR", ""), "NETWORK_ONLY.tsv")
    if not os.path.isfile(path):
        pytest.skip("no mirror with NETWORK_ONLY.tsv")
    with open(path, newline="") as fh:
        return {r["url"]: (r["sha256"], int(r["bytes"])) for r in csv.DictReader(fh, delimiter="\t")}


@pytest.mark.mirror
def test_network_only_files_are_pinned_as_network_only_tsv_says():
    pins = _network_only_pins()
    marked = [f for e in reg.registry().values() for f in e.files if f.network_only]
    assert {f.url.rsplit("/", 1)[-1] for f in marked} >= {
        "mediamill_training.arff", "mediamill_test.arff", "tmc2007_training.arff",
        "tmc2007_test.arff", "eurlex-sm.arff"}
    for f in marked:
        assert pins[f.url] == (f.sha256, f.bytes), f.url


@pytest.mark.mirror
def test_a_network_only_file_missing_from_the_mirror_says_so(tmp_path, monkeypatch, cli):
    from mlbench.data.fetch import NetworkOnlyError

    monkeypatch.setenv("MLBENCH_DATA", str(tmp_path / "data"))
    with pytest.raises(NetworkOnlyError, match="tmc2007_training.arff .* is network-only"):
        load_dataset("tmc2007")
    code, out, err = cli(["fetch", "eurlex-sm"])
    assert code == 2 and "network-only" in err and "pinned sha256" in err
    assert not list((tmp_path / "data").rglob("*.npz"))


@pytest.mark.mirror
def test_image_is_the_boomer_copy_train_then_test(tmp_path, monkeypatch):
    monkeypatch.setenv("MLBENCH_DATA", str(tmp_path / "data"))
    ds = load_dataset("image")
    assert (ds.n_instances, ds.n_features, ds.n_labels) == (2000, 294, 5)
    assert len(ds.parts["train"]) == 1501 and ds.parts["test"][0] == 1501


def test_a_cache_that_cannot_be_written_is_a_note_not_an_error(tmp_path, monkeypatch, capsys):
    import errno

    from mlbench.data import cache
    from mlbench.fileio import write_error

    monkeypatch.setenv("MLBENCH_DATA", str(tmp_path / "data"))

    def full(root, ds):
        raise write_error(root / "emotions.npz", OSError(errno.ENOSPC, "No space left on device"))

    monkeypatch.setattr(cache, "save", full)
    ds = load_dataset("emotions")
    assert ds.n_instances == 593
    assert "emotions parsed but not cached" in capsys.readouterr().err
