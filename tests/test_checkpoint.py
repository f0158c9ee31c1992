"""Resumable builds: an interrupted build continues after its last finished input."""
import os

import pytest

from corpustool.errors import OptionError
from corpustool.pipeline import Pipeline, PipelineOptions
from corpustool.stage import StreamStage

ARTICLE = ("<html><head><title>{t}</title></head><body><nav><a href='/'>Home</a> <a href='/n'>News</a></nav>"
           "<h1>{t}</h1>" + "<p>{t} is the subject of this paragraph, and it is written in plain English so that "
           "the classifier has enough of the common words to keep it as part of the main text.</p>" * 4 +
           "<footer>Copyright 2024, all rights reserved.</footer></body></html>")
INTERRUPTED = []


class InterruptOnce(StreamStage):
    """Stands for Ctrl-C in the middle of the second input (in the main process: a page that
    crashes a worker is dropped as ``crashed`` and does not interrupt the build)."""

    name = "interrupt"

    def accept(self, doc):
        if "shard2" in (doc.source or "") and not INTERRUPTED:
            INTERRUPTED.append(doc.id)
            raise KeyboardInterrupt
        return True


@pytest.fixture
def shards(tmp_path):
    topics = {"shard1": ["Apples", "Rivers"], "shard2": ["Engines", "Bridges"], "shard3": ["Forests", "Apples"]}
    paths = []
    for shard, titles in topics.items():
        d = tmp_path / shard
        d.mkdir()
        for i, t in enumerate(titles):
            (d / f"page{i}.html").write_text(ARTICLE.format(t=t), encoding="utf-8")
        paths.append(str(d))
    return paths


def _options():
    return PipelineOptions(languages=["en"])


def test_interrupted_build_resumes_after_the_last_finished_input(shards, tmp_path):
    full_rejects, rejects = [], []
    full = Pipeline(shards, str(tmp_path / "full.vert.gz"), _options(),
                    on_drop=lambda d, s: full_rejects.append((d.id, s, d.drop_reason)))
    full_stats = full.run()

    out = tmp_path / "res.vert.gz"
    first = Pipeline(shards, str(out), _options(), on_drop=lambda d, s: rejects.append((d.id, s, d.drop_reason)))
    first.stages.insert(1, InterruptOnce())
    INTERRUPTED.clear()
    with pytest.raises(KeyboardInterrupt):
        first.run_resumable()
    assert INTERRUPTED and not out.exists()
    state = first.load_checkpoint()
    assert state["done"] == 1

    again = Pipeline(shards, str(out), _options(), on_drop=lambda d, s: rejects.append((d.id, s, d.drop_reason)))
    stats = again.run_resumable()
    assert out.read_bytes() == (tmp_path / "full.vert.gz").read_bytes()
    assert not os.path.exists(again.checkpoint_path()) and not os.path.exists(str(out) + ".partial")
    # the exact duplicate in the third input is dropped: the first input's state was restored
    assert ("page1.html" in str(rejects)) and any(r[2] == "exact-duplicate" for r in rejects)
    by_name = {s.name: s for s in stats}
    assert by_name["dedup-exact"].drops == {s.name: s for s in full_stats}["dedup-exact"].drops
    assert by_name["clean"].docs_in == 6


def test_checkpoint_of_other_options_is_refused(shards, tmp_path):
    out = tmp_path / "x.vert"
    first = Pipeline(shards, str(out), _options())
    first.stages.insert(1, InterruptOnce())
    INTERRUPTED.clear()
    with pytest.raises(KeyboardInterrupt):
        first.run_resumable()
    other = Pipeline(shards, str(out), PipelineOptions(languages=["de"]))
    with pytest.raises(OptionError, match="other inputs or options"):
        other.run_resumable()


def _interrupted(shards, out):
    first = Pipeline(shards, str(out), _options())
    first.stages.insert(1, InterruptOnce())
    INTERRUPTED.clear()
    with pytest.raises(KeyboardInterrupt):
        first.run_resumable()
    assert first.load_checkpoint()["done"] == 1


def test_input_changed_after_its_checkpoint_is_refused(shards, tmp_path):
    out = tmp_path / "x.vert"
    _interrupted(shards, out)
    # a finished input replaced: its old documents are in the partial output
    page = os.path.join(shards[0], "page0.html")
    with open(page, "a", encoding="utf-8") as fh:
        fh.write("<p>more</p>")
    with pytest.raises(OptionError, match=f"{shards[0]} changed after .*x.vert.checkpoint was written"):
        Pipeline(shards, str(out), _options()).run_resumable()


