"""The `latencylab` CLI gates a real comparison run through the service: it submits the
spec, waits while the real agent measures over real sockets, reads the verdict, and its
exit code and reports agree with the server's verdict."""

import json
import threading
from pathlib import Path

import httpx
import pytest
from celery.contrib.testing.worker import start_worker
from django.conf import settings
from latencylab_cli.main import main as latencylab

from apps.accounts.services import api_token_create
from config.celery import app as celery_app
from testing.host_agent import host_agent, reference_of, runner_client

SPEC_YAML = """
name: CLI gate
preset: mid-image-series
workload: {kind: series, periods: [3], repetitions: 8}
blocks: 8
seed: 11
gate: {margin_pct: 5, alpha: 0.01}
"""
EXIT = {"regression": 1, "inconclusive": 0, "improvement": 0, "equivalent": 0}


@pytest.mark.django_db(transaction=True)
def test_cli_run_wait_gates_on_the_real_verdict(live_server, org, pool, target, tmp_path, capsys):
    _, token = api_token_create(organization=org, name="ci", scopes=["ci"])
    client = runner_client(live_server.url, pool, "cli-runner")
    agent = host_agent(client, "cli-runner", target=reference_of(target))
    spec = tmp_path / "spec.yaml"
    spec.write_text(SPEC_YAML)
    report = tmp_path / "verdict.json"
    with start_worker(celery_app, pool="solo", perform_ping_check=False, shutdown_timeout=10):
        thread = threading.Thread(target=agent.run_forever, kwargs={"max_runs": 1}, daemon=True)
        thread.start()
        code = latencylab(["--server", live_server.url, "--token", token, "run", str(spec), "--wait",
                           "--tag", "branch=main", "--fail-on", "regression", "--format", "json",
                           "--output", str(report), "--timeout", "240"])
        agent.drain()
        thread.join(30)
    document = json.loads(report.read_text())
    assert document["schema"] == "latencylab.verdict/1"
    assert document["status"] == "finished"
    outcomes = [v["outcome"] for v in document["verdicts"]]
    assert outcomes
    assert set(outcomes) <= set(EXIT)
    assert code == max(EXIT[o] for o in outcomes) == document["exit_code"], (code, outcomes)
    stdout = capsys.readouterr().out
    assert "verdict:" in stdout
    assert "h2 (series time) vs https-h1" in stdout  # the series gate judges series time

    # The same comparison through `verdict`, as Markdown for a PR comment, and an export.
    comparison_id = document["comparison"]
    code = latencylab(["--server", live_server.url, "--token", token, "verdict", comparison_id,
                       "--format", "markdown", "--fail-on", "never"])
    markdown = capsys.readouterr().out
    assert code == 0
    assert "| arm |" in markdown
    assert "h2" in markdown
    csv_path = tmp_path / "samples.csv"
    assert latencylab(["--server", live_server.url, "--token", token, "export", comparison_id, "--csv",
                       "-o", str(csv_path)]) == 0
    assert csv_path.read_text().splitlines()[0].startswith("arm,device,network_profile")

    # A share link for the PR (shown once, on stdout), opened without credentials.
    assert latencylab(["--server", live_server.url, "--token", token, "share", comparison_id,
                       "--expires-in-days", "400"]) == 4
    assert "between 1 and 365" in capsys.readouterr().err
    assert latencylab(["--server", live_server.url, "--token", token, "share", comparison_id,
                       "--expires-in-days", "7"]) == 0
    captured = capsys.readouterr()
    url = captured.out.strip()
    assert url.startswith(f"{live_server.url}/r/"), url
    assert "only time the link is shown" in captured.err
    public = httpx.get(f"{live_server.url}/api/v1/public/reports/{url.rsplit('/', 1)[1]}")
    assert public.status_code == 200
    assert public.json()["name"] == "CLI gate"

    # The offline report (it inlines the built dashboard's report bundle: make test builds it first).
    if (Path(settings.FRONTEND_DIST) / "standalone" / "report.js").is_file():
        html_path = tmp_path / "report.html"
        assert latencylab(["--server", live_server.url, "--token", token, "report", comparison_id, "--html",
                           "-o", str(html_path)]) == 0
        html = html_path.read_text()
        assert html.lstrip().lower().startswith("<!doctype html")
        assert "CLI gate" in html
        assert "<script src=" not in html
    client.close()
