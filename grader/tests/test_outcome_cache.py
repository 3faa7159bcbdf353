"""Identical submissions of one batch share their untimed verdicts, and nothing else."""

from __future__ import annotations

import shutil
from pathlib import Path

from grader.core.model import LabTest, Outcome, Status
from grader.core.outcome_cache import OutcomeCache, grading_order, tree_digest
from grader.core.schedule import Scheduler
from grader.core.worker_request import WorkerRequest
from grader.instructor.batch import Submission
from grader.instructor.batch_steps import BatchConfig, BuiltTree, worker_command
from grader.tests.test_schedule import RecordingRunner


def _tree(root: Path) -> Path:
    (root / "lab1_histogram").mkdir(parents=True)
    (root / "lab1_histogram" / "histogram_kernels.cu").write_text("__global__ void k() {}\n")
    (root / "REPORT.md").write_text("answers\n")
    return root


def _test(name: str, kind: str = "correctness", serial: bool = False) -> LabTest:
    return LabTest(name=name, lab="lab1", kind=kind, run_serial=serial)


def test_the_digest_is_the_files_not_the_folder_nor_its_git_history(tmp_path: Path) -> None:
    a = _tree(tmp_path / "ann")
    b = tmp_path / "bob"
    shutil.copytree(a, b)
    (b / ".git").mkdir()
    (b / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    assert tree_digest(a) == tree_digest(b)
    (b / "REPORT.md").write_text("answers.\n")  # any file: a build could read it
    assert tree_digest(a) != tree_digest(b)
    shutil.rmtree(b)
    shutil.copytree(a, b)
    (b / "lab1_histogram" / "extra.cuh").write_text("")
    assert tree_digest(a) != tree_digest(b)
    (b / "lab1_histogram" / "extra.cuh").unlink()
    (b / "lab1_histogram" / "histogram_kernels.cu").rename(b / "lab1_histogram" / "other.cu")
    assert tree_digest(a) != tree_digest(b)  # same bytes under another name


def test_a_verdict_is_shared_only_for_the_same_digest_and_test(tmp_path: Path) -> None:
    mine = OutcomeCache(tmp_path, "d1")
    failed = Outcome(Status.FAILED, "bin 3: expected 5, got 4", "output", 0.25, 1)
    mine.put(_test("c1"), failed)
    assert OutcomeCache(tmp_path, "d1").get(_test("c1")) == failed
    assert OutcomeCache(tmp_path, "d2").get(_test("c1")) is None
    assert OutcomeCache(tmp_path, "d1").get(_test("c2")) is None


def test_timed_tests_setups_sanitizer_runs_and_grader_errors_are_never_shared(
    tmp_path: Path,
) -> None:
    cache = OutcomeCache(tmp_path, "d")
    passed = Outcome(Status.PASSED)
    for test in (
        _test("t", "timing", serial=True),
        _test("r", "reference"),
        _test("s", "sanitize"),
        LabTest(name="d", lab="lab1", kind="data", fixtures_setup=("lab1_data",)),
    ):
        cache.put(test, passed)
        assert cache.get(test) is None
    cache.put(_test("c"), Outcome(Status.ERROR, "could not start"))
    assert cache.get(_test("c")) is None
    assert list(tmp_path.iterdir()) == []


def test_a_half_written_record_is_run_instead(tmp_path: Path) -> None:
    cache = OutcomeCache(tmp_path, "d")
    cache.put(_test("c"), Outcome(Status.PASSED))
    (record,) = tmp_path.iterdir()
    record.write_text('{"status": "pass')
    assert cache.get(_test("c")) is None


def test_an_identical_submission_runs_only_its_timed_tests(tmp_path: Path) -> None:
    tests = [_test("c1"), _test("c2"), _test("t1", "timing", serial=True)]
    wrong = Outcome(Status.FAILED, "element 0 wrong", returncode=1)
    first = RecordingRunner({"c2": [wrong]})
    graded = Scheduler(first, 2, cache=OutcomeCache(tmp_path, "same")).run_all(tests)  # type: ignore[arg-type]
    assert sorted(name for name, _ in first.log) == ["c1", "c2", "t1"]

    twin = RecordingRunner()
    scheduler = Scheduler(twin, 2, cache=OutcomeCache(tmp_path, "same"))  # type: ignore[arg-type]
    again = scheduler.run_all(tests)
    assert [name for name, _ in twin.log] == ["t1"]  # a figure is measured for each student
    assert again == graded
    assert scheduler.reused == ["c1", "c2"]

    other = RecordingRunner()
    Scheduler(other, 2, cache=OutcomeCache(tmp_path, "different")).run_all(tests)  # type: ignore[arg-type]
    assert sorted(name for name, _ in other.log) == ["c1", "c2", "t1"]


def _config(tmp_path: Path, verdicts: Path | None = None) -> BatchConfig:
    return BatchConfig(
        tmp_path, ("lab1",), tmp_path / "out", tmp_path / "b", {}, outcome_cache=verdicts
    )


def test_the_batch_hands_each_worker_the_shared_folder_and_its_digest(tmp_path: Path) -> None:
    sub = Submission("ann", _tree(tmp_path / "ann"), ("lab1",))
    built = BuiltTree(tmp_path / "b" / "ann", ("lab1",))
    digest = tree_digest(sub.path)

    def request(config: BatchConfig) -> WorkerRequest:
        argv = worker_command(config, built, tmp_path / "r", digest)
        return WorkerRequest.read(Path(argv[argv.index("--request") + 1]))

    shared = request(_config(tmp_path, tmp_path / "verdicts"))
    assert (shared.outcome_cache, shared.submission_digest) == (str(tmp_path / "verdicts"), digest)
    alone = request(_config(tmp_path))
    assert (alone.outcome_cache, alone.submission_digest) == (None, None)


def test_copies_are_graded_after_their_original_the_most_copied_first() -> None:
    digests = ["a", "s", None, "r", "s", "r", "s", "b", "r", "r"]
    order = grading_order(digests)
    assert sorted(order) == list(range(len(digests)))
    first, later = order[:5], order[5:]
    assert first == [3, 1, 0, 2, 7]  # r (4 copies), s (3), then a, None, b in their order
    assert later == [4, 5, 6, 8, 9]