def test_input_not_yet_read_may_change(shards, tmp_path):
    out = tmp_path / "x.vert"
    _interrupted(shards, out)
    with open(os.path.join(shards[2], "page0.html"), "a", encoding="utf-8") as fh:
        fh.write("<p>more</p>")
    Pipeline(shards, str(tmp_path / "full.vert"), _options()).run()
    Pipeline(shards, str(out), _options()).run_resumable()
    assert out.read_bytes() == (tmp_path / "full.vert").read_bytes()


def test_resume_with_another_worker_count(shards, tmp_path):
    out = tmp_path / "x.vert"
    _interrupted(shards, out)
    Pipeline(shards, str(tmp_path / "full.vert"), _options()).run()
    # the output is the same for any number of workers: not an option the checkpoint depends on
    Pipeline(shards, str(out), PipelineOptions(languages=["en"], workers=2)).run_resumable()
    assert out.read_bytes() == (tmp_path / "full.vert").read_bytes()


def test_resume_needs_an_output_file(shards):
    with pytest.raises(OptionError):
        Pipeline(shards, "-", _options()).run_resumable()


def test_cli_resume_gives_the_same_corpus_and_rejects(shards, tmp_path):
    import subprocess
    import sys

    outs = []
    for name, extra in (("a", []), ("b", ["--resume"])):
        cmd = [sys.executable, "-m", "corpustool", "build", *shards, "-o", str(tmp_path / f"{name}.vert.gz"),
               "--lang", "en", "--rejects", str(tmp_path / f"{name}.rej"), "-q", *extra]
        r = subprocess.run(cmd, capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        outs.append(((tmp_path / f"{name}.vert.gz").read_bytes(), (tmp_path / f"{name}.rej").read_bytes()))
    # the same corpus and rejects file, byte for byte (stages that batch documents decide at each
    # input's end in a resumable build: the rejects file lists the drops in input order)
    assert outs[0] == outs[1]
    assert b"exact-duplicate" in outs[0][1] and b"near-duplicate" in outs[0][1]


def _interrupted_then_resumed(shards, tmp_path):
    """A resumable build to res.vert with rejects res.rej, interrupted in its second input and
    resumed: the output's path and the resumed run's statistics."""
    from corpustool.cli.common import RejectsWriter

    out, rej = tmp_path / "res.vert", str(tmp_path / "res.rej")
    rejects = RejectsWriter(rej, resumable=True)
    first = Pipeline(shards, str(out), _options(), on_drop=rejects)
    first.stages.insert(1, InterruptOnce())
    INTERRUPTED.clear()
    with pytest.raises(KeyboardInterrupt):
        first.run_resumable(rejects.size)
    rejects.abort()
    state = first.load_checkpoint()
    rejects = RejectsWriter(rej, resume_at=state["rejects_bytes"], resumable=True)
    stats = Pipeline(shards, str(out), _options(), on_drop=rejects).run_resumable(rejects.size)
    rejects.close()
    return out, stats


def test_interrupted_build_writes_the_rejects_file_of_an_uninterrupted_one(shards, tmp_path):
    from corpustool.cli.common import RejectsWriter

    plain = RejectsWriter(str(tmp_path / "plain.rej"))
    Pipeline(shards, str(tmp_path / "plain.vert"), _options(), on_drop=plain).run()
    plain.close()

    out, _ = _interrupted_then_resumed(shards, tmp_path)
    assert out.read_bytes() == (tmp_path / "plain.vert").read_bytes()
    assert (tmp_path / "res.rej").read_bytes() == (tmp_path / "plain.rej").read_bytes()


def _cli_interrupted(shards, tmp_path, monkeypatch, extra):
    """``corpustool build --resume`` stopped (Ctrl-C) in its second input, in this process."""
    import corpustool.pipeline as pipeline_module
    from corpustool.cli import main

    real = pipeline_module.build_stages
    monkeypatch.setattr(pipeline_module, "build_stages", lambda opts: [real(opts)[0], InterruptOnce(), *real(opts)[1:]])
    INTERRUPTED.clear()
    out = str(tmp_path / "res.vert")
    assert main(["build", *shards, "-o", out, "--lang", "en", "-q", "--resume", *extra]) == 130
    monkeypatch.setattr(pipeline_module, "build_stages", real)
    assert os.path.isdir(out + ".checkpoint")
    return out


@pytest.mark.parametrize("before, after", [(False, True), (True, False), (True, "other")])
def test_cli_resume_with_another_rejects_file_is_refused(shards, tmp_path, monkeypatch, capsys, before, after):
    from corpustool.cli import main

    rej = str(tmp_path / "res.rej")
    out = _cli_interrupted(shards, tmp_path, monkeypatch, ["--rejects", rej] if before else [])
    capsys.readouterr()
    again = {True: ["--rejects", rej], False: [], "other": ["--rejects", str(tmp_path / "other.rej")]}[after]
    # the rejects of the finished first input are in res.rej.partial (or nowhere): a resume without
    # that file, or with another one, would write a rejects file that lacks them, without a word
    assert main(["build", *shards, "-o", out, "--lang", "en", "-q", "--resume", *again]) == 2
    err = capsys.readouterr().err
    assert "--rejects" in err and "start afresh" in err and len(err.strip().splitlines()) == 1
    assert os.path.isdir(out + ".checkpoint")
    # with the same arguments the resume goes on, and gives the uninterrupted run's rejects file
    if before:
        assert main(["build", *shards, "-o", out, "--lang", "en", "-q", "--resume", "--rejects", rej]) == 0
        full = str(tmp_path / "full.rej")
        assert main(["build", *shards, "-o", str(tmp_path / "full.vert"), "--lang", "en", "-q",
                     "--rejects", full]) == 0
        assert open(rej, "rb").read() == open(full, "rb").read() and os.path.getsize(full) > 0


def test_cli_resume_with_its_rejects_partial_file_gone_is_refused(shards, tmp_path, monkeypatch, capsys):
    from corpustool.cli import main

    rej = str(tmp_path / "res.rej")
    out = _cli_interrupted(shards, tmp_path, monkeypatch, ["--rejects", rej])
    assert os.path.getsize(rej + ".partial") > 0
    os.remove(rej + ".partial")
    capsys.readouterr()
    assert main(["build", *shards, "-o", out, "--lang", "en", "-q", "--resume", "--rejects", rej]) == 2
    assert "res.rej.partial is missing" in capsys.readouterr().err


def test_cli_resume_on_a_full_disk_names_the_checkpoint_file(shards, tmp_path, monkeypatch, capsys):
    import errno

    import corpustool.checkpoint as checkpoint_module
    from corpustool.cli import main

    real_fsync = os.fsync

    def fsync(fd):      # the disk fills up under the checkpoint (a write there names no file)
        if ".checkpoint" in os.readlink(f"/proc/self/fd/{fd}"):
            raise OSError(errno.ENOSPC, "No space left on device")
        return real_fsync(fd)

    monkeypatch.setattr(checkpoint_module.os, "fsync", fsync)
    out = str(tmp_path / "res.vert")
    assert main(["build", *shards, "-o", out, "--lang", "en", "-q", "--resume"]) == 1
    err = capsys.readouterr().err.strip()
    assert err.startswith("corpustool build: error: ") and "No space left on device" in err
    assert "res.vert.checkpoint" in err and len(err.splitlines()) == 1


def test_cli_resume_stopped_by_ctrl_c_says_how_to_go_on(shards, tmp_path, monkeypatch, capsys):
    """Ctrl-C, like SIGTERM, says that the build goes on with --resume (it said only 'interrupted')."""
    _cli_interrupted(shards, tmp_path, monkeypatch, [])
    err = capsys.readouterr().err.strip()
    assert err == "corpustool build: interrupted; run it again with --resume to continue"


def test_resumed_build_skips_links_to_another_inputs_files_as_a_plain_build(shards, tmp_path):
    """A resumable build reads each input with a reader of its own: a link in one input to a file of
    another input is skipped (each file read once) as one reading of all the inputs skips it, also
    after an interruption, with the same corpus, rejects and statistics."""
    from corpustool.cli.common import RejectsWriter

    os.symlink(os.path.join(shards[0], "page1.html"), os.path.join(shards[2], "link-to-shard1.html"))
    os.symlink("page0.html", os.path.join(shards[2], "link-to-page0.html"))
    plain = RejectsWriter(str(tmp_path / "plain.rej"))
    plain_stats = Pipeline(shards, str(tmp_path / "plain.vert"), _options(), on_drop=plain).run()
    plain.close()
    assert plain_stats[0].extra["skipped:symlinked-file"] == 2 and plain_stats[0].docs_in == 6

    out, stats = _interrupted_then_resumed(shards, tmp_path)
    assert out.read_bytes() == (tmp_path / "plain.vert").read_bytes()
    assert (tmp_path / "res.rej").read_bytes() == (tmp_path / "plain.rej").read_bytes()
    assert [s.to_dict() for s in stats] == [s.to_dict() for s in plain_stats]
