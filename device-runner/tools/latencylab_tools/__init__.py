"""LatencyLab's measurement tools: the host probe, the reference target server, the link emulator
(netlab) and the native HTTP/3 programs' glue. They import nothing of the runner or the CLI."""

__version__ = "0.1.0"
