"""Running the device tools (adb, idevice_id, ideviceinfo, …) with a time limit.

A phone that hangs a tool must not hang the agent's heartbeat, so every call is bounded;
stdin is closed because adb would otherwise forward the agent's stdin to the device."""

from __future__ import annotations

import shutil
import subprocess
from dataclasses import dataclass


class ToolError(Exception):
    """The tool is missing, timed out, or reported an error (its own text in `detail`)."""

    def __init__(self, tool: str, detail: str):
        super().__init__(f"{tool}: {detail}")
        self.tool = tool
        self.detail = detail


@dataclass(frozen=True)
class ToolResult:
    returncode: int
    stdout: str
    stderr: str

    @property
    def text(self) -> str:
        """What the tool said, stdout and stderr, for error messages."""
        return "\n".join(part.strip() for part in (self.stdout, self.stderr) if part.strip())


def tool_available(path: str) -> bool:
    return shutil.which(path) is not None


def run_tool(argv: list[str], *, timeout_s: float, env: dict[str, str] | None = None) -> ToolResult:
    try:
        done = subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True, timeout=timeout_s, env=env)
    except FileNotFoundError as exc:
        raise ToolError(argv[0], f"not installed ({exc.strerror})") from exc
    except subprocess.TimeoutExpired as exc:
        raise ToolError(argv[0], f"{' '.join(argv[1:])} took over {timeout_s:g} s") from exc
    return ToolResult(done.returncode, done.stdout.decode("utf-8", "replace"), done.stderr.decode("utf-8", "replace"))
