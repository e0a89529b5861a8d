"""``svf.fluid.k1``, ``svf.fluid.k2``, ``svf.fluid.k3``, ``svf.fluid.k4``: the supremum of SVF's ratio over
k-group burst families (k = 1, 2, 3, 4) is 2.

A *k-group family* (ours; the bound it is measured against is Kong, Qi, Ye, Zhou,
arXiv 2606.22327, Prop. 3.1 and Thm. 3.2) has ``k`` types of identical requests ``(s_j, o_j)``
with ``s_j + o_j <= M/2`` and distinct volumes, ``c_j = gamma_j N`` of each (``gamma_j >= 0`` summing to 1:
a group may be empty, so the class holds every family with fewer groups), burst arrivals, fixed ``M``, and
``N -> infinity``. Every one of these hypotheses is in the rows' statements: outside them (a peak above
``M/2``, two types of equal volume) a two-group family can exceed both its single groups
(``tests/test_hypotheses.py``).

**One group (k = 1), proved in Coq for every n** (``verify/coq/SvfGroup.v``): with
``M = q(s + o) + r``, ``0 <= r < s + o``, ``L = r - s`` (0 when ``r <= s``), SVF's forward check fails
at a decision only if at least ``q`` requests run, and ``q + 1`` when one of them has at most ``L`` steps
left; counting over the trace (``SvfCount.v``) gives ``(q o + L) x_k <= o^2 k + 3 o L`` for the k-th start
(``svf_group_start_bound``), and with Prop. 3.1, for every feasible S,
``(M + 2) TEL(SVF) <= 2M TEL(S) + c n`` (``svf_group_competitive``): every member's limit ratio is at
most ``2M/(M + 2) < 2``. The triangles ``(0, p)``, ``p = 2b - 1``, ``M = bp`` (``svf-triangles``): SVF starts
batches of ``b`` every ``p`` steps, the one-per-step schedule is feasible and
``p TEL(S) <= b TEL(SVF) + p^2 n`` (``verify/coq/SvfTriangles.v``), so their ratio tends to
``2 - 1/b -> 2``. The supremum is 2, not attained.

**Several groups (k >= 2), also for every N**: with the groups in volume order SVF serves one group after
the other (strict head-of-line); once every earlier group has finished, only group j runs, and the same count
gives ``x_{j,k} <= tau_j k + a_j + y_j + Omega`` with ``tau_j = o_j^2/mu_j``, ``mu_j = q_j o_j + L_j``
(``verify/coq/SvfPhases.v``, ``svf_phase_start_bound_abs``). Summed over the requests and chained over the
groups (sympy, with the slacks of that bound as premises), ``TEL(SVF)/N^2`` is at most
``Q(gamma; tau) = sum_j gamma_j (sum_{i<j} gamma_i tau_i + gamma_j tau_j / 2)`` in the limit; Prop. 3.1 gives
``TEL(OPT)/N^2 >= Q(gamma; v/M)``; with ``rho = max_j M tau_j/v_j``, ``rho Q(gamma; v/M) - Q(gamma; tau)`` is a
sum of nonnegative terms: **no k-group family exceeds its worst single group**, and ``M tau_j / v_j <=
2M/(M + 2)`` is sympy's algebra on ``mu_j``. :mod:`geosched.adversary.fluid` computes the same quantities
for any family.

Example
-------
>>> derivation(2).check().status
'unknown'
>>> sorted(DERIVATIONS)
['svf.fluid.k1', 'svf.fluid.k2', 'svf.fluid.k3', 'svf.fluid.k4']
"""

from __future__ import annotations

import sympy as sp

from geosched.theory.claim import KONG, KONG_PAPER, SIMULATES, Claim
from geosched.theory.derivation import Derivation, Hypothesis, Step

