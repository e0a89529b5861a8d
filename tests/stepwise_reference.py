"""A deliberately naive, per-step simulator: the independent reference for the
event-driven one. It walks every step and checks every future step by brute force."""

from __future__ import annotations


def stepwise_simulate(instance, keys, predicted, backfill=False, max_steps=100_000):
    requests = instance.requests
    n = len(requests)
    memory = instance.memory
    order = sorted(range(n), key=lambda i: (keys[i], requests[i].arrival, i))
    rank = {i: k for k, i in enumerate(order)}
    belief = [min(int(p), memory - r.prompt) for p, r in zip(predicted, requests)]
    start = [None] * n
    done = [False] * n
    running = []
    waiting = []
    evictions = 0
    for t in range(max_steps):
        for j in list(running):
            if start[j] + requests[j].output <= t:
                running.remove(j)
                done[j] = True
            elif start[j] + belief[j] <= t:
                belief[j] = min(2 * (t - start[j]), memory - requests[j].prompt)
        while sum(requests[j].prompt + t + 1 - start[j] for j in running) > memory:
            victim = max(running, key=lambda j: rank[j])
            running.remove(victim)
            start[victim] = None
            waiting.append(victim)
            evictions += 1
        for i in range(n):
            if requests[i].arrival == t:
                waiting.append(i)
        waiting.sort(key=lambda i: rank[i])
        for i in list(waiting):
            trial = running + [i]
            trial_start = {j: start[j] for j in running}
            trial_start[i] = t
            horizon = max(trial_start[j] + belief[j] for j in trial)
            ok = True
            for step in range(t + 1, horizon + 1):
                used = sum(
                    requests[j].prompt + step - trial_start[j]
                    for j in trial
                    if trial_start[j] < step <= trial_start[j] + belief[j]
                )
                if used > memory:
                    ok = False
                    break
            if ok:
                start[i] = t
                running.append(i)
                waiting.remove(i)
            elif not backfill:
                break
        if all(done):
            break
    return {requests[i].id: start[i] for i in range(n)}, evictions
