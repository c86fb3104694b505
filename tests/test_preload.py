"""The preloaded launcher (``backend.devstack.preload``): a forked service sees only its own
command, environment, working directory and log, starts with the libraries loaded and nothing
of ``backend``, and reports its exit status as a subprocess would."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from backend.devstack import preload, stack
from tests.fixtures.harness import wait_for

PROBE = [sys.executable, "-m", "tests.fixtures.preload_probe"]


@pytest.fixture(scope="module")
def launcher(tmp_path_factory: pytest.TempPathFactory) -> Iterator[preload.Launcher]:
    launcher = preload.Launcher(tmp_path_factory.mktemp("launcher"))
    yield launcher
    launcher.stop()


def _probe(launcher: preload.Launcher, tmp_path: Path, code: str, **env: str) -> Any:
    out, log = tmp_path / "seen.json", tmp_path / "probe.log"
    process = launcher.spawn([*PROBE, str(out), code], env, stack.REPO_ROOT, log)
    assert isinstance(process, preload.Forked)
    return process, out, log


def test_a_forked_process_has_its_own_command_environment_and_log(launcher, tmp_path):
    process, out, log = _probe(launcher, tmp_path, "3", PROBE_SETTING="mine", PATH="/usr/bin")
    assert process.wait(timeout=30) == 3
    seen = json.loads(out.read_text())
    assert seen["argv"] == [str(out), "3"]
    assert seen["cwd"] == str(stack.REPO_ROOT)
    assert (seen["env"], seen["others"]) == ("mine", ["PROBE_SETTING"])
    assert seen["preloaded"] is True
    assert seen["backend"] == []  # settings and metrics are set up by the child itself
    assert seen["pid"] == process.pid and seen["session"] == process.pid  # its own group
    assert f"probe wrote {out}" in log.read_text()


def test_kill_and_wait_report_as_a_subprocess_does(launcher, tmp_path):
    process, out, _ = _probe(launcher, tmp_path, "sleep")
    wait_for(out.exists, what="the probe's start")
    assert process.poll() is None
    with pytest.raises(subprocess.TimeoutExpired):
        process.wait(timeout=0.2)
    process.send_signal(signal.SIGKILL)
    assert process.wait(timeout=10) == -signal.SIGKILL
    assert process.returncode == -signal.SIGKILL


def test_a_command_of_another_form_is_left_to_subprocess(launcher, tmp_path):
    log = tmp_path / "other.log"
    for args in (["/bin/true"], [sys.executable, "-c", "pass"], [sys.executable, "-X", "dev"]):
        assert launcher.spawn(args, {}, stack.REPO_ROOT, log) is None


def test_a_service_forks_through_the_launcher_in_use_and_stops_like_a_subprocess(
    launcher, tmp_path
):
    out, in_use = tmp_path / "seen.json", preload.current()  # the session's, if any
    try:
        preload.use(launcher)
        service = stack.Service("probe", [*PROBE, str(out), "sleep"], {}, tmp_path / "s.log")
        preload.use(None)
        plain = stack.Service(
            "plain", [*PROBE, str(tmp_path / "p.json"), "0"], {}, tmp_path / "p.log"
        )
    finally:
        preload.use(in_use)
    assert isinstance(service.process, preload.Forked)
    wait_for(out.exists, what="the probe's start")
    assert service.exited() is None
    stack.stop_service(service, timeout_s=5)
    assert service.exited() == -signal.SIGTERM
    assert isinstance(plain.process, subprocess.Popen)
    assert plain.process.wait(timeout=30) == 0


def test_run_answers_as_subprocess_run_does(launcher, tmp_path):
    out = tmp_path / "seen.json"
    done = launcher.run([*PROBE, str(out), "5"], {"PROBE_SETTING": "x"}, stack.REPO_ROOT, 30)
    assert done is not None
    assert (done.returncode, done.stdout, done.stderr) == (5, f"probe wrote {out}\n", "")
    assert json.loads(out.read_text())["env"] == "x"
    failed = launcher.run(
        [*PROBE, str(tmp_path / "no" / "such.json"), "0"], {}, stack.REPO_ROOT, 30
    )
    assert failed is not None and failed.returncode == 1
    assert "FileNotFoundError" in failed.stderr and failed.stdout == ""
    assert launcher.run(["/bin/true"], {}, stack.REPO_ROOT, 30) is None


def test_the_launcher_benchmark_prints_both_start_times_and_their_ratio():
    done = subprocess.run(
        [sys.executable, "scripts/bench_launcher.py", "--quick", "--json"],
        cwd=stack.REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    figures = json.loads(done.stdout)
    assert figures["runs"] == 3
    plain, forked = figures["plain_start_s_median"], figures["forked_start_s_median"]
    assert plain > 0 and forked > 0
    assert abs(figures["ratio_plain_over_forked"] - plain / forked) <= 0.02  # both rounded