CLASSES = (1, 2, 3, 4)
# the Coq theorems of the single-group bound (SvfGroup.v) and of the triangles (SvfTriangles.v)
COQ_UPPER = ("coq:svf_group_competitive", "coq:svf_group_start_bound")
COQ_LOWER = ("coq:svf_triangles_ratio", "coq:triangles_staggered_feasible")
COQ_PHASES = ("coq:svf_phase_start_bound_abs",)  # several groups (SvfPhases.v)
# the policy and arrivals every class assumes (H1 of each derivation)
BURST_SVF = Hypothesis("H1", "burst arrivals; strict head-of-line SVF with the forward-looking check",
                       latex=r"burst arrivals; strict head-of-line SVF with the forward-looking check",
                       outside="none: H1 names the policy and the arrivals of the class")


def _claim(k: int) -> Claim:
    single = k == 1
    return Claim(
        f"svf.fluid.k{k}", f"ours (fluid analysis); {KONG} Prop. 3.1, Thm. 3.2",
        ("1-group burst families (n identical requests (s, o) with peak s + o <= M/2, M fixed, n -> infinity): the "
         "supremum of SVF's limit ratio is 2 (every member <= 2M/(M+2) < 2)" if single else
         f"{k}-group burst families (gamma_j N identical requests of type j, every peak s_j + o_j <= M/2, distinct "
         f"volumes, gamma_j >= 0 summing to 1 so a group may be empty; M fixed, N -> infinity): the supremum of "
         f"SVF's limit ratio is 2 (no member exceeds its worst single group's rho = max_j M tau_j/v_j < 2)"),
        ("one type (s, o), 2(s+o) <= M, n identical requests, M fixed, n -> infinity: Coq for every n, "
         "(M+2) TEL(SVF) <= 2M TEL(S) + O(n) for every feasible S (counting on SVF's trace with Prop. 3.1), so "
         "lim sup <= 2M/(M+2); svf-triangles (0, 2b-1), M = b(2b-1): p TEL(S) <= b TEL(SVF) + p^2 n (Coq), "
         "ratio -> 2 - 1/b -> 2" if single else
         "fixed M, gamma_j N identical requests per group, N -> infinity: Coq's per-request phase bound "
         "x_{j,k} <= tau_j k + O(1) (every N), summed and chained over the groups (sympy), TEL(SVF)/N^2 <= "
         "Q(gamma; tau) in the limit against Prop. 3.1's Q(gamma; v/M) (sympy, any gamma); tau_j <= (2/(M+2)) v_j "
         "(sympy); svf-triangles reaches 2 - 1/b -> 2 (Coq)"),
        "not a claim of the papers; c_j = gamma_j N is taken as exact (rounding moves O(N) of N^2); outside the "
        "stated hypotheses (a peak above M/2, equal volumes) a two-group family's ratio can exceed both its groups' "
        "(tests/test_hypotheses.py)",
        ("derivation", "simulation:fluid-rates", *(() if single else COQ_PHASES), *COQ_UPPER, *COQ_LOWER,
         *SIMULATES), ("kong.prop3.1",),
        coq=tuple(m[4:] for m in ((() if single else COQ_PHASES) + COQ_UPPER + COQ_LOWER)),
        order=("ours", 10 + 10 * k))


CLAIMS = tuple(_claim(k) for k in CLASSES)
CLAIM_IDS = tuple(claim.id for claim in CLAIMS)

N = sp.Symbol("N", positive=True)
M = sp.Symbol("M", positive=True)
rho = sp.Symbol("rho", positive=True)


def phase_form(gammas, taus) -> sp.Expr:
    """``Q(gamma; tau)``: phases in the given order."""
    total, done = sp.Integer(0), sp.Integer(0)
    for g, tau in zip(gammas, taus):
        total += g * (done + g * tau / 2)
        done += g * tau
    return sp.expand(total)


def _symbols(k: int):
    g = sp.symbols(f"gamma1:{k + 1}", nonnegative=True)  # a group may be empty (H2)
    v = sp.symbols(f"v1:{k + 1}", positive=True)
    e = sp.symbols(f"e1:{k + 1}", nonnegative=True)
    return g, v, e


