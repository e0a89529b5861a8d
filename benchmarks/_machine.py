"""Machine and version facts recorded beside every benchmark result."""

from __future__ import annotations

import os
import platform


def machine_summary() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as handle:
            for line in handle:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    import numpy

    import geosched

    return (f"{cpu}, {os.cpu_count()} cores, Python {platform.python_version()}, "
            f"numpy {numpy.__version__}, geosched {geosched.__version__}")
