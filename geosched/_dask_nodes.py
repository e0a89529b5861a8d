"""Dask's scheduler and worker without an HTTP server, for ``--cluster local:N`` (:mod:`geosched.executor`).

Dask starts an HTTP server on its scheduler (port 8787, or another one when that is taken) and on each
worker, dashboard or not, from :meth:`distributed.node.ServerNode.start_http_server`; the routes can be
emptied by configuration, but not the listening socket, and stopping it once the cluster is up leaves
it answering during start-up. Here that method makes the server object Dask's code expects and never
binds it: no socket is opened, at any moment. :func:`private_cluster` assembles the cluster from these
classes (the worker processes import this module to build theirs).

This module imports Dask distributed (the extra ``geosched[cluster]``): only :mod:`geosched.executor`
imports it, and only for ``local:N``.
"""

from __future__ import annotations

from typing import Any

import distributed
from distributed.http.routing import RoutingApplication
from tornado.httpserver import HTTPServer

__all__ = ["UnboundHttp", "QuietScheduler", "QuietWorker", "private_cluster"]


class UnboundHttp:
    """Replaces ``start_http_server``: the HTTP server exists (Dask stops it on close) but never listens."""

    def start_http_server(self, routes: Any, dashboard_address: Any, default_port: int = 0,
                          ssl_options: Any = None) -> None:
        self.http_application = RoutingApplication([])
        self.http_server = HTTPServer(self.http_application)


class QuietScheduler(UnboundHttp, distributed.Scheduler):
    """A Dask scheduler with no HTTP listener."""


class QuietWorker(UnboundHttp, distributed.Worker):
    """A Dask worker with no HTTP listener (built in its process by a :class:`distributed.Nanny`)."""


def private_cluster(workers: int, security: Any) -> distributed.SpecCluster:
    """``workers`` single-threaded worker processes and a scheduler on 127.0.0.1, every connection TLS with
    ``security``'s certificates, no HTTP listener anywhere."""
    common = {"host": "127.0.0.1", "protocol": "tls://", "security": security}
    scheduler = {"cls": QuietScheduler, "options": {**common, "dashboard": False, "dashboard_address": None}}
    worker = {"cls": distributed.Nanny, "options": {**common, "nthreads": 1, "worker_class": QuietWorker,
                                                    "dashboard": False, "dashboard_address": None}}
    return distributed.SpecCluster(scheduler=scheduler, workers={k: worker for k in range(workers)},
                                   security=security)