def _prefix_volume_sum(k: int) -> sp.Expr:
    """``sum_k (sum of the k smallest volumes)`` with ``gamma_j N`` requests of volume ``v_j``."""
    g, v, _ = _symbols(k)
    total, before = sp.Integer(0), sp.Integer(0)
    for gj, vj in zip(g, v):
        c = gj * N
        total += c * before + vj * c * (c + 1) / 2  # the j-th group's prefix sums
        before += c * vj
    return total


sg_s = sp.Symbol("s", integer=True, nonnegative=True)  # a single group's prompt
sg_o = sp.Symbol("o", integer=True, positive=True)  # its output
sg_q = sp.Symbol("q", integer=True, positive=True)  # floor(M / (s + o)) >= 2
sg_r = sp.Symbol("r", integer=True, nonnegative=True)  # M mod (s + o)
sg_w = sp.Symbol("w", integer=True, nonnegative=True)


def single_group_steps() -> list[Step]:
    """The single-group bound ``rho = M/(theta v) <= 2M/(M + 2)`` for every ``(s, o)`` with ``s + o <= M/2`` and
    every ``M``: a counting argument on SVF's periodic trace (stated in one step, checked by the enumeration)
    and its algebra (sympy), with ``M = q(s + o) + r``, ``0 <= r < s + o``, ``q >= 2``."""
    s, o, q, r, w = sg_s, sg_o, sg_q, sg_r, sg_w
    u = sp.Symbol("u", integer=True, nonnegative=True)  # q - 2
    peak = s + o
    big_m = q * peak + r
    lower = q + (r - s) / o  # the mean running count when 1 <= r - s < o
    return [
        Step.inequality("a decision with fewer than q running requests admits one more: each holds at most its peak "
                        "s + o at every future step, and q (s + o) <= M", big_m, ">=", q * peak, "difference r",
                        certificate=[r]),
        Step.inequality("with exactly q running, the candidate fits at every step t + d past the first completion "
                        "t + m (one has left: q - 1 peaks and the candidate's s + d <= s + o)", big_m, ">=",
                        (q - 1) * peak + peak, "difference r", certificate=[r]),
        Step.inequality("... and before it if m <= r - s (q peaks and the candidate's s + d <= s + m): with "
                        "m = r - s - w the total is <= M", big_m, ">=", q * peak + s + (r - s - w), "difference w",
                        certificate=[w]),
        Step.unchecked("counting on the trace: theta o >= q + (r - s)/o when r > s, and theta o >= q otherwise "
                       "(theta = mu/o^2 = 1/tau, the rate of the Coq bound, mu = q o + L)",
                       "every decision is blocked (identical requests, an infinite queue), so by the three steps above "
                       "at least q "
                       "run after every decision, and q + 1 at the r - s decisions before each completion; the gap "
                       "between consecutive starts is below o, so those decisions are a fraction >= (r - s)/o of "
                       "the trace (r - s < o); each start runs for o decisions",
                       "a statement about SVF's trace for every n: Coq's svf_group_start_bound, (q o + L) x_k <= "
                       "o^2 k + 3 o L with L = r - s, gives the rate; the ledger's enumeration of the simulator's "
                       "cycle rates checks it too", covered_by=("simulation:fluid-rates", "coq:svf_group_start_bound")),
        Step.identity("theta v = (theta o)(s + (o + 1)/2), so rho = M/(theta v) = 2M/((theta o)(2s + o + 1))",
                      s * o + (o**2 + o) / 2, o * (s + (o + 1) / 2), "Kong et al., Eq. (1)"),
        Step.inequality("r <= s (r = s - w): q (2s + o + 1) >= M + 2, so rho <= 2M/(M + 2) (q = 2 + u)",
                        q * (2 * s + o + 1), ">=", big_m + 2, "difference s + u(s + 1) + w",
                        certificate=[s, u * s, u, w], substitutions={q: 2 + u, r: s - w}),
        Step.inequality("r >= s + 1 (r = s + 1 + w): (q + (r - s)/o)(2s + o + 1) >= M + 2, so rho <= 2M/(M + 2)",
                        lower * (2 * s + o + 1), ">=", big_m + 2,
                        "difference (o s + o u (s + 1) + 2s + 1 + w(2s + 1))/o",
                        certificate=[s, u * s, u, 2 * s / o, 1 / o, 2 * w * s / o, w / o],
                        substitutions={q: 2 + u, r: s + 1 + w}),
        Step.identity("the worst case (0, M/2), M even: q = 2, r = 0, theta o = 2 and rho = 2M/(M + 2) exactly",
                      (2 * (q * peak + r) / (2 * (2 * s + o + 1))).subs({q: 2, s: 0, r: 0}), 2 * (2 * o) / (2 * o + 2),
                      "M = 2o: the bound is attained, so it cannot be improved"),
    ]


