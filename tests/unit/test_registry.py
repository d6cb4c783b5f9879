import pytest

from mlbench.errors import ConfigError
from mlbench.methods import registry


def test_unknown_method_suggests_closest():
    registry.discover()
    names = [s.name for s in registry.all_methods()]
    assert names
    with pytest.raises(ConfigError, match="did you mean"):
        registry.get(names[0] + "x")


def test_register_twice_with_other_class_is_an_error():
    class A:
        pass

    class B:
        pass

    registry.register("__test-a", A, family="test", paper="platform")
    registry.register("__test-a", A, family="test", paper="platform")  # same: fine
    with pytest.raises(ValueError):
        registry.register("__test-a", B, family="test", paper="platform")
    del registry._REGISTRY["__test-a"]


def test_index_lists_exactly_the_live_builtin_registrations():
    """``index.json`` (what ``mlbench methods`` reads without importing the families) is the
    built-in registrations; when this fails, run ``python -m mlbench.methods --write-index``."""
    registry.discover()
    index = registry._read_index()
    assert index is not None, "mlbench/methods/index.json is missing"
    live = sorted((registry._record(registry._REGISTRY[n]) for n in registry._BUILTIN),
                  key=lambda r: (r["family"], r["name"]))
    assert index["methods"] == live, "stale index: python -m mlbench.methods --write-index"
    assert index["modules"] == registry._family_modules()
    assert {"br-lr", "mlknn", "sf-h-cs", "mc", "imtsl", "td-lr"} <= {r["name"] for r in live}


@pytest.fixture
def plugins(tmp_path, monkeypatch):
    """Install fake ``mlbench.methods`` entry points: ``plugins({name: "module[:attr]"}, files)``
    writes ``files`` (module name -> source) to a directory on sys.path and reloads the plug-ins
    with a registry state that is restored after the test."""
    import importlib.metadata
    import sys

    registry.discover()
    monkeypatch.setattr(registry, "_REGISTRY", dict(registry._REGISTRY))
    monkeypatch.setattr(registry, "_PLUGIN_ERRORS", {})
    monkeypatch.setattr(registry, "_plugins_loaded", False)
    monkeypatch.syspath_prepend(str(tmp_path))
    added = []

    def install(eps, files):
        for module, source in files.items():
            (tmp_path / f"{module}.py").write_text(source)
            added.append(module)
        fake = [importlib.metadata.EntryPoint(name, value, registry.ENTRY_POINT_GROUP)
                for name, value in eps.items()]
        monkeypatch.setattr(importlib.metadata, "entry_points",
                            lambda group=None: [ep for ep in fake if ep.group == group])
        registry._load_plugins()

    yield install
    for module in added:
        sys.modules.pop(module, None)


GOOD = ('from mlbench.methods.registry import register\n'
        'from mlbench.methods.transformation.br import BinaryRelevance\n'
        'register("plug-good", BinaryRelevance, family="plugin", paper="user", params={"base": "lr"})\n')


def test_each_broken_plugin_is_one_warning_and_the_rest_works(plugins, capsys):
    plugins({"good": "plug_good",
             "badpaper": "plug_badpaper",           # registers one method, then an unknown paper
             "missing": "plug_no_such_module",
             "notaclass": "plug_misc:NUMBER",
             "clsarg": "plug_misc:register_int",
             "raises": "plug_raises",
             "taken": "plug_taken"},
            {"plug_good": GOOD,
             "plug_badpaper": GOOD.replace("plug-good", "plug-half") + GOOD.replace(
                 "plug-good", "plug-bad").replace('paper="user"', 'paper="nosuchpaper"'),
             "plug_misc": "NUMBER = 42\ndef register_int(register):\n"
                          "    register('plug-int', 42, family='plugin', paper='user')\n",
             "plug_raises": "raise RuntimeError('broken at import')\n",
             "plug_taken": GOOD.replace("plug-good", "br-lr").replace("BinaryRelevance,", "dict,")})
    err = capsys.readouterr().err.splitlines()
    expected = {"badpaper": "unknown paper key 'nosuchpaper'",
                "missing": "ModuleNotFoundError: No module named 'plug_no_such_module'",
                "notaclass": "it names a int, not a module",
                "clsarg": "42 is not a class",
                "raises": "RuntimeError: broken at import",
                "taken": "registered twice"}
    assert len(err) == len(expected), err
    for name, problem in expected.items():
        line = next(line for line in err if f"plug-in {name!r}" in line)
        assert line.startswith("mlbench: warning:") and problem in line, line
    assert set(registry.plugin_errors()) == set(expected)
    names = {s.name for s in registry.all_methods()}
    assert "plug-good" in names and not names & {"plug-half", "plug-bad", "plug-int"}
    assert registry.get("br-lr").cls.__name__ == "BinaryRelevance"
    registry.make("plug-good")
    with pytest.raises(ConfigError, match="plug-in.s. skipped: .*badpaper"):
        registry.get("plug-half")
    registry.discover()
    registry._load_plugins()                 # loaded once: no second warning
    assert capsys.readouterr().err == ""


def test_a_broken_plugin_does_not_stop_the_cli(plugins, cli):
    plugins({"broken": "plug_raises"}, {"plug_raises": "raise ImportError('needs libfoo')\n"})
    code, out, err = cli(["methods"])
    assert code == 0 and "br-lr" in out and err == ""       # warned once, when it was loaded
    code, out, err = cli(["methods", "mlknn", "--format", "json"])
    assert code == 0 and '"name": "mlknn"' in out


def test_a_plugin_cannot_take_a_builtin_name_before_discovery(monkeypatch):
    """Before the built-in families are imported their names come from the index."""
    monkeypatch.setattr(registry, "_discovered", False)
    monkeypatch.setattr(registry, "_REGISTRY", dict(registry._REGISTRY))
    with pytest.raises(ValueError, match="already a built-in"):
        registry.register("mlknn", dict, family="plugin", paper="user")
