"""The harness's result document out of an xcodebuild result bundle, where the job exchange
did not deliver it: the XCTest always attaches the document (named `latencylab-result`,
BenchTests.swift), and `xcrun xcresulttool export attachments --path B --output-path D`
(Xcode 16+) writes every attachment into D with a `manifest.json` describing them —

    [{"testIdentifier": "BenchTests/testRunJob()", "testIdentifierURL": "test://…",
      "attachments": [{"exportedFileName": "…", "suggestedHumanReadableName":
                       "latencylab-result_0_<UUID>.json", "isAssociatedWithFailure": false,
                       "configurationName": "…", "deviceName": "…", "deviceId": "…"}]}]

(the schema `xcresulttool export attachments --schema` prints). The exported file names are
opaque; only the manifest says which file is which, so the document is found through it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ..devices.tools import ToolError, run_tool

RESULT_ATTACHMENT = "latencylab-result"  # the XCTAttachment's name (the manifest appends _<n>_<UUID>.<ext>)


def result_bundle(out_path: Path) -> Path:
    """Where the bench lane writes the block's result bundle (Fastfile: `<out stem>.xcresult`)."""
    return out_path.with_name(out_path.stem + ".xcresult")


def attachment_in(exported: Path, name: str = RESULT_ATTACHMENT) -> Path | None:
    """The exported file of the attachment called `name`, from the manifest; None if no test attached one."""
    try:
        manifest: Any = json.loads((exported / "manifest.json").read_text())
    except (OSError, ValueError):
        return None
    for test in manifest if isinstance(manifest, list) else []:
        for attachment in (test.get("attachments") or []) if isinstance(test, dict) else []:
            suggested = str(attachment.get("suggestedHumanReadableName", ""))
            exported_name = attachment.get("exportedFileName")
            if suggested.startswith(name) and isinstance(exported_name, str) and "/" not in exported_name:
                path = exported / exported_name
                if path.is_file():
                    return path
    return None


def export_result(bundle: Path, exported: Path, *, xcrun: str = "xcrun", timeout_s: float = 120.0) -> Path | None:
    """Export the bundle's attachments and return the result document's file (or None)."""
    done = run_tool([xcrun, "xcresulttool", "export", "attachments", "--path", str(bundle), "--output-path",
                     str(exported)], timeout_s=timeout_s)
    if done.returncode != 0:
        raise ToolError("xcresulttool", done.text or f"exited {done.returncode}")
    return attachment_in(exported)
