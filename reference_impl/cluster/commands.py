"""``geosched cluster``: serve a workload on a cluster of replicas with a router and a local policy.

``geosched cluster WORKLOAD --replicas 4xA100-80G,4xH100-80G --router sagesched --local svf``
splits the workload in time (``--train-fraction`` of it, in arrival order, fits the empirical
length predictor of :mod:`.empirical`; ``--lengths oracle`` uses the true lengths), serves the
rest with arrivals sped up ``--speedup`` times, and prints the latency table and one row per
replica; ``--json`` prints one object. ``--memory`` sets every replica's KV budget (``unit``
replicas need it, or take the workload's). A malformed ``--replicas`` is a one-line error, exit 2.
"""

from __future__ import annotations

import argparse

from geosched.arguments import (
    MEMORY_OVERRIDE,
    add_command,
    positive_float,
    positive_int,
    probability_level,
    show_progress,
    unit_fraction,
)

__all__ = ["add_commands"]


def add_commands(subparsers, common) -> None:
    """Register ``cluster`` on the ``geosched`` parser."""
    from geosched.reference_impl.cluster.routers import ROUTER_NAMES
    from geosched.reference_impl.cluster.simulator import ABLATIONS, BELIEFS, LOCAL_POLICIES

    p = add_command(
        subparsers, "cluster", common, memory=MEMORY_OVERRIDE,
        seed="seed of a generated workload such as chat:n=200 (a spec's own seed=... wins) and of the routers "
             "random and p2c (>= 0; default 0)",
        help="serve a workload on a cluster (routers, SageSched)",
        description="Serve a workload on a cluster of replicas with a router (SageSched's uncertainty-aware "
                    "placement, or a baseline) and a local policy on each replica; print the latency and SLO "
                    "table and one row per replica, every replica's schedule accepted by the checker.",
        examples=["geosched cluster trace --limit 2000 --router sagesched --local svf",
                  "geosched cluster poisson:mu=0.2,rho=0.6 --replicas 2xunit --memory 400 --lengths oracle"])
    p.add_argument("workload", nargs="?", default="trace",
                   help="instance .json, trace .csv, 'trace' (the shared Azure trace) or a generator spec "
                        "(default: trace)")
    p.add_argument("--replicas", default="4xA100-80G,4xH100-80G",
                   help="COUNTxGPU,... with GPUs A100-80G, H100-80G or unit (default 4xA100-80G,4xH100-80G)")
    p.add_argument("--model", default="llama-3.1-8b", help="llama-3.1-8b (1 GPU) or llama-3.1-70b (4 GPUs)")
    p.add_argument("--router", default="sagesched", choices=ROUTER_NAMES)
    p.add_argument("--local", default="svf", help=f"{', '.join(LOCAL_POLICIES)} (or name:k=v,...)")
    p.add_argument("--ablation", default=None, choices=ABLATIONS, help="remove one part of SageSched")
    p.add_argument("--belief", default="auto", choices=BELIEFS, help="what the local memory check believes")
    p.add_argument("--safety-quantile", type=probability_level, default=0.9, help="quantile memory is kept under (0.9)")
    p.add_argument("--lengths", default="empirical", choices=("empirical", "oracle", "learned"),
                   help="predicted length distributions: a histogram fitted on the past, the true lengths, or the "
                        "trained distribution model (torch; serve only what it was not trained on)")
    p.add_argument("--train-fraction", type=unit_fraction, default=None,
                   help="first part of the workload, not served (default 0.3; 0.7 with --lengths learned)")
    p.add_argument("--speedup", type=positive_float, default=10.0, help="arrivals this many times faster (default 10)")
    p.add_argument("--arrivals", choices=("online", "burst"), default="online", help="for traces (default online)")
    p.add_argument("--step-seconds", type=positive_float, default=0.025,
                   help="seconds per arrival step (default 0.025)")
    p.add_argument("--limit", type=positive_int, default=None, help="for traces: read at most this many rows")
    p.add_argument("--backfill", action="store_true", help="local scans skip a misfit")
    p.add_argument("--slo-scale", type=positive_float, default=5.0, help="SLO = this x isolated latency (default 5)")
    p.set_defaults(handler=_cmd_cluster)