def triangle_steps(k: int) -> list[Step]:
    """The lower half: the triangles ``(0, p)``, ``p = 2b - 1``, ``M = bp`` reach ``2 - 1/b``, proved in Coq for every
    ``n`` and ``b`` (``verify/coq/SvfTriangles.v``); they are members of every class (``gamma`` at a vertex)."""
    n, b, tel_s = sp.symbols("n b T_S", positive=True)
    p_b = 2 * b - 1
    steps = [
        Step.unchecked("the triangles (0, p), p = 2b - 1, M = bp, n requests: the one-per-step schedule S is feasible",
                       "at step t the running requests have ages 1..p at most, together p(p + 1)/2 = M",
                       "Coq: triangles_staggered_feasible, every b and n",
                       covered_by=("coq:triangles_staggered_feasible",)),
        Step.unchecked("SVF starts batches of b every p steps, so p TEL(S) <= b TEL(SVF) + p^2 n",
                       "b requests fit at once (b p = M at step p); one more started before p overflows at step p",
                       "Coq: svf_triangles_starts and svf_triangles_ratio, every b and n",
                       covered_by=("coq:svf_triangles_ratio",)),
        Step.identity("TEL(S) = n(n - 1)/2 + p n (request i completes at i + p)",
                      sp.Sum(sp.Symbol("i") + p_b, (sp.Symbol("i"), 0, n - 1)).doit(), n * (n - 1) / 2 + p_b * n,
                      "the sum of i + p over i < n"),
        Step.identity("so TEL(SVF)/TEL(OPT) >= TEL(SVF)/TEL(S) >= p/b - p^2 n/(b TEL(S)) (TEL(OPT) <= TEL(S))",
                      (p_b * tel_s - p_b**2 * n) / (b * tel_s), p_b / b - p_b**2 * n / (b * tel_s),
                      "divide step 2 by b TEL(S)"),
        Step.limit("the correction vanishes as n -> infinity", p_b**2 * n / (b * (n * (n - 1) / 2 + p_b * n)), n,
                   sp.oo, 0, "p^2 n against n^2/2"),
        Step.limit("and p/b = 2 - 1/b tends to 2 as b -> infinity", p_b / b, b, sp.oo, 2, "2 - 1/b"),
    ]
    if k > 1:
        steps.append(Step.identity("they are members of the class (gamma = e_1: the other groups empty, which H2 "
                                   "allows): Q(e_1; tau)/Q(e_1; d) = "
                                   "tau_1/d_1", phase_form([1] + [0] * (k - 1), [rho] + [1] * (k - 1)) / phase_form(
                                       [1] + [0] * (k - 1), [1] * k), rho, "the other groups are empty"))
    return steps


