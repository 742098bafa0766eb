"""A stand-in for dcgm-exporter in tests: an HTTP server with dcgm-exporter's metric names
and label set, and values the test sets. In production the GPU series come from NVIDIA's
dcgm-exporter (a DaemonSet on the GPU nodes); this one serves what it would serve for the
fake GPUs of KWOK's nodes.

The names are those of dcgm-exporter's default counters file (``etc/default-counters.csv``:
utilisation in percent, framebuffer in MiB, power in W); every series carries the labels
it writes when it maps GPUs to pods: ``gpu``, ``UUID``, ``device``, ``modelName``,
``Hostname``, and the ``namespace``, ``pod`` and ``container`` using the GPU.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from tests.integration.testcluster import free_port

# name, type, help: as in dcgm-exporter's default counters file
COUNTERS = (
    ("DCGM_FI_DEV_GPU_UTIL", "gauge", "GPU utilization (in %)."),
    ("DCGM_FI_DEV_MEM_COPY_UTIL", "gauge", "Memory utilization (in %)."),
    ("DCGM_FI_DEV_FB_USED", "gauge", "Framebuffer memory used (in MiB)."),
    ("DCGM_FI_DEV_POWER_USAGE", "gauge", "Power draw (in W)."),
)
MODEL = "NVIDIA H100 80GB HBM3"


@dataclass(frozen=True)
class Gpu:
    """One GPU of a node, used by one pod's container."""

    node: str
    index: int
    namespace: str
    pod: str
    container: str

    def labels(self) -> str:
        uuid = f"GPU-{abs(hash((self.node, self.index))):032x}"[:40]
        return (
            f'gpu="{self.index}",UUID="{uuid}",device="nvidia{self.index}",'
            f'modelName="{MODEL}",Hostname="{self.node}",'
            f'container="{self.container}",namespace="{self.namespace}",pod="{self.pod}"'
        )


class FakeDcgm:
    """Serves ``/metrics`` on loopback; :meth:`set` gives a GPU its utilisation."""

    def __init__(self) -> None:
        self.port = free_port()
        self._utilisation: dict[Gpu, float] = {}
        self._lock = threading.Lock()
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                body = fake.render().encode()
                self.send_response(200 if self.path == "/metrics" else 404)
                self.send_header("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: object) -> None:  # quiet
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def target(self) -> str:
        return f"127.0.0.1:{self.port}"

    def set(self, gpu: Gpu, utilisation: float) -> None:
        with self._lock:
            self._utilisation[gpu] = utilisation

    def forget(self, pod: str) -> None:
        """The pod's GPUs are no longer reported (it ended)."""
        with self._lock:
            self._utilisation = {g: u for g, u in self._utilisation.items() if g.pod != pod}

    def render(self) -> str:
        with self._lock:
            gpus = dict(self._utilisation)
        lines: list[str] = []
        for name, kind, help_text in COUNTERS:
            lines += [f"# HELP {name} {help_text}", f"# TYPE {name} {kind}"]
            for gpu, utilisation in gpus.items():
                value = {
                    "DCGM_FI_DEV_GPU_UTIL": utilisation,
                    "DCGM_FI_DEV_MEM_COPY_UTIL": utilisation / 2,
                    "DCGM_FI_DEV_FB_USED": 1024 + 700 * utilisation,
                    "DCGM_FI_DEV_POWER_USAGE": 70 + 6 * utilisation,
                }[name]
                lines.append(f"{name}{{{gpu.labels()}}} {value:g}")
        return "\n".join(lines) + "\n"

    def __enter__(self) -> FakeDcgm:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()


__all__ = ["COUNTERS", "FakeDcgm", "Gpu"]
