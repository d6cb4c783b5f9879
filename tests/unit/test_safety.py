"""Names and URLs that become paths cannot reach outside the chosen directories (issue 18, part 4):
every case leaves a canary file outside the data or output directory untouched."""
import hashlib

import pytest

from mlbench.data import fetch
from mlbench.data.registry import FileEntry, _entry
from mlbench.errors import ConfigError, DataError, MlbenchError
from mlbench.safety import check_name, check_url, inside

BAD_URLS = ["https://host/../../canary.arff", "https:///canary.arff", "https://host//canary.arff",
            "https://host/a/./b.arff", "file:///etc/passwd", "https://user:pw@host/a.arff",
            "https://host/a.arff?x=1", "https://host/%2e%2e/canary.arff", "https://host:99/a.arff",
            "https://host/a\\..\\b.arff", "ftp://host/a.arff", "https://host"]


@pytest.mark.parametrize("url", BAD_URLS)
def test_unsafe_urls_are_refused_when_the_registry_loads(url):
    with pytest.raises(DataError, match="datasets.yaml: toy: url"):
        _entry("toy", {"format": "mulan", "files": [{"role": "full", "url": url, "sha256": None}]})


def test_real_urls_pass():
    assert check_url("https://raw.githubusercontent.com/o/r/0123/data/x-train.arff")


@pytest.mark.parametrize("name", ["../x", "a/b", ".hidden", "", "x" * 101, "a b", "ü", None])
def test_unsafe_names_are_refused(name):
    with pytest.raises(ConfigError, match="not a safe name"):
        check_name(name, "dataset name")
    with pytest.raises(MlbenchError):
        _entry(name, {"format": "mulan", "files": []})


def _canary(path):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"canary")
    return hashlib.sha256(b"canary").hexdigest()


@pytest.mark.parametrize("url", ["https://host/../../canary.arff", "https://host/%2e%2e/%2e%2e/canary.arff"])
def test_fetch_cannot_read_or_delete_outside_the_data_dir(tmp_path, url):
    """A FileEntry built around the registry check (a corrupt in-memory entry) is still refused by
    fetch itself before it reads, deletes or downloads anything."""
    root = tmp_path / "data"
    canary = tmp_path / "canary.arff"
    _canary(canary)
    (root / "files").mkdir(parents=True)
    entry = FileEntry("full", url, sha256="0" * 64)
    with pytest.raises(DataError):
        fetch.fetch_file(entry, root, mirror=str(tmp_path / "mirror"))
    with pytest.raises(DataError):
        fetch.fetch_file(entry, root, mirror=None)
    assert canary.read_bytes() == b"canary"


def test_inside_follows_symlinks(tmp_path):
    root = tmp_path / "root"
    root.mkdir()
    (root / "link").symlink_to(tmp_path)
    assert inside(root / "a" / "b", root)
    with pytest.raises(DataError, match="outside"):
        inside(root / "link" / "x", root)


def test_a_protocol_named_like_a_path_writes_nothing(tmp_path, cli):
    proto = tmp_path / "p.yaml"
    proto.write_text("name: ../../escape\nsplit: {scheme: holdout}\nmetrics: [hamming_loss]\n"
                     "datasets: [emotions]\nmethods: [br-lr]\n")
    out = tmp_path / "out" / "r.csv"
    code, _, err = cli(["run", "-p", str(proto), "-o", str(out), "-q"])
    assert code == 2 and "protocol name '../../escape' is not a safe name" in err
    assert not (tmp_path / "out").exists() and sorted(p.name for p in tmp_path.iterdir()) == ["p.yaml"]


# -- YAML -------------------------------------------------------------------------------------------
BOMB = "a: &a [x, x, x, x, x, x, x, x, x]\n" + "".join(
    f"{chr(98 + i)}: &{chr(98 + i)} [*{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, "
    f"*{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}]\n" for i in range(20))


@pytest.mark.parametrize("text,match", [
    (BOMB, "more than 100 aliases"),
    ("name: a\nname: b\n", "duplicate key 'name' on line 2 \\(first on line 1\\)"),
    ("x: " + "[" * 200 + "]" * 200 + "\n", "nested deeper than 50 levels|nested too deeply"),
    ("name: [unclosed\n", "line 2: not valid YAML"),
])
def test_hostile_yaml_is_one_line_error(tmp_path, text, match):
    import time

    from mlbench.protocols import load_protocol

    path = tmp_path / "p.yaml"
    path.write_text(text)
    t0 = time.perf_counter()
    with pytest.raises(ConfigError, match=match) as info:
        load_protocol(str(path))
    assert time.perf_counter() - t0 < 2 and "\n" not in str(info.value)
    assert str(path) in str(info.value)


def test_non_utf8_and_oversized_yaml(tmp_path):
    from mlbench.safety import YAML_MAX_BYTES, load_yaml

    bad = tmp_path / "latin1.yaml"
    bad.write_bytes(b"name: x\nnote: caf\xe9\n")
    with pytest.raises(ConfigError, match="latin1.yaml: line 2: not UTF-8 \\(byte 0xe9\\)"):
        load_yaml(bad, "protocol file")
    big = tmp_path / "big.yaml"
    big.write_bytes(b"#" * (YAML_MAX_BYTES + 1))
    with pytest.raises(ConfigError, match="larger than"):
        load_yaml(big)
    with pytest.raises(ConfigError, match="cannot read"):
        load_yaml(tmp_path / "missing.yaml")
    ok = tmp_path / "ok.yaml"
    ok.write_text("base: &b {x: 1}\nuse: *b\n")
    assert load_yaml(ok) == {"base": {"x": 1}, "use": {"x": 1}}    # a few aliases stay allowed