def _single_group_upper_steps() -> list[Step]:
    """The upper half for one group: Coq's ``svf_group_competitive`` with Prop. 3.1, then the limit."""
    n, c, v, tel_s = sp.symbols("n c v T_S", positive=True)
    return [
        Step.unchecked("for every n and every feasible S: (M + 2) TEL(SVF) <= 2M TEL(S) + c n, c = 3(2s + o + 1)L "
                       "+ (M + 2) o, L = (M mod (s + o)) - s",
                       "a failed check leaves >= q running, q + 1 near a completion; the mean running count is "
                       ">= q + L/o, and (q o + L)(2s + o + 1) >= o(M + 2); Prop. 3.1 bounds TEL(S)",
                       "a statement about SVF's trace for every n: Coq, svf_group_competitive (SvfGroup.v)",
                       covered_by=("coq:svf_group_competitive",)),
        Step.identity("with S = OPT: TEL(SVF)/TEL(OPT) <= 2M/(M + 2) + c n/((M + 2) TEL(OPT))",
                      (2 * M * tel_s + c * n) / ((M + 2) * tel_s), 2 * M / (M + 2) + c * n / ((M + 2) * tel_s),
                      "divide step 1 by (M + 2) TEL(OPT)"),
        Step.limit("Prop. 3.1: TEL(OPT) >= v n(n + 1)/(2M), so the correction is <= 2Mc/((M + 2) v (n + 1)) -> 0",
                   2 * M * c * n / ((M + 2) * v * n * (n + 1)), n, sp.oo, 0, "c n against v n^2/(2M)"),
        Step.inequality("so every member's limit ratio is <= 2M/(M + 2) < 2", 2, ">", 2 * M / (M + 2),
                        "difference 4/(M + 2)", certificate=[4 / (M + 2)]),
    ]


def derivation_single_group() -> Derivation:
    """The claim for one group (k = 1): Coq for every n, no fluid hypothesis."""
    return Derivation(
        "svf.fluid.k1",
        f"ours (fluid analysis); {KONG_PAPER}",
        "Prop. 3.1 (the volume bound) and Thm. 3.2 (the upper bound); the single-group bound is ours",
        "single-group burst families (one type (s, o), 2(s + o) <= M, n identical requests, M fixed, n -> infinity): "
        "sup lim TEL(SVF)/TEL(OPT) = 2, not attained: every member's limit is <= 2M/(M + 2) < 2",
        bound=sp.Integer(2),
        statement_latex=(r"For the single-group burst families (one type $(s, o)$, $2(s + o) \le M$, $n$ identical "
                         r"requests, $M$ fixed, $n \to \infty$): $\sup \lim \mathrm{TEL}(\mathrm{SVF})/"
                         r"\mathrm{TEL}(\mathrm{OPT}) = 2$, not attained: every member's limit is at most "
                         r"$2M/(M + 2) < 2$."),
        hypotheses=(BURST_SVF,
                    Hypothesis("H2", "one type (s, o), o >= 1, 2(s + o) <= M; n identical requests; M fixed",
                               latex=r"one type $(s, o)$, $o \ge 1$, $2(s + o) \le M$; $n$ identical requests; "
                                     r"$M$ fixed",
                               outside="none known: single groups with a peak above M/2 (M <= 24, n = "
                                       "150, against the best paced schedule) reach at most 1.36 < "
                                       "2M/(M + 2); the proof uses q = floor(M/(s + o)) >= 2")),
        steps=(*_single_group_upper_steps(), *triangle_steps(1)),
        depends_on=("kong.prop3.1",),
        notes="Both halves are Coq theorems for every n (verify/coq/SvfGroup.v, SvfTriangles.v); the limits are "
              "sympy's. The supremum is approached by svf-triangles (b -> infinity) but not attained.",
    )


def _phase_symbols(k: int):
    g, _, _ = _symbols(k)
    tau = sp.symbols(f"tau1:{k + 1}", positive=True)  # o_j^2 / mu_j, mu_j = q_j o_j + L_j
    lin = sp.symbols(f"a1:{k + 1}", nonnegative=True)  # 3 o_j L_j / mu_j
    ys = sp.symbols(f"y1:{k + 1}", nonnegative=True)  # the start of the request before group j (y_1 = 0)
    return g, tau, lin, ys, sp.Symbol("Omega", positive=True), sp.Symbol("kk", integer=True, nonnegative=True)


