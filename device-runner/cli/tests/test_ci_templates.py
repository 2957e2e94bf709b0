"""The GitHub Action (infra/ci/github/action.yml) and the GitLab template
(infra/ci/gitlab/latencylab.gitlab-ci.yml), executed step by step as their runners would:
against the real LatencyLab service (infra/bin/stack.py: gunicorn, Celery, PostgreSQL,
Redis, the reference target and a host runner measuring over real sockets) and fake GitHub
and GitLab APIs on 127.0.0.1 (tests/forge_fakes.py; test_ci_comment.py holds them to the
public contracts).

The steps' shell commands run unchanged in `bash --noprofile --norc -eo pipefail` (GitHub's
bash) or the job's script lines in one `bash -eo pipefail` (GitLab's), with the runner's
environment variables pointing at temp files. `${{ … }}` expressions are replaced by a tiny
substituter that knows only the subset the action uses; any other expression fails the
test. The only step not run as written is `uses: actions/setup-python`, stood in for by a
fresh virtualenv that can see the project's installed dependencies (no network here), so
the action's own `pip install` of the CLI from the checkout really runs.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import yaml
from forge_fakes import FakeGitHub, FakeGitLab

REPO_ROOT = Path(__file__).resolve().parents[3]
ACTION = REPO_ROOT / "infra" / "ci" / "github" / "action.yml"
GITLAB_TEMPLATE = REPO_ROOT / "infra" / "ci" / "gitlab" / "latencylab.gitlab-ci.yml"
STACK = REPO_ROOT / "infra" / "bin" / "stack.py"
# Small: a few seconds of the host runner per comparison (each block also measures its baseline:
# ten pings 0.2 s apart). Six comparisons run here; what the templates do with a verdict does not
# depend on its size.
SPEC = """\
name: CI template gate
preset: mid-image-series
workload: {kind: series, periods: [3], repetitions: 2}
blocks: 2
seed: 11
"""
GH_REPO, PR = "acme/shop", 7
PROJECT_ID, MR = 42, 3
EXPRESSION = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")


# --- the real service ----------------------------------------------------------------------


@dataclass
class Service:
    web: str
    token: str


@pytest.fixture(scope="module")
def service() -> Iterator[Service]:
    # Not pytest's tmp_path: a pytest session starting beside this one (make test runs several)
    # resets its parent to mode 0700, and PostgreSQL runs as its own user, which must reach its
    # data directory.
    parent = REPO_ROOT / "var"
    parent.mkdir(parents=True, exist_ok=True)
    base = Path(tempfile.mkdtemp(prefix="ci-templates-stack-", dir=parent))
    python = str(REPO_ROOT / ".venv" / "bin" / "python")
    if not os.path.exists(python):
        python = sys.executable
    up = [python, str(STACK), "up", "--dir", str(base), "--ports", "auto", "--no-demo"]
    try:
        result = subprocess.run(up, capture_output=True, text=True, timeout=300, check=False)
        if result.returncode != 0:  # `up` is idempotent: once more for a step that lost a race at start-up
            result = subprocess.run(up, capture_output=True, text=True, timeout=300, check=False)
        assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
        state = json.loads((base / "stack.json").read_text())
        yield Service(state["web"], state["api_token"])
    finally:
        subprocess.run([python, str(STACK), "down", "--dir", str(base)], capture_output=True, timeout=120,
                       check=False)
        shutil.rmtree(base, ignore_errors=True)


# --- a checkout of the repository and a Python as setup-python leaves it -----------------


@pytest.fixture(scope="module")
def checkout(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """What a runner downloads for `uses: OWNER/latencylab/infra/ci/github@REF`: the repository at
    that ref (here the parts the action reads), so the action's ../../../device-runner/cli and
    ../../../device-runner/contract (the package the CLI depends on) resolve."""
    root = tmp_path_factory.mktemp("checkout") / "latencylab"
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info", "build")
    shutil.copytree(REPO_ROOT / "infra" / "ci", root / "infra" / "ci", ignore=ignore)
    for folder, package in (("cli", "latencylab_cli"), ("contract", "latencylab_contract")):
        (root / "device-runner" / folder).mkdir(parents=True)
        shutil.copy2(REPO_ROOT / "device-runner" / folder / "pyproject.toml", root / "device-runner" / folder)
        shutil.copytree(REPO_ROOT / "device-runner" / folder / package, root / "device-runner" / folder / package,
                        ignore=ignore)
    return root


def fresh_python(where: Path) -> Path:
    """A virtualenv without latencylab_cli and latencylab_contract in which the project's
    dependencies are importable (a .pth line: the project's site-packages directory, whose own
    .pth files, including the editable installs', are not processed). Returns its bin directory.
    Its `python -m pip` is the project's pip through that line (installing into this virtualenv,
    whose prefix it reads): ensurepip would take five seconds of CPU per test to install a copy of it."""
    base = Path(getattr(sys, "_base_executable", sys.executable))
    subprocess.run([str(base), "-m", "venv", "--without-pip", str(where)], check=True, capture_output=True,
                   timeout=120)
    purelib = Path(sysconfig.get_paths()["purelib"])
    site = next((where / "lib").glob("python3*/site-packages"))
    (site / "zz-project-dependencies.pth").write_text(f"{purelib}\n")
    bin_dir = where / "bin"
    for package in ("latencylab_cli", "latencylab_contract"):
        probe = subprocess.run([str(bin_dir / "python"), "-c", f"import {package}"], capture_output=True,
                               timeout=60, check=False, cwd=where, env=runner_env(bin_dir))
        assert probe.returncode != 0, f"the fresh Python must not have {package} before the action installs it"
    pip = subprocess.run([str(bin_dir / "python"), "-c", "import pip, sys; print(sys.prefix)"], capture_output=True,
                         text=True, timeout=60, check=True, cwd=where, env=runner_env(bin_dir))
    assert Path(pip.stdout.strip()).resolve() == where.resolve(), "pip installs into the fresh Python's prefix"
    return bin_dir


def runner_env(bin_dir: Path, **extra: str) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items()
           if not key.startswith(("GITHUB_", "GITLAB_", "CI_", "LATENCYLAB_", "RUNNER_", "VIRTUAL_ENV", "PIP_"))}
    env.update({"PATH": f"{bin_dir}:{env.get('PATH', '/usr/bin:/bin')}", "CI": "true",
                # Offline: pip finds the dependencies already importable and builds with the setuptools it sees.
                "PIP_NO_INDEX": "1", "PIP_NO_BUILD_ISOLATION": "0"})
    env.pop("PYTHONPATH", None)
    env.update(extra)
    return env


def editable_install_stamp() -> list[tuple[str, float]]:
    purelib = Path(sysconfig.get_paths()["purelib"])
    return sorted((p.name, p.stat().st_mtime) for pattern in ("*latencylab_cli*", "*latencylab_contract*")
                  for p in purelib.glob(pattern))


# --- GitHub: expressions and composite steps -----------------------------------------------


def lookup(path: str, context: dict[str, Any]) -> str:
    node: Any = context
    parts = path.split(".")
    if parts[0] not in ("inputs", "github", "steps"):
        raise AssertionError(f"expression context {parts[0]!r} is not substituted by this test: {path}")
    for part in parts:
        if not isinstance(node, dict):
            raise AssertionError(f"expression {path!r} goes through a non-object")
        if part not in node:
            if parts[0] == "github" and len(parts) > 2 and parts[1] == "event":
                return ""  # a missing event property is null, '' in a string (a push has no pull_request)
            raise AssertionError(f"expression {path!r}: {part!r} is not defined")
        node = node[part]
    if node is None:
        return ""
    return node if isinstance(node, str) else json.dumps(node)


def substitute(text: Any, context: dict[str, Any]) -> str:
    if not isinstance(text, str):
        return "" if text is None else str(text).lower() if isinstance(text, bool) else str(text)

    def replace(match: re.Match[str]) -> str:
        expression = match.group(1)
        if not re.fullmatch(r"[A-Za-z_][\w-]*(\.[A-Za-z_][\w-]*)*", expression):
            raise AssertionError(f"expression {expression!r} is not in the subset this test substitutes")
        return lookup(expression, context)

    return EXPRESSION.sub(replace, text)


def read_outputs(path: Path) -> dict[str, str]:
    """GITHUB_OUTPUT: `name=value` lines and `name<<DELIMITER` blocks."""
    outputs: dict[str, str] = {}
    lines = path.read_text().splitlines() if path.exists() else []
    index = 0
    while index < len(lines):
        line = lines[index]
        if "<<" in line and ("=" not in line or line.index("<<") < line.index("=")):
            name, delimiter = line.split("<<", 1)
            end = lines.index(delimiter, index + 1)
            outputs[name] = "\n".join(lines[index + 1:end])
            index = end + 1
            continue
        name, _, value = line.partition("=")
        outputs[name] = value
        index += 1
    return outputs


@dataclass
class ActionRun:
    steps: list[dict[str, Any]] = field(default_factory=list)  # name, exit code, stdout+stderr
    outputs: dict[str, str] = field(default_factory=dict)
    exit_code: int = 0
    summary: str = ""


def run_action(action_dir: Path, inputs: dict[str, str], *, workspace: Path, bin_dir: Path, event: dict[str, Any],
               env: dict[str, str]) -> ActionRun:
    action = yaml.safe_load((action_dir / "action.yml").read_text())
    assert action["runs"]["using"] == "composite"
    declared = action["inputs"]
    unknown = set(inputs) - set(declared)
    assert not unknown, f"inputs the action does not declare: {unknown}"
    temp = Path(env["RUNNER_TEMP"])
    event_path = temp / "event.json"
    event_path.write_text(json.dumps(event))
    summary = temp / f"step_summary_{len(list(temp.iterdir()))}"
    summary.write_text("")
    github = {"action_path": str(action_dir), "token": env["GITHUB_TOKEN_FOR_TEST"], "event": event,
              "event_name": env["GITHUB_EVENT_NAME"], "repository": env["GITHUB_REPOSITORY"],
              "sha": env["GITHUB_SHA"], "ref_name": env["GITHUB_REF_NAME"], "head_ref": env.get("GITHUB_HEAD_REF", "")}
    context: dict[str, Any] = {"github": github, "steps": {}, "inputs": {}}
    for name, spec in declared.items():
        if name in inputs:
            context["inputs"][name] = inputs[name]
        else:
            assert not spec.get("required"), f"required input {name} missing"
            context["inputs"][name] = substitute(spec.get("default", ""), context)
    run = ActionRun()
    failed = False
    for index, step in enumerate(action["runs"]["steps"]):
        assert set(step) <= {"name", "id", "uses", "with", "shell", "run", "env"}, f"unsupported keys in {step}"
        if failed:  # no step has `if:`, so a failure skips the rest, as on GitHub
            run.steps.append({"name": step.get("name"), "skipped": True})
            continue
        if "uses" in step:
            assert step["uses"].startswith("actions/setup-python@"), f"no stand-in for {step['uses']}"
            version = substitute(step["with"]["python-version"], context)
            assert version == inputs.get("python-version", declared["python-version"]["default"])
            # The stand-in puts a Python first on PATH, as setup-python does.
            run.steps.append({"name": step.get("name"), "code": 0, "log": f"python {version} (stand-in)"})
            continue
        assert step.get("shell") == "bash", "composite run steps need shell: bash"
        output_file = temp / f"output_{index}"
        output_file.write_text("")
        script = temp / f"step_{index}.sh"
        script.write_text(step["run"])
        step_env = {**env, "GITHUB_ACTION_PATH": str(action_dir), "GITHUB_OUTPUT": str(output_file),
                    "GITHUB_STEP_SUMMARY": str(summary), "GITHUB_EVENT_PATH": str(event_path),
                    "PATH": f"{bin_dir}:{env['PATH']}"}
        step_env.pop("GITHUB_TOKEN_FOR_TEST", None)
        step_env.update({key: substitute(value, context) for key, value in (step.get("env") or {}).items()})
        result = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)], cwd=workspace,
                                env=step_env, capture_output=True, text=True, timeout=600, check=False)
        run.steps.append({"name": step.get("name"), "code": result.returncode, "log": result.stdout + result.stderr})
        if step.get("id"):
            context["steps"][step["id"]] = {"outputs": read_outputs(output_file)}
        if result.returncode != 0:
            failed = True
            run.exit_code = result.returncode
    run.outputs = {name: substitute(spec["value"], context) for name, spec in action.get("outputs", {}).items()}
    run.summary = summary.read_text()
    return run


def logs(run: ActionRun) -> str:
    return "\n".join(f"--- {s.get('name')} (exit {s.get('code')})\n{s.get('log', '')}" for s in run.steps)


def verdict_exit_code(service: Service, bin_dir: Path, comparison: str, fail_on: str, *args: str) -> int:
    """The CLI's own reading of the stored verdict, for the gate's expected exit code."""
    result = subprocess.run([str(bin_dir / "latencylab"), "--server", service.web, "--token", service.token, "verdict",
                             comparison, "--fail-on", fail_on, "--format", "json", *args],
                            capture_output=True, text=True, timeout=120, check=False)
    document = json.loads(result.stdout)
    assert document["exit_code"] == result.returncode
    return result.returncode


def test_github_action_gates_writes_the_summary_and_keeps_one_pr_comment(
        service: Service, checkout: Path, tmp_path: Path) -> None:
    before = editable_install_stamp()
    bin_dir = fresh_python(tmp_path / "python")
    github = FakeGitHub(tokens={"ghs_actions_token": "write"})
    github.add_pull_request(GH_REPO, PR)
    for index in range(105):  # our comment will sit on the second page
        github.add_comment(GH_REPO, PR, f"review remark {index}")
    workspace = tmp_path / "workspace"
    (workspace / ".latencylab").mkdir(parents=True)
    (workspace / ".latencylab" / "gate.yaml").write_text(SPEC)
    event = {"action": "synchronize", "number": PR, "pull_request": {"number": PR, "head": {"ref": "feature/h3"},
                                                                     "base": {"ref": "main"}}}
    inputs = {"server": service.web, "token": service.token, "spec": ".latencylab/gate.yaml"}
    comment_ids = []
    try:
        for attempt, fail_on in enumerate(("regression", "inconclusive")):
            runner_temp = tmp_path / f"runner-temp-{attempt}"
            runner_temp.mkdir()
            env = runner_env(
                bin_dir, RUNNER_TEMP=str(runner_temp), GITHUB_WORKSPACE=str(workspace), GITHUB_ACTIONS="true",
                GITHUB_REPOSITORY=GH_REPO, GITHUB_SHA=f"{attempt}" * 40, GITHUB_REF_NAME=f"{PR}/merge",
                GITHUB_HEAD_REF="feature/h3", GITHUB_BASE_REF="main", GITHUB_EVENT_NAME="pull_request",
                GITHUB_API_URL=github.url, GITHUB_TOKEN_FOR_TEST="ghs_actions_token")
            run = run_action(checkout / "infra" / "ci" / "github", {**inputs, "fail-on": fail_on,
                                                                    "tags": f"team=checkout\n  run={attempt}  "},
                             workspace=workspace, bin_dir=bin_dir, event=event, env=env)
            comparison = run.outputs["comparison"]
            assert re.fullmatch(r"[0-9a-f-]{36}", comparison), logs(run)
            expected = verdict_exit_code(service, bin_dir, comparison, fail_on)
            # The action ends with the gate's code; the steps before it all ran and succeeded.
            assert run.exit_code == expected == int(run.outputs["exit-code"]), logs(run)
            assert [s["code"] for s in run.steps[:-1]] == [0] * (len(run.steps) - 1), logs(run)
            assert "latencylab 0.1.0" in run.steps[1]["log"]  # installed by the action's own pip step
            assert "running" in run.steps[2]["log"]
            assert "\r" not in run.steps[2]["log"]  # CI=true: plain progress lines in the log
            # The job summary holds the Markdown verdict of this comparison.
            assert run.summary.startswith("<!-- latencylab-verdict -->\n## LatencyLab: "), run.summary
            assert f"/comparisons/{comparison}" in run.summary
            assert "| arm | device / network |" in run.summary
            # The comparison carries the workflow's tags.
            detail = json.loads(subprocess.run(
                [str(bin_dir / "latencylab"), "--server", service.web, "--token", service.token, "status", comparison,
                 "--json"], capture_output=True, text=True, timeout=60, check=True).stdout)
            assert detail["tags"] == {"branch": "feature/h3", "commit": f"{attempt}" * 40, "team": "checkout",
                                      "run": str(attempt)}
            ours = [c for c in github.comments(GH_REPO, PR)
                    if c["body"].startswith("<!-- latencylab:.latencylab/gate.yaml -->\n")]
            assert len(ours) == 1, logs(run)
            assert ours[0]["body"].endswith(Path(run.outputs["report"]).read_text())
            assert f"/comparisons/{comparison}" in ours[0]["body"]
            comment_ids.append(ours[0]["id"])
        # The second run edited the first run's comment: one comment, never a second.
        assert comment_ids[0] == comment_ids[1]
        assert len(github.comments(GH_REPO, PR)) == 106
        writes = [(r.method, r.headers["authorization"]) for r in github.writes()]
        assert writes == [("POST", "Bearer ghs_actions_token"), ("PATCH", "Bearer ghs_actions_token")]
    finally:
        github.close()
    assert editable_install_stamp() == before  # the action installed into its own Python only


def test_github_action_on_a_push_writes_the_summary_and_no_comment(
        service: Service, checkout: Path, tmp_path: Path) -> None:
    bin_dir = fresh_python(tmp_path / "python")
    github = FakeGitHub(tokens={"ghs_actions_token": "write"})
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    (workspace / "gate.json").write_text(json.dumps(yaml.safe_load(SPEC)))
    runner_temp = tmp_path / "runner-temp"
    runner_temp.mkdir()
    env = runner_env(bin_dir, RUNNER_TEMP=str(runner_temp), GITHUB_WORKSPACE=str(workspace), GITHUB_REPOSITORY=GH_REPO,
                     GITHUB_SHA="f" * 40, GITHUB_REF_NAME="main", GITHUB_EVENT_NAME="push", GITHUB_API_URL=github.url,
                     GITHUB_TOKEN_FOR_TEST="ghs_actions_token")
    try:
        # A baseline that does not exist yet: the verdict step fails as a usage error (4), and says so.
        run = run_action(checkout / "infra" / "ci" / "github",
                         {"server": service.web, "token": service.token, "spec": "gate.json",
                          "baseline": "branch:no-such-branch", "fail-on": "never"},
                         workspace=workspace, bin_dir=bin_dir, event={"ref": "refs/heads/main"}, env=env)
    finally:
        github.close()
    assert run.exit_code == 4, logs(run)
    assert "not a pull request" in run.steps[4]["log"]
    assert github.requests == []
    assert "## LatencyLab: error" in run.summary
    assert "no-such-branch" in run.summary or "not found" in run.summary.lower(), run.summary


# --- GitLab: the hidden job's script -------------------------------------------------------


def gitlab_job(template: dict[str, Any], job: dict[str, Any]) -> dict[str, Any]:
    """`extends: .latencylab` as GitLab merges it: hashes deep-merged, everything else replaced."""
    def merge(base: Any, override: Any) -> Any:
        if isinstance(base, dict) and isinstance(override, dict):
            return {**base, **{k: merge(base.get(k), v) for k, v in override.items()}}
        return override

    assert job["extends"] == ".latencylab"
    return merge(template[".latencylab"], {k: v for k, v in job.items() if k != "extends"})


def run_gitlab_job(job: dict[str, Any], *, project_dir: Path, bin_dir: Path, env: dict[str, str]) -> tuple[int, str]:
    """before_script and script in one shell, as the runner's bash executor does (set -eo pipefail)."""
    variables = {key: str(value) for key, value in (job.get("variables") or {}).items()}
    for value in variables.values():
        assert "$" not in value, "this test does not expand variables inside variables"
    lines = [*job.get("before_script", []), *job["script"]]
    script = project_dir.parent / "job.sh"
    script.write_text("\n".join(lines) + "\n")
    result = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)], cwd=project_dir,
                            env={**env, **variables, "PATH": f"{bin_dir}:{env['PATH']}"}, capture_output=True,
                            text=True, timeout=600, check=False)
    return result.returncode, result.stdout + result.stderr


