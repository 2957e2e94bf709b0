"""LatencyLab reference target server: same routes on h1c, h1, h2, h3 and gRPC.

Library use: `start_target(...)` (background thread) or `await serve_target(...)`.
CLI: `python -m latencylab_tools.target --help`.
"""

from .server import RunningTarget, TargetThread, serve_target, start_target

__all__ = ["RunningTarget", "TargetThread", "serve_target", "start_target"]
