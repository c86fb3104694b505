"""`dew stack`: the compose topology as local processes starts, serves on every API process,
and stops every child on SIGTERM (nothing of it left running)."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import time
from pathlib import Path

import httpx
import pytest

from backend.devstack.stack import Service, Stack, StackConfig, dew_command

pytestmark = pytest.mark.timeout(180)

REPO = Path(__file__).resolve().parents[1]


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie of an exited child still answers kill(0): read its state.
    stat = Path(f"/proc/{pid}/stat")
    return stat.exists() and stat.read_text().split(")")[-1].split()[0] != "Z"


def test_dew_stack_serves_on_both_api_processes_and_stops_cleanly(tmp_path: Path) -> None:
    workdir = tmp_path / "stack"
    process = subprocess.Popen(
        [*dew_command(), "stack", "--workdir", str(workdir), "--workers", "1"],
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    lines: list[str] = []
    try:
        assert process.stdout is not None
        deadline = time.monotonic() + 150
        while time.monotonic() < deadline:
            line = process.stdout.readline()
            if not line:
                break
            lines.append(line.rstrip())
            if line.startswith("ready"):
                break
        assert lines and lines[-1].startswith("ready"), "\n".join(lines)
        urls = [m.group(1) for line in lines if (m := re.match(r"api (http://\S+)", line))]
        assert len(urls) == 2 and urls[0] != urls[1]
        for url in urls:
            assert httpx.get(f"{url}/health", timeout=5).status_code == 200
            # The stack has terms, as production must: a sign-in may accept them.
            nonce = httpx.post(
                f"{url}/auth/nonce",
                json={"address": "0x" + "11" * 20, "accept_terms": True},
                timeout=5,
            )
            assert nonce.status_code == 200, nonce.text
            assert "version=stack-1" in nonce.text
        children = [
            int(pid)
            for pid in subprocess.run(
                ["pgrep", "-s", str(process.pid)], capture_output=True, text=True
            ).stdout.split()
        ]
        process.send_signal(signal.SIGTERM)
        rest, _ = process.communicate(timeout=60)
        assert process.returncode == 0, rest
        assert rest.strip().endswith("stopped")
        for url in urls:
            with pytest.raises(httpx.HTTPError):
                httpx.get(f"{url}/health", timeout=2)
        assert not [pid for pid in children if pid != process.pid and _alive(pid)]
        assert not (workdir / "postgres" / "pgdata" / "postmaster.pid").exists()
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=10)


def test_a_stack_needs_redis_only_for_what_it_is_not_given(tmp_path: Path) -> None:
    assert StackConfig(workdir=tmp_path).needs_redis
    assert (
        StackConfig(workdir=tmp_path, broker_url="sqla+sqlite:///b", pubsub=False).needs_redis
        is False
    )
    given = StackConfig(workdir=tmp_path, broker_url="redis://h:1/0", pubsub_url="redis://h:1/1")
    assert given.needs_redis is False
    assert StackConfig(workdir=tmp_path, broker_url="sqla+sqlite:///b").needs_redis


def test_restart_under_a_new_name_stops_the_old_process_and_logs_apart(tmp_path: Path) -> None:
    stack = Stack(StackConfig(workdir=tmp_path, out=lambda _text: None))
    old = Service("sleeper", ["sleep", "30"], dict(os.environ), tmp_path / "sleeper.log")
    stack.services["sleeper"] = old
    try:
        new = stack.restart("sleeper", {**old.env, "MARK": "1"}, log_as="sleeper again")
        assert old.exited() is not None and new.exited() is None
        assert stack.services["sleeper"] is new and new.name == "sleeper again"
        assert new.log == tmp_path / "sleeper-again.log" and new.log.exists()
        assert new.env["MARK"] == "1"
    finally:
        stack.stop()
    assert not stack.services and new.exited() is not None
