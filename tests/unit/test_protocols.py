import pytest
import yaml

from mlbench.errors import ConfigError
from mlbench.protocols import load_protocol, parse_protocol, protocol_names

SHIPPED = ["hiercost", "imtsl", "mc", "mldf", "quick", "soshf"]


def test_every_shipped_protocol_loads_and_names_known_metrics():
    assert set(SHIPPED) <= set(protocol_names())
    for name in SHIPPED:
        p = load_protocol(name)
        assert p.name == name and p.metrics
        p.check_names(methods=False)  # every metric is a registered measure


def test_protocols_follow_their_papers():
    soshf = load_protocol("soshf")
    assert (soshf.split.scheme, soshf.split.train_fraction, soshf.split.repeats) == ("holdout", 0.5, 8)
    assert soshf.metrics == ("macro_f1", "macro_auc")
    steps = [s if isinstance(s, str) else s["step"] for s in soshf.preprocess]
    assert steps.index("drop_rare_binary_features") < steps.index("standardize")
    assert "drop_imbalanced_labels" in steps and "min_feature_frequency" in steps
    mldf = load_protocol("mldf")
    assert mldf.split.repeats == 10 and len(mldf.metrics) == 6 and "coverage_normalized" in mldf.metrics
    mc = load_protocol("mc")
    assert (mc.split.scheme, mc.split.folds) == ("kfold", 10)
    assert set(mc.metrics) == {"exact_match", "cll_loss", "micro_f1", "macro_f1"}
    imtsl = load_protocol("imtsl")
    assert imtsl.split.repeats == 10 and imtsl.split.validation_fraction == 0.2
    assert {"step": "standardize", "nominal": True} in imtsl.preprocess   # every covariate z-scored
    hc = load_protocol("hiercost")
    assert hc.split.scheme == "given" and hc.split.validation_fraction > 0
    quick = load_protocol("quick")
    assert (quick.split.repeats, quick.split.train_fraction, quick.datasets) == (3, 0.5, ("emotions",))


def _base(**changes):
    data = {"name": "t", "split": {"scheme": "holdout", "repeats": 2}, "metrics": ["macro_f1"]}
    data.update(changes)
    return data


def test_unknown_keys_and_values_are_config_errors():
    with pytest.raises(ConfigError, match="did you mean 'metrics'"):
        parse_protocol(_base(metric=["x"]))
    with pytest.raises(ConfigError, match="unknown split key"):
        parse_protocol(_base(split={"scheme": "holdout", "repeat": 3}))
    with pytest.raises(ConfigError, match="unknown scheme"):
        parse_protocol(_base(split={"scheme": "loo"}))
    with pytest.raises(ConfigError, match="bad split value"):
        parse_protocol(_base(split={"scheme": "holdout", "repeats": "many"}))
    with pytest.raises(ConfigError, match="unknown preprocessing step"):
        parse_protocol(_base(preprocess=["normalise_everything"]))
    with pytest.raises(ConfigError, match="unknown paper"):
        parse_protocol(_base(paper="nobody"))
    with pytest.raises(ConfigError, match="missing key"):
        parse_protocol({"name": "t", "metrics": ["macro_f1"]})
    with pytest.raises(ConfigError, match="listed twice"):
        parse_protocol(_base(methods=["cc", {"name": "cc", "params": {}}]))
    with pytest.raises(ConfigError, match="unknown key"):
        parse_protocol(_base(methods=[{"name": "cc", "param": {}}]))
    with pytest.raises(ConfigError, match="control"):
        parse_protocol(_base(methods=["cc"], control="ecc"))


def test_method_entries_with_params_and_ids():
    p = parse_protocol(_base(methods=["cc", {"name": "ecc", "params": {"n_estimators": 5}, "id": "ecc-5"}]))
    assert [e.label for e in p.methods] == ["cc", "ecc-5"]
    assert p.methods[1].params == {"n_estimators": 5} and p.methods[1].name == "ecc"


