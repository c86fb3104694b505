"""docker-compose.yml refers only to things that exist: Docker cannot run here, so this test
reads the file and checks every service against the repository (build context and
Dockerfile, `dew` subcommands and their options, scripts, bind-mounted files, `DEW_*`
settings names and values, service and volume references, the proxy's upstreams)."""

from __future__ import annotations

import ast
import importlib
import json
import re
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import pytest
import typer
import yaml
from pydantic_settings import BaseSettings
from sqlalchemy.engine import make_url

from backend.cli import app as dew_app
from backend.config import Settings

ROOT = Path(__file__).resolve().parents[1]
COMPOSE = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
SERVICES: dict[str, dict[str, Any]] = COMPOSE["services"]
VARIABLE = re.compile(r"\$\{(?P<name>\w+)(?::?(?P<op>[-?])(?P<arg>[^}]*))?\}")


def _command(service: dict[str, Any]) -> list[str]:
    command = service.get("command") or []
    return shlex.split(command) if isinstance(command, str) else list(command)


def _settings_env_names() -> dict[str, type[BaseSettings]]:
    """Every ``DEW_*`` variable the settings classes read, with the class that reads it."""
    names: dict[str, type[BaseSettings]] = {}
    for name, field in Settings.model_fields.items():
        kind = field.annotation
        if isinstance(kind, type) and issubclass(kind, BaseSettings):
            prefix = kind.model_config.get("env_prefix", "")
            for sub in kind.model_fields:
                names[(prefix + sub).upper()] = kind
        else:
            names[("DEW_" + name).upper()] = Settings
    return names


def _resolve(value: Any) -> str:
    """The value compose would pass, with required variables given a stand-in."""

    def one(m: re.Match[str]) -> str:
        if m.group("op") == "-":
            return m.group("arg")
        if "KEY" in m.group("name"):
            return "0x" + "5" * 64
        if "SECRET" in m.group("name"):  # as `openssl rand -hex 32` gives (docker-compose.yml)
            return "5" * 64
        if m.group("name").endswith("_URI"):
            return "https://stand-in.example/" + m.group("name").lower()
        return "stand-in-" + m.group("name")

    return VARIABLE.sub(one, str(value))


def _environment(service: dict[str, Any]) -> dict[str, str]:
    env = service.get("environment") or {}
    if isinstance(env, list):
        env = dict(item.split("=", 1) for item in env)
    return {k: _resolve(v) for k, v in env.items()}


def _dew_subcommands() -> dict[str, Any]:
    group = typer.main.get_command(dew_app)
    return dict(group.commands)  # type: ignore[attr-defined]


def _check_dew(args: list[str]) -> None:
    commands = _dew_subcommands()
    assert args, "`dew` without a subcommand"
    assert args[0] in commands, f"`dew {args[0]}` is not a command (have {sorted(commands)})"
    options = {opt for p in commands[args[0]].params for opt in (*p.opts, *p.secondary_opts)}
    for arg in args[1:]:
        if arg.startswith("--"):
            assert arg.split("=", 1)[0] in options, f"`dew {args[0]}` has no option {arg}"


def _check_python(args: list[str]) -> None:
    if args[0] == "-c":
        tree = ast.parse(args[1])
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                module = importlib.import_module(node.module or "")
                for alias in node.names:
                    assert hasattr(module, alias.name), f"{node.module} has no {alias.name}"
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    importlib.import_module(alias.name)
        return
    script = ROOT / args[0]
    assert script.is_file(), f"script {args[0]} does not exist"
    options = [a.split("=", 1)[0] for a in args[1:] if a.startswith("--")]
    if options:
        help_text = subprocess.run(
            [sys.executable, str(script), "--help"],
            capture_output=True,
            text=True,
            cwd=ROOT,
            timeout=120,
            check=True,
        ).stdout
        for option in options:
            assert option in help_text, f"{args[0]} has no option {option}"


def _check_binary(path: str) -> None:
    match = re.match(r"contracts/node_modules/(@[^/]+/[^/]+)/", path)
    assert match, f"unknown executable {path!r}"
    package = json.loads((ROOT / "contracts/package.json").read_text())
    assert match.group(1) in package["dependencies"], f"{match.group(1)} is not in package.json"
    dockerfile = (ROOT / "deploy/Dockerfile").read_text()
    assert "npm ci" in dockerfile, "the image never installs contracts/node_modules"