def _cmd_cluster(args: argparse.Namespace) -> int:
    from geosched.output import emit_json, working
    from geosched.reference_impl.cluster.steptime import replica_models

    replica_models(args.replicas, model=args.model, memory=args.memory, unit_memory=1)  # bad specs fail first
    with working("cluster", show_progress(args)):
        summary, result = _serve(args)
    if args.json:
        emit_json({**summary, **result.to_dict()})
        return 0
    _print(summary, result)
    return 0


def _serve(args: argparse.Namespace):
    """Read the workload, fit the lengths and serve it: ``(summary, ClusterResult)``."""
    from geosched.reference_impl.cluster.empirical import serving_split
    from geosched.reference_impl.cluster.simulator import simulate_cluster
    from geosched.reference_impl.cluster.steptime import replica_models
    from geosched.reference_impl.workloads import load_workload

    instance = load_workload(args.workload, memory=args.memory, seed=args.seed, arrivals=args.arrivals,
                             step_seconds=args.step_seconds, limit=args.limit)
    models = replica_models(args.replicas, model=args.model, memory=args.memory, unit_memory=instance.memory)
    fraction = args.train_fraction if args.train_fraction is not None else (0.7 if args.lengths == "learned" else 0.3)
    split = serving_split(instance, train_fraction=fraction, lengths=args.lengths, step_seconds=args.step_seconds)
    seed = args.seed if args.seed is not None else 0
    result = simulate_cluster(
        split.serve, models, router=args.router, local=args.local, distribution=split.distribution,
        step_seconds=args.step_seconds, speedup=args.speedup, safety_quantile=args.safety_quantile,
        belief=args.belief, ablation=args.ablation, backfill=args.backfill,
        svf1_lengths=[r.output for r in split.train], slo_scale=args.slo_scale, seed=seed)
    summary = {"workload": args.workload, "replicas": args.replicas, "model": args.model, "lengths": args.lengths,
               "train": len(split.train), "step_seconds": args.step_seconds, "slo_scale": args.slo_scale}
    return summary, result


def _print(summary, result) -> None:
    m = result.metrics
    role = {"empirical": "fit the empirical predictor", "learned": "not served (the learned model's training part)",
            "oracle": "not served"}[summary["lengths"]]
    print(f"workload {summary['workload']}: {result.n} requests served ({summary['train']} earlier ones {role}), "
          f"arrivals x{result.speedup:g}")
    quantile = f" (q={result.safety_quantile:g})" if "quantile" in (result.belief, result.reserve) else ""
    print(f"cluster {summary['replicas']} ({summary['model']}), router {result.router}, local {result.local}"
          f"{', ablation ' + result.ablation if result.ablation else ''}, beliefs {result.belief}, reserve "
          f"{result.reserve}{quantile}")
    print(f"  latency (s)   mean {m['mean_latency']:.3f}  P50 {m['p50_latency']:.3f}  P95 {m['p95_latency']:.3f}  "
          f"P99 {m['p99_latency']:.3f}")
    print(f"  SLO ({summary['slo_scale']:g}x isolated)  attainment {m['slo_attainment']:.3f}  goodput "
          f"{m['goodput']:.2f} req/s   throughput {m['throughput']:.0f} tok/s")
    print(f"  restarts {m['preemptions']}  lost tokens {m['lost_tokens']}  routing "
          f"{result.routing_seconds * 1e6:.1f} us/request  wall {result.wall_time:.2f} s")
    header = f"  {'replica':<8} {'model':<24} {'M':>8} {'requests':>9} {'restarts':>8} {'TEL (steps)':>12} {'peak':>8}"
    print(header)
    for rep in result.replicas:
        print(f"  {rep.index:<8} {rep.model:<24} {rep.memory:>8} {rep.requests:>9} {rep.restarts:>8} "
              f"{rep.tel_steps:>12} {rep.peak_memory:>8}")
    print("  every replica's schedule accepted by the checker")
