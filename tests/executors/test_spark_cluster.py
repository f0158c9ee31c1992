"""A real Spark cluster: a standalone master and two workers on localhost (from the pyspark
distribution, each worker with its own work directory); the demo crawl in several WARC files and
the de-duplication benchmark in several JSON Lines files are built against spark://127.0.0.1:PORT
and compared with the local run (corpus byte for byte after the merge, statistics). Skipped
without Java or pyspark."""
from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time

import pytest

from corpustool.executors.spark import spark_available

from tests.executors.test_spark import CRAWL, _bench_corpus, _same_rejects, bench_html_line, build_run, split_warc

_REASON = spark_available()
pytestmark = pytest.mark.skipif(_REASON is not None, reason=_REASON or "")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_port(port: int, timeout: float) -> bool:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return True
        except OSError:
            time.sleep(0.5)
    return False


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    import pyspark

    home = os.path.dirname(pyspark.__file__)
    spark_class = os.path.join(home, "bin", "spark-class")
    if not os.path.exists(spark_class):
        pytest.skip("this pyspark has no bin/spark-class")
    base = tmp_path_factory.mktemp("cluster")
    env = dict(os.environ, SPARK_HOME=home, SPARK_LOG_DIR=str(base / "logs"), SPARK_LOCAL_IP="127.0.0.1",
               PYSPARK_PYTHON=sys.executable)
    port = _free_port()
    procs: list[subprocess.Popen] = []

    def start(*args: str, name: str) -> None:
        log = open(base / f"{name}.log", "wb")
        procs.append(subprocess.Popen([spark_class, *args], env=env, stdout=log, stderr=subprocess.STDOUT,
                                      start_new_session=True))

    try:
        start("org.apache.spark.deploy.master.Master", "--host", "127.0.0.1", "--port", str(port),
              "--webui-port", str(_free_port()), name="master")
        if not _wait_port(port, 60):
            pytest.skip("the Spark master did not start: " + (base / "master.log").read_text()[-500:])
        for i in range(2):
            work = base / f"worker-{i}"
            work.mkdir()
            start("org.apache.spark.deploy.worker.Worker", "--host", "127.0.0.1", "--cores", "1",
                  "--memory", "1g", "--work-dir", str(work), "--webui-port", str(_free_port()),
                  f"spark://127.0.0.1:{port}", name=f"worker-{i}")
        time.sleep(5)       # the workers register with the master
        yield f"spark://127.0.0.1:{port}"
    finally:
        from pyspark import SparkContext
        if SparkContext._active_spark_context is not None:
            SparkContext._active_spark_context.stop()
        for p in reversed(procs):           # our processes only, by their id
            if p.poll() is None:
                p.terminate()
        for p in procs:
            try:
                p.wait(timeout=20)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()


@pytest.fixture(scope="module")
def executor(cluster):
    from pyspark import SparkContext

    from corpustool.executors.spark import SparkExecutor

    if SparkContext._active_spark_context is not None:     # a local context of another module
        SparkContext._active_spark_context.stop()
    ex = SparkExecutor(master=cluster, conf={"spark.executor.memory": "768m", "spark.cores.max": "2"})
    sc, _created = ex._context()
    assert sc.master == cluster
    yield ex
    sc.stop()


def test_demo_on_standalone_cluster(executor, tmp_path):
    paths = split_warc(CRAWL, tmp_path / "crawl", 3)
    inputs = [str(p) for p in paths]
    local_stats, local_rejects, _ = build_run(inputs, tmp_path / "local.vert.gz")
    spark_stats, spark_rejects, _ = build_run(inputs, tmp_path / "spark.vert.gz", executor, engine="spark")
    assert (tmp_path / "spark.vert.gz").read_bytes() == (tmp_path / "local.vert.gz").read_bytes()
    assert spark_stats == local_stats
    _same_rejects(local_rejects.splitlines(), spark_rejects.splitlines())
    assert executor.last_build["partitions"] == 3 and executor.last_build["in_executors"]


def test_dedup_bench_on_standalone_cluster(executor, tmp_path):
    lines = _bench_corpus(tmp_path / "bench", 150)
    inputs = []
    for i in range(3):
        path = tmp_path / f"bench-{i}.jsonl"
        path.write_text("".join(bench_html_line(l) for l in lines[i::3]), encoding="utf-8")
        inputs.append(str(path))
    options = {"langfilter": False, "languages": ["auto"]}
    local_stats, local_rejects, _ = build_run(inputs, tmp_path / "local.vert", **options)
    spark_stats, spark_rejects, _ = build_run(inputs, tmp_path / "spark.vert", executor, engine="spark", **options)
    assert (tmp_path / "spark.vert").read_bytes() == (tmp_path / "local.vert").read_bytes()
    assert spark_stats == local_stats
    _same_rejects(local_rejects.splitlines(), spark_rejects.splitlines())


def test_demo_in_byte_ranges_on_standalone_cluster(executor, tmp_path):
    """One WARC file read in byte ranges by the workers: the local run's corpus, statistics, rejects."""
    local_stats, local_rejects, _ = build_run([str(CRAWL)], tmp_path / "local.vert.gz")
    executor.split_bytes = 25000
    try:
        spark_stats, spark_rejects, _ = build_run([str(CRAWL)], tmp_path / "spark.vert.gz", executor, engine="spark")
    finally:
        executor.split_bytes = None
    assert (tmp_path / "spark.vert.gz").read_bytes() == (tmp_path / "local.vert.gz").read_bytes()
    assert spark_stats == local_stats
    _same_rejects(local_rejects.splitlines(), spark_rejects.splitlines())
    assert executor.last_build["partitions"] == 4