def _phase_total(g, tau, lin, starts, omega, outs) -> sp.Expr:
    """The sum over the groups of the per-request bounds tau_j k + a_j + y_j + Omega + o_j over k < c_j."""
    total = sp.Integer(0)
    for gj, tj, aj, yj, oj in zip(g, tau, lin, starts, outs):
        c = gj * N
        total += tj * c * (c - 1) / 2 + c * (aj + yj + omega + oj)
    return total


def phase_bound_steps(k: int) -> list[Step]:
    """SVF's TEL on a k-group member, bounded for every N from Coq's per-request phase bound
    (``svf_phase_start_bound_abs``): the sum over the requests, the chain over the groups, the limit."""
    g, tau, lin, ys, omega, kk = _phase_symbols(k)
    outs = sp.symbols(f"o1:{k + 1}", positive=True)
    starts = (sp.Integer(0), *ys[1:])
    chained = [sp.Integer(0)]  # the explicit bounds on the starts before each group
    for j in range(k - 1):
        chained.append(tau[j] * (g[j] * N - 1) + lin[j] + chained[j] + omega)
    slack = [tau[j] * (g[j] * N - 1) + lin[j] + starts[j] + omega - starts[j + 1] for j in range(k - 1)]
    gap = [g[j] * N * slack[i] for j in range(k) for i in range(j)]
    c1 = g[0] * N
    return [
        Step.unchecked("for every request k < c_j of group j (c_j = gamma_j N): x_{j,k} <= tau_j k + a_j + y_j + "
                       "Omega, tau_j = o_j^2/mu_j, a_j = 3 o_j L_j/mu_j, mu_j = q_j o_j + L_j, y_j the start of the "
                       "request before group j (y_1 = 0), Omega the largest output",
                       "after y_j + Omega every earlier group has finished, so only group j runs and the single-group "
                       "count applies from there",
                       "a statement about SVF's trace for every N: Coq's svf_phase_start_bound_abs (SvfPhases.v), "
                       "mu_j x_{j,k} <= o_j^2 k + 3 o_j L_j + mu_j (y_j + Omega)",
                       covered_by=("coq:svf_phase_start_bound_abs",)),
        Step.identity("summed over k < c_j: sum_k (tau_j k + a_j + y_j + Omega + o_j) = tau_j c_j(c_j - 1)/2 + "
                      "c_j(a_j + y_j + Omega + o_j), so TEL(SVF) <= the sum of these over j",
                      sp.Sum(tau[0] * kk + lin[0] + omega + outs[0], (kk, 0, c1 - 1)).doit(),
                      tau[0] * c1 * (c1 - 1) / 2 + c1 * (lin[0] + omega + outs[0]),
                      "an arithmetic series (shown for group 1; the same for every j); TEL = sum of x + o"),
        Step.inequality("the chain over the groups: step 1 at the last request of group j bounds y_{j+1}, so "
                        "replacing every y_j by its explicit bound Y_j only increases the total",
                        _phase_total(g, tau, lin, chained, omega, outs), ">=",
                        _phase_total(g, tau, lin, starts, omega, outs),
                        "difference sum_j c_j (Y_j - y_j), Y_j - y_j = the slacks of step 1 before group j",
                        certificate=gap, premises=slack),
        Step.limit("divided by N^2 the bound tends to Q(gamma; tau)", _phase_total(g, tau, lin, chained, omega, outs)
                   / N**2, N, sp.oo, phase_form(g, tau), "the N^2 terms"),
    ]


