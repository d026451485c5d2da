"""All-or-nothing installs: after a kill at any step, a full or read-only folder, or two runs at once,
a notebook's outputs are the complete old ones or the complete new ones."""

import errno
import hashlib
import os
import subprocess
import sys
import textwrap
import threading

import pytest

from offline_eval_compendium import install as inst


def digest_tree(root):
    """{relative path: sha256} of every file, hidden ones included."""
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file()}


def make_stage(root, files):
    for rel, text in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    return root


OLD = {"yi/table1.csv": "old 1\n", "yi/fig1.png": "old png\n", "yi/stale.csv": "written by the old version only\n"}
NEW = {"yi/table1.csv": "new 1\n", "yi/fig1.png": "new png\n", "yi/table2.csv": "new 2\n",
       "yi/claims/yi_nb.csv": "claims\n"}
OTHER = {"yi/other.csv": "another notebook's output\n"}


@pytest.fixture
def states(tmp_path):
    """The destination with the old outputs installed (plus another notebook's file), and the two
    complete states it may end in."""
    dest = tmp_path / "figures"
    inst.install(make_stage(tmp_path / "s_old", OLD), dest, "yi_nb")
    make_stage(dest, OTHER)
    old = digest_tree(dest)
    new_stage = make_stage(tmp_path / "s_new", NEW)
    ref = tmp_path / "ref"
    import shutil
    shutil.copytree(dest, ref)
    inst.install(new_stage, ref, "yi_nb")
    return dest, new_stage, old, digest_tree(ref)


def test_install_replaces_removes_stale_and_writes_a_manifest(states):
    dest, stage, old, new = states
    inst.install(stage, dest, "yi_nb")
    assert digest_tree(dest) == new
    assert not (dest / "yi" / "stale.csv").exists(), "a file the notebook no longer writes is removed"
    assert (dest / "yi" / "other.csv").exists(), "another notebook's file is kept"
    lines = (dest / "manifest" / "yi_nb.sha256").read_text().splitlines()
    assert [line.split("  ")[1] for line in lines] == sorted(NEW)
    assert inst.verify(dest) == []


def test_a_notebook_that_writes_nothing_leaves_no_manifest(tmp_path):
    dest = tmp_path / "figures"
    make_stage(dest, OTHER)
    (tmp_path / "empty").mkdir()
    assert inst.install(tmp_path / "empty", dest, "guide_nb") == []
    assert not (dest / "manifest" / "guide_nb.sha256").exists()
    assert inst.verify(dest) == []


def test_verify_finds_a_changed_and_a_missing_file(states):
    dest, stage, _, _ = states
    inst.install(stage, dest, "yi_nb")
    (dest / "yi" / "table1.csv").write_text("edited\n")
    (dest / "yi" / "table2.csv").unlink()
    problems = inst.verify(dest)
    assert any("yi/table1.csv: changed" in p for p in problems)
    assert any("yi/table2.csv: missing" in p for p in problems)


KILL = textwrap.dedent('''
    import sys
    from offline_eval_compendium import install as inst
    inst.install(sys.argv[1], sys.argv[2], "yi_nb")
''')


def test_a_kill_at_any_step_leaves_the_old_or_the_new_outputs(states, tmp_path):
    dest, stage, old, new = states
    import shutil
    backup = tmp_path / "backup"
    shutil.copytree(dest, backup)
    outcomes = set()
    for k in range(1, 40):
        shutil.rmtree(dest)
        shutil.copytree(backup, dest)
        env = {**os.environ, inst.FAULT_ENV: str(k)}
        proc = subprocess.run([sys.executable, "-c", KILL, str(stage), str(dest)], env=env, capture_output=True)
        killed = proc.returncode == -9
        leftovers = [p for p in dest.rglob("*") if p.name.endswith((".tmp", ".journal"))]
        with inst.lock(dest):
            problems = inst.verify(dest)
            # whatever a kill leaves (a journal, temporary files) is reported, never "no problem"
            assert all(any(p.name in line for line in problems) for p in leftovers), (k, leftovers, problems)
            inst.recover(dest)
            assert inst.verify(dest) == [], f"kill at step {k}: verify after recovery"
        got = digest_tree(dest)
        assert got in (old, new), f"kill at step {k}: a mix of old and new outputs"
        assert not [p for p in dest.rglob("*") if p.name.endswith(".tmp") or p.name.endswith(".journal")]
        outcomes.add(("killed" if killed else "finished", "old" if got == old else "new"))
        if not killed:
            break
    # the kills landed both before the commit point (old kept) and after it (new completed)
    assert {("killed", "old"), ("killed", "new"), ("finished", "new")} <= outcomes


@pytest.mark.parametrize("err", [errno.ENOSPC, errno.EROFS])
def test_a_full_or_read_only_folder_keeps_the_old_outputs(states, monkeypatch, err):
    dest, stage, old, _ = states
    import shutil
    real_copy = shutil.copyfile
    calls = {"n": 0}

    def failing_copy(src, dst, *a, **k):
        calls["n"] += 1
        if calls["n"] == 3:
            raise OSError(err, os.strerror(err))
        return real_copy(src, dst, *a, **k)

    monkeypatch.setattr(inst.shutil, "copyfile", failing_copy)
    with pytest.raises(inst.InstallError, match="previous outputs are unchanged"):
        inst.install(stage, dest, "yi_nb")
    assert digest_tree(dest) == old
    assert not [p for p in dest.rglob("*.tmp")]


def test_preflight_names_a_folder_that_takes_no_file(tmp_path, monkeypatch):
    real_open = open

    def ro_open(path, mode="r", *a, **k):
        if "probe" in str(path) and "w" in mode:
            raise OSError(errno.EROFS, "Read-only file system")
        return real_open(path, mode, *a, **k)

    monkeypatch.setattr("builtins.open", ro_open)
    with pytest.raises(inst.InstallError, match=r"output folder .*yi is not writable \(Read-only file system\)"):
        inst.preflight([tmp_path / "yi"])


def test_two_installs_at_once_end_in_one_complete_state(states, tmp_path):
    dest, stage, old, new = states
    other = make_stage(tmp_path / "s_other", {"yi/table1.csv": "third version\n"})
    errors = []

    def go(s):
        try:
            with inst.lock(dest):
                inst.recover(dest)
                inst.install(s, dest, "yi_nb")
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=go, args=(s,)) for s in (stage, other)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    files = {k for k in digest_tree(dest) if k.startswith("yi/") and k != "yi/other.csv"}
    assert files in ({"yi/table1.csv"}, set(NEW)), "exactly one run's complete outputs"
    assert inst.verify(dest) == []
