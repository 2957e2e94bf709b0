"""The tools' tests run against real servers on free loopback ports (target_process.py)."""

from target_process import nagle_target, nginx_server, target_server, tls_dir

__all__ = ["nagle_target", "nginx_server", "target_server", "tls_dir"]