def test_gitlab_template_gates_leaves_junit_and_markdown_and_keeps_one_mr_note(
        service: Service, checkout: Path, tmp_path: Path) -> None:
    template = yaml.safe_load((checkout / "infra" / "ci" / "gitlab" / "latencylab.gitlab-ci.yml").read_text())
    bin_dir = fresh_python(tmp_path / "python")
    gitlab = FakeGitLab(tokens={"glpat-project-bot"})
    gitlab.add_merge_request(PROJECT_ID, "acme/shop", MR)
    for index in range(30):
        gitlab.add_note(PROJECT_ID, MR, f"added {index} commits", system=True)
    project = tmp_path / "project"
    (project / ".latencylab").mkdir(parents=True)
    (project / ".latencylab" / "gate.yaml").write_text(SPEC)
    # The user's .gitlab-ci.yml, as docs/ci.md shows it: the CLI and the contract it needs, in one pip call.
    cli = " ".join(str(checkout / "device-runner" / folder) for folder in ("contract", "cli"))
    job = gitlab_job(template, {"extends": ".latencylab", "variables": {
        "LATENCYLAB_SERVER": service.web, "LATENCYLAB_CLI": cli,
        "LATENCYLAB_FAIL_ON": "inconclusive", "LATENCYLAB_TAGS": "team=checkout"}})
    assert job["artifacts"]["reports"]["junit"] == "latencylab-junit.xml"
    assert set(job["artifacts"]["paths"]) == {"latencylab.md", "latencylab-junit.xml"}
    assert job["artifacts"]["when"] == "always"
    note_ids = []
    pipelines = [
        # A push to main: tagged branch=main, no merge request, no note.
        {"CI_COMMIT_REF_NAME": "main", "CI_PIPELINE_SOURCE": "push"},
        # Two pipelines of one merge request: the baseline is then branch:main, and the note is kept.
        *[{"CI_COMMIT_REF_NAME": "feature/h3", "CI_PIPELINE_SOURCE": "merge_request_event",
           "CI_MERGE_REQUEST_IID": str(MR), "CI_MERGE_REQUEST_SOURCE_BRANCH_NAME": "feature/h3",
           "CI_MERGE_REQUEST_TARGET_BRANCH_NAME": "main"}] * 2,
    ]
    try:
        for attempt, predefined in enumerate(pipelines):
            for stale in ("latencylab.md", "latencylab-junit.xml"):
                (project / stale).unlink(missing_ok=True)
            env = runner_env(bin_dir, LATENCYLAB_TOKEN=service.token, GITLAB_TOKEN="glpat-project-bot",
                             GITLAB_CI="true", CI_API_V4_URL=gitlab.api, CI_PROJECT_ID=str(PROJECT_ID),
                             CI_PROJECT_DIR=str(project), CI_COMMIT_SHA=f"{attempt}" * 40, **predefined)
            code, log = run_gitlab_job(job, project_dir=project, bin_dir=bin_dir, env=env)
            junit = ET.parse(project / "latencylab-junit.xml").getroot()
            properties = {p.get("name"): p.get("value") for p in junit.iter("property")}
            comparison = properties["comparison"]
            baseline = ["--baseline", "branch:main"] if "CI_MERGE_REQUEST_IID" in predefined else []
            assert code == verdict_exit_code(service, bin_dir, comparison, "inconclusive", *baseline) == \
                int(properties["exit_code"]), log
            assert f"LatencyLab exit code: {code}" in log
            assert junit.get("tests") == str(len(junit.findall("testcase")))
            markdown = (project / "latencylab.md").read_text()
            assert markdown.startswith("<!-- latencylab-verdict -->\n## LatencyLab: ")
            assert f"/comparisons/{comparison}" in markdown
            ours = [n for n in gitlab.notes(PROJECT_ID, MR)
                    if n["body"].startswith("<!-- latencylab:.latencylab/gate.yaml -->\n")]
            if not baseline:
                assert "Baseline: arm" in markdown
                assert ours == []
                continue
            assert "branch:main" in markdown  # compared with the push's comparison on main
            assert len(ours) == 1, log
            assert ours[0]["body"].endswith(markdown)
            note_ids.append(ours[0]["id"])
        assert note_ids[0] == note_ids[1]
        assert [r.method for r in gitlab.writes()] == ["POST", "PUT"]
        assert all(r.headers.get("private-token") == "glpat-project-bot" for r in gitlab.requests)
    finally:
        gitlab.close()