def derivation(k: int = 2) -> Derivation:
    """The claim for the class of ``k``-group families (``k = 1``: :func:`derivation_single_group`)."""
    if k == 1:
        return derivation_single_group()
    g, v, e = _symbols(k)
    w = [vj / M for vj in v]
    worst = phase_form(g, [rho * wj - ej for wj, ej in zip(w, e)])
    gap = sp.expand(rho * phase_form(g, w) - worst)
    return Derivation(
        f"svf.fluid.k{k}",
        f"ours (fluid analysis); {KONG_PAPER}",
        "Prop. 3.1 (the volume bound) and Thm. 3.2 (the upper bound); the fluid limits are ours",
        f"{k}-group burst families (fixed M, gamma_j N identical requests of type j, every peak <= M/2, distinct "
        f"volumes, gamma_j >= 0 summing to 1, N -> infinity): sup lim TEL(SVF)/TEL(OPT) = 2; no member exceeds its "
        f"worst single group rho = max_j M tau_j/v_j < 2",
        bound=sp.Integer(2),
        statement_latex=(rf"For the {k}-group burst families ($M$ fixed, $\gamma_j N$ identical requests of type $j$, "
                         r"every peak $s_j + o_j \le M/2$, distinct volumes, $\gamma_j \ge 0$ summing to 1, "
                         r"$N \to \infty$): $\sup \lim \mathrm{TEL}(\mathrm{SVF})/\mathrm{TEL}(\mathrm{OPT}) = 2$; "
                         r"no member exceeds its worst single group, "
                         r"$\rho = \max_j M \tau_j / v_j < 2$."),
        hypotheses=(BURST_SVF,
                    Hypothesis("H2", f"{k} types (s_j, o_j), s_j + o_j <= M/2, distinct volumes, in volume order; "
                               "gamma_j N requests of type j, gamma_j >= 0 summing to 1 (a group may be empty: the "
                               "class holds every family with fewer groups); M fixed; N -> infinity",
                               latex=rf"{k} types $(s_j, o_j)$ with $s_j + o_j \le M/2$, distinct volumes, in volume "
                                     r"order; $\gamma_j N$ requests of type $j$, $\gamma_j \ge 0$ summing to 1 (a "
                                     r"group may be empty); $M$ fixed; $N \to \infty$",
                               outside="fails: two types of equal volume interleaved (M = 16, (3, 3) "
                                       "and (6, 2), volume 15, peaks <= M/2) give TEL(SVF)/TEL(S) >= "
                                       "1.24 at N = 120 per group while each single group's rho <= "
                                       "16/15; with a peak above M/2 too ((M - 1, 1) and (0, o), M = "
                                       "o(o + 1)/2) the ratio grows like (o + 1)/2, without bound")),
        steps=(
            *phase_bound_steps(k),
            Step.limit("Prop. 3.1 in the limit: (1/M) sum_k P_k / N^2 -> Q(gamma; v/M)",
                       _prefix_volume_sum(k) / (M * N**2), N, sp.oo, phase_form(g, w),
                       "the N^2 terms of the prefix sums of the volumes in volume order"),
            Step.inequality("no member exceeds its worst single group: rho Q(gamma; v/M) >= Q(gamma; tau) when "
                            "tau_j = rho v_j/M - e_j, e_j >= 0", rho * phase_form(g, w), ">=", worst,
                            "the difference is a sum of products of nonnegative symbols",
                            certificate=list(sp.Add.make_args(gap))),
            *single_group_steps(),
            Step.inequality("so rho < 2", 2, ">", 2 * M / (M + 2), "difference 4/(M + 2)",
                            certificate=[4 / (M + 2)]),
            *triangle_steps(k),
        ),
        depends_on=("kong.prop3.1",),
        notes="The supremum is approached (svf-triangles, b -> infinity) but not attained. SVF's trace enters "
              "through three Coq theorems for every N: the per-request phase bound (SvfPhases.v), the single-group "
              "rate (SvfGroup.v) and the triangles (SvfTriangles.v); the sums, the chain over the groups and the "
              "limits are sympy's. geosched.adversary.fluid computes the exact cycle rates, which the ledger's "
              "simulation compares as a cross-check.",
    )


def derivation_k1() -> Derivation:
    return derivation(1)


def derivation_k2() -> Derivation:
    return derivation(2)


def derivation_k3() -> Derivation:
    return derivation(3)


def derivation_k4() -> Derivation:
    return derivation(4)


DERIVATIONS = dict(zip(CLAIM_IDS, (derivation_k1, derivation_k2, derivation_k3, derivation_k4), strict=True))
