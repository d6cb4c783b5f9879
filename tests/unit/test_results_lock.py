"""Issue 41 item 4: one writer per results file, whatever name the second one uses for it.  The lock
is on the file's identity (device, inode) as well as on its path, and follows the file through its
atomic rewrites (each gives it a new inode)."""
import os

import pytest

from mlbench.errors import ConfigError
from mlbench.experiment.store import ResultsStore

HEADER = "dataset,method,protocol,split,repeat,fold,seed,status,error,macro_f1,params,extra\n"
BUSY = "another mlbench run is writing"


def test_a_hard_link_made_before_the_run_is_refused_after_the_rewrite(tmp_path):
    out, link = tmp_path / "r.csv", tmp_path / "link.csv"
    out.write_text(HEADER + "d,a,p,s0,0,,0,ok,,0.5,,\n")
    os.link(out, link)
    before = os.stat(out).st_ino
    with ResultsStore(out, ["macro_f1"]) as store:          # new columns: an atomic rewrite
        assert os.stat(out).st_ino != before and os.stat(link).st_ino == before
        with pytest.raises(ConfigError, match=BUSY):         # the inode the run started on
            ResultsStore(link, ["macro_f1"])
        store.prepare([])
    ResultsStore(link, ["macro_f1"]).close()                 # released with the run


def test_a_hard_link_to_the_rewritten_file_and_a_new_file_are_refused(tmp_path):
    out, link = tmp_path / "new.csv", tmp_path / "link.csv"
    with ResultsStore(out, ["macro_f1"]):                    # created empty, then given a header
        assert out.exists()
        os.link(out, link)
        with pytest.raises(ConfigError, match=BUSY):
            ResultsStore(link, ["macro_f1"])
        with pytest.raises(ConfigError, match=BUSY):
            ResultsStore(tmp_path / "sub" / ".." / "new.csv", ["macro_f1"])
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link.csv", "new.csv", "new.csv.lock"]


def test_a_refused_run_leaves_nothing_behind(tmp_path):
    out, link = tmp_path / "r.csv", tmp_path / "link.csv"
    with ResultsStore(out, ["macro_f1"]):
        os.link(out, link)
        with pytest.raises(ConfigError, match=BUSY):
            ResultsStore(link, ["macro_f1"])
        assert not (tmp_path / "link.csv.lock").exists()      # the refused run's own lock file


def test_an_old_inode_no_name_refers_to_is_released(tmp_path):
    """After a rewrite the replaced inode is freed, and another file may get its number: that
    file must not be refused as if it were the run's."""
    out = tmp_path / "r.csv"
    out.write_text(HEADER)
    with ResultsStore(out, ["macro_f1", "micro_f1"]) as store:     # a rewrite: a new inode
        assert len(store._inode_locks) == 1
        assert os.path.samestat(os.fstat(store._inode_locks[0][0]), os.stat(out))


def test_another_process_through_a_hard_link_is_refused(tmp_path, lock_holder):
    out, link = tmp_path / "r.csv", tmp_path / "link.csv"
    with lock_holder(out):
        os.link(out, link)
        os.unlink(f"{out}.lock")
        with pytest.raises(ConfigError, match=BUSY):
            ResultsStore(link, ["macro_f1"])
    ResultsStore(link, ["macro_f1"]).close()