def _check_command(args: list[str]) -> None:
    if not args:
        return
    head, rest = args[0], args[1:]
    if head == "sh" and rest[:1] == ["-c"]:
        for part in re.split(r"\|\||&&|;", rest[1]):
            _check_command(shlex.split(part))
    elif head == "test":
        return
    elif head == "dew":
        _check_dew(rest)
    elif head in ("python", "python3"):
        _check_python(rest)
    else:
        _check_binary(head)


def _app_services() -> list[str]:
    return [name for name, s in SERVICES.items() if "build" in s]


def test_the_stack_has_every_part_the_issue_asks_for():
    images = {name: s.get("image", "") for name, s in SERVICES.items()}
    assert images["postgres"].startswith("postgres:")
    assert images["redis"].startswith("redis:")
    assert images["proxy"].startswith("nginx:")
    runs = {name: _command(s)[:2] for name, s in SERVICES.items()}
    assert sum(1 for c in runs.values() if c == ["dew", "serve"]) == 2, "two API replicas"
    assert ["dew", "worker"] in runs.values() and ["dew", "beat"] in runs.values()
    assert any("anvil" in (c[0] if c else "") for c in runs.values())
    assert any("scripts/deploy.py" in " ".join(_command(s)) for s in SERVICES.values())
    one_shots = [n for n, s in SERVICES.items() if s.get("restart") == "no"]
    assert set(one_shots) >= {"deploy", "migrate"}


@pytest.mark.parametrize("name", sorted(SERVICES))
def test_service_commands_exist(name):
    _check_command(_command(SERVICES[name]))


@pytest.mark.parametrize("name", sorted(_app_services()))
def test_build_context_and_dockerfile_exist(name):
    build = SERVICES[name]["build"]
    context = ROOT / build["context"]
    assert context.is_dir()
    dockerfile = context / build.get("dockerfile", "Dockerfile")
    assert dockerfile.is_file(), f"{dockerfile} does not exist"
    for line in dockerfile.read_text().splitlines():
        if line.startswith("COPY ") and "--from" not in line:
            for source in line.split()[1:-1]:
                assert (context / source).exists(), f"{dockerfile.name} copies missing {source}"


@pytest.mark.parametrize("name", sorted(SERVICES))
def test_mounts_and_references_exist(name):
    service = SERVICES[name]
    declared_volumes = set(COMPOSE.get("volumes") or {})
    for volume in service.get("volumes") or []:
        source = volume.split(":", 1)[0]
        if source.startswith((".", "/")):
            assert (ROOT / source).exists(), f"{name} mounts missing {source}"
        else:
            assert source in declared_volumes, f"{name} uses undeclared volume {source}"
    depends = service.get("depends_on") or {}
    for other in depends:
        assert other in SERVICES, f"{name} depends on unknown service {other}"
        condition = depends[other].get("condition") if isinstance(depends, dict) else None
        if condition == "service_healthy":
            assert "healthcheck" in SERVICES[other], f"{other} has no healthcheck"
        if condition == "service_completed_successfully":
            assert SERVICES[other].get("restart") == "no", f"{other} is not a one-shot job"


@pytest.mark.parametrize("name", sorted(_app_services()))
def test_environment_uses_real_settings(name, monkeypatch):
    env = _environment(SERVICES[name])
    known = _settings_env_names()
    for key in env:
        if key.startswith("DEW_"):
            assert key in known, f"{name}: {key} is not a setting in backend/config.py"
    for key in list(known):
        monkeypatch.delenv(key, raising=False)
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    # The values must pass the settings' own validation, production checks included.
    classes = {cls for cls in known.values() if cls is not Settings}
    built = {cls.__name__: cls() for cls in classes}
    settings = Settings(
        db=built["DatabaseSettings"],
        broker=built["BrokerSettings"],
        chain=built["ChainSettings"],
        auth=built["AuthSettings"],
        server=built["ServerSettings"],
        economy=built["EconomySettings"],
        tables=built["TablesSettings"],
        terms=built["TermsSettings"],
    )
    if "DEW_DB_URL" in env:
        url = make_url(settings.db.url)
        url.get_dialect()  # the driver named in the URL is installed
    for key, value in env.items():
        if key.endswith("_URL") and "://" in value:
            host = urlparse(value.split("+", 1)[-1] if "+" in value[:12] else value).hostname
            assert host in SERVICES or host == "localhost", f"{key} points at unknown {host}"