def test_load_from_path_and_errors(tmp_path):
    path = tmp_path / "mine.yaml"
    path.write_text(yaml.safe_dump(_base(seed=7)))
    p = load_protocol(str(path))
    assert p.seed == 7 and p.path == str(path)
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: [unclosed\n")
    with pytest.raises(ConfigError, match="not valid YAML"):
        load_protocol(str(bad))
    with pytest.raises(ConfigError, match="does not exist"):
        load_protocol(str(tmp_path / "missing.yaml"))
    with pytest.raises(ConfigError, match="did you mean 'soshf'"):
        load_protocol("soshg")


def test_overrides_and_unknown_metric():
    p = load_protocol("quick").with_overrides(repeats=5, seed=3)
    assert p.split.repeats == 5 and p.seed == 3
    with pytest.raises(ConfigError):
        load_protocol("quick").with_overrides(repeats=0)
    with pytest.raises(ConfigError, match="unknown metric"):
        parse_protocol(_base(metrics=["macro_f2"])).check_names(methods=False)


@pytest.mark.parametrize("text, line, phrase", [
    ("name: p\nsplit: {scheme: holdout}\nmetrics: [macro_f1]\nmetric: []\n", 4, "'metric'"),
    ("name: p\nsplit: {scheme: holdout, repets: 2}\nmetrics: [macro_f1]\n", 2, "'repets'"),
    ("name: p\nsplit: {scheme: holdout}\nmetrics: [macro_f1]\nmethods:\n  - br-lr\n"
     "  - {name: mlknn, prams: {k: 5}}\n", 6, "'prams'"),
])
def test_protocol_errors_name_the_line(tmp_path, text, line, phrase):
    """Issue 19: a user's protocol file gets line-numbered errors."""
    from mlbench.errors import ConfigError
    from mlbench.protocols import load_protocol

    path = tmp_path / "p.yaml"
    path.write_text(text)
    with pytest.raises(ConfigError) as info:
        load_protocol(str(path))
    assert f"{path}:{line}:" in str(info.value) and phrase in str(info.value)


def test_variants_from_entries_and_the_variants_mapping():
    p = parse_protocol(_base(methods=["cc", "pcc", {"name": "cc", "id": "cc-x", "variant_of": "cc"}],
                             variants={"pcc-y": "pcc"}))
    assert p.variants == {"cc-x": "cc", "pcc-y": "pcc"}
    assert p.main_methods == ("cc", "pcc")
    assert p.methods[2].variant_of == "cc" and p.methods[2].params == {}


@pytest.mark.parametrize("extra, phrase", [
    (dict(methods=["cc", {"name": "cc", "id": "cc-x", "variant_of": "ecc"}]), "parent 'ecc'"),
    (dict(methods=["cc", {"name": "cc", "id": "cc-y"}], variants={"cc-x": "cc-y", "cc-y": "cc"}),
     "itself a variant"),
    (dict(methods=["cc", {"name": "cc", "id": "cc-x", "variant_of": "cc"}], variants={"cc-x": "pcc"}),
     "two parents"),
    (dict(methods=["cc"], variants=["cc-x"]), "variants must be a mapping"),
    (dict(methods=["cc", {"name": "cc", "id": "cc-x", "variant_of": ["cc"]}]), "variant_of"),
    (dict(methods=["cc"], variants={"cc": "cc"}), "parent 'cc'"),
])
def test_bad_variants_are_one_line(extra, phrase):
    with pytest.raises(ConfigError, match=phrase):
        parse_protocol(_base(**extra))


def test_shipped_variants_and_the_claims_method_lists_agree():
    """Each variant's parent is a main method; claims.yaml's per-paper ``methods`` (the paper's
    own set) are exactly its protocol's main methods."""
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    assert load_protocol("mc").variants["mc-cap10"] == "mc"
    assert load_protocol("mldf").variants == {"mldf-prevH": "mldf", "rf-pct-leaf2": "rf-pct",
                                              "mldf-leaf2": "mldf"}
    for ablation, name in (("mc-ablation.yaml", "mc"), ("mldf-ablation.yaml", "mldf"),
                           ("mldf-leaf.yaml", "mldf")):
        p = load_protocol(str(root / "results" / "papers" / ablation))
        assert p.name == name and p.variants.items() <= load_protocol(name).variants.items()
    papers = yaml.safe_load((root / "results" / "papers" / "claims.yaml").read_text())["papers"]
    listed = {k: v for k, v in papers.items() if v.get("methods")}
    assert {"mc", "mldf", "imtsl"} <= set(listed)
    for key, spec in listed.items():
        assert list(spec["methods"]) == list(load_protocol(spec.get("protocol", key)).main_methods), key


def test_ties_key():
    assert parse_protocol(_base()).ties == "pessimistic"
    assert parse_protocol(_base(ties="mulan")).ties == "mulan"
    with pytest.raises(ConfigError, match="unknown tie convention 'optimistic'; choose one of"):
        parse_protocol(_base(ties="optimistic"))
    for name in ("mldf", "mldf-flex", "quick"):
        assert load_protocol(name).ties == "pessimistic", name   # see REPRODUCTION.md: ties
