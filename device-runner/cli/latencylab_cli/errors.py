"""Exit codes of the CLI (docs/ci.md §4) and the errors that carry them."""

from __future__ import annotations

EXIT_PASS = 0
EXIT_REGRESSION = 1
EXIT_INCONCLUSIVE = 2
EXIT_INFRA = 3
EXIT_USAGE = 4


class CliError(Exception):
    """An error that ends the command with `exit_code` after printing `message`."""

    exit_code = EXIT_USAGE

    def __init__(self, message: str, *, details: list[str] | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.details = details or []

    def render(self) -> str:
        lines = [f"error: {self.message}"]
        lines += [f"  {line}" for line in self.details]
        return "\n".join(lines)


class UsageError(CliError):
    """Bad arguments, a spec the server rejects, a missing or refused token."""

    exit_code = EXIT_USAGE


class InfraError(CliError):
    """The comparison failed or was cancelled, the server is down or erring, or waiting timed out."""

    exit_code = EXIT_INFRA