def test_proxy_upstreams_are_the_api_replicas():
    config = (ROOT / "deploy/nginx.conf").read_text()
    upstreams = re.findall(r"server\s+([\w.-]+):(\d+)", config)
    replicas = {n: _command(s) for n, s in SERVICES.items() if _command(s)[:2] == ["dew", "serve"]}
    assert {host for host, _ in upstreams} == set(replicas)
    for host, port in upstreams:
        args = replicas[host]
        assert args[args.index("--port") + 1] == port
    assert "proxy_set_header Upgrade" in config, "WebSocket play needs the upgrade headers"


def _mount_target(service: dict[str, Any], source: str) -> str:
    for volume in service.get("volumes") or []:
        parts = volume.split(":")
        if parts[0] == source:
            return parts[1]
    raise AssertionError(f"{source} is not mounted")


def test_prometheus_scrapes_the_replicas_and_the_worker_with_the_rules():
    prometheus = SERVICES["prometheus"]
    assert prometheus["image"].startswith("prom/prometheus:")
    config_path = _mount_target(prometheus, "./deploy/prometheus/prometheus.yml")
    assert config_path == "/etc/prometheus/prometheus.yml", "the image's default config path"
    config = yaml.safe_load((ROOT / "deploy/prometheus/prometheus.yml").read_text())
    rules_target = _mount_target(prometheus, "./deploy/prometheus/alerts.yml")
    assert config["rule_files"] == [rules_target]
    targets = {
        job["job_name"]: [t for sc in job["static_configs"] for t in sc["targets"]]
        for job in config["scrape_configs"]
    }
    serving = {
        name: _command(s)[_command(s).index("--port") + 1]
        for name, s in SERVICES.items()
        if _command(s)[:2] == ["dew", "serve"]
    }
    assert sorted(targets["dew-api"]) == sorted(f"{n}:{p}" for n, p in serving.items())
    workers = [n for n, s in SERVICES.items() if _command(s)[:2] == ["dew", "worker"]]
    env = _environment(SERVICES[workers[0]])
    assert targets["dew-worker"] == [f"{workers[0]}:{env['DEW_METRICS_WORKER_PORT']}"]
    assert env["DEW_METRICS_WORKER_HOST"] == "0.0.0.0", "the worker's port must be reachable"
    # The replicas let the compose network read /metrics; the proxy hides it from the world.
    allowed = json.loads(env["DEW_METRICS_ALLOW_FROM"])
    assert "172.16.0.0/12" in allowed
    nginx = (ROOT / "deploy/nginx.conf").read_text()
    assert re.search(r"location = /metrics \{\s*return 404;", nginx)
    assert re.search(r"location = /ready \{\s*return 404;", nginx)


def test_grafana_provisions_the_datasource_and_the_dashboard():
    grafana = SERVICES["grafana"]
    assert grafana["image"].startswith("grafana/grafana:")
    assert _mount_target(grafana, "./deploy/grafana/provisioning") == "/etc/grafana/provisioning"
    dashboards_at = _mount_target(grafana, "./deploy/grafana/dashboards")
    provider = yaml.safe_load((ROOT / "deploy/grafana/provisioning/dashboards/dew.yml").read_text())
    assert provider["providers"][0]["options"]["path"] == dashboards_at
    source = yaml.safe_load(
        (ROOT / "deploy/grafana/provisioning/datasources/prometheus.yml").read_text()
    )["datasources"][0]
    assert urlparse(source["url"]).hostname in SERVICES
    dashboard = json.loads((ROOT / "deploy/grafana/dashboards/dew.json").read_text())
    uids = {t["datasource"]["uid"] for p in dashboard["panels"] for t in p["targets"]}
    assert uids == {source["uid"]}
    assert "grafana" in grafana["depends_on"] or "prometheus" in grafana["depends_on"]
