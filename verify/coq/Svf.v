(** * Strict head-of-line Smallest-Volume-First for a burst, with the forward-looking check.

    [svf M rs] is the start step of each request of [rs] (in the instance's order).

    Requests are taken in the order of their volume, ties by position in the instance
    (a stable insertion sort).  They are placed one after the other: request k starts at
    the earliest step t >= the start of the previously placed request such that, for every
    t' with t < t' <= t + o_k,
        usage(placed so far, t') + s_k + (t' - t) <= M
    (the forward-looking check).  The search runs from that lower bound up to
    hi = the latest finish of the requests placed so far; at hi every placed request has
    finished, so the check passes there whenever peak <= M (if nothing earlier fits, hi is
    returned).

    This is the discrete-time strict head-of-line simulation for a burst
    (reference_impl/simulator.py, the default for bursts): at every step the waiting
    requests are scanned in (volume, arrival, position) order and started while the check
    passes, the first misfit ending the scan.  In that process the head of the queue is
    started at the first step, not before the previous start, where its check passes,
    and its check only involves the requests started before it, i.e. the requests placed
    before it here.  Sim.v defines that step-by-step process ([sim], [svf_sim]) and proves
    [svf_sim_eq]: svf_sim M rs = svf M rs whenever every peak is <= M. *)

From Coq Require Import Arith Lia List Bool Permutation Sorting.
From GeoSched Require Import Model.
Import ListNotations.

(** ** The order: stable insertion sort of (position, request) by volume *)

(** The key is twice the volume: the same order and ties as the volume, with no division
    (the extracted code then never runs the unary [Nat.div]). *)
Definition vol_of (a : nat * req) : nat := volume2 (snd a).

(** Insert [a] before the first element whose volume is >= vol a.  The sort inserts the
    elements from the last to the first, so equal volumes keep their original order. *)
Fixpoint insert_v (a : nat * req) (l : list (nat * req)) : list (nat * req) :=
  match l with
  | [] => [a]
  | b :: l' => if Nat.leb (vol_of a) (vol_of b) then a :: l else b :: insert_v a l'
  end.

Fixpoint isort_v (l : list (nat * req)) : list (nat * req) :=
  match l with
  | [] => []
  | a :: l' => insert_v a (isort_v l')
  end.

Definition svf_order (rs : list req) : list (nat * req) :=
  isort_v (combine (seq 0 (length rs)) rs).

(** ** The forward-looking check and the search *)

Definition fits (M : nat) (placed : list (req * nat)) (r : req) (t : nat) : bool :=
  let last := t + output r in (* MUT: window *)
  forallb (fun t' => Nat.leb (usage_js placed t' + prompt r + (t' - t)) M)
          (seq (S t) (last - t)).

Fixpoint find_start (M : nat) (placed : list (req * nat)) (r : req) (t fuel : nat) : nat :=
  match fuel with
  | 0 => t
  | S f => if fits M placed r t then t else find_start M placed r (S t) f
  end.

Definition strip (e : (nat * req) * nat) : req * nat := (snd (fst e), snd e).

(** Place [todo] in order; [placed] are the requests placed so far (with their starts),
    [lo] the start of the last one. *)
Fixpoint place (M : nat) (placed : list (req * nat)) (lo : nat) (todo : list (nat * req))
  : list ((nat * req) * nat) :=
  match todo with
  | [] => []
  | a :: rest =>
      let hi := horizon_js placed in
      let x := find_start M placed (snd a) lo (hi - lo) in
      (a, x) :: place M ((snd a, x) :: placed) x rest
  end.

Definition svf_placed (M : nat) (rs : list req) : list ((nat * req) * nat) :=
  place M [] 0 (svf_order rs).

Fixpoint lookup (i : nat) (l : list ((nat * req) * nat)) : nat :=
  match l with
  | [] => 0
  | e :: l' => if Nat.eqb (fst (fst e)) i then snd e else lookup i l'
  end.

Definition svf (M : nat) (rs : list req) : list nat :=
  let pl := svf_placed M rs in
  map (fun i => lookup i pl) (seq 0 (length rs)).

(** ** The paper's instance: M = 12, requests (6,3) and (1,5). *)

Example svf_paper : svf 12 [(6, 3); (1, 5)] = [5; 0] := eq_refl.
Example tel_paper : tel [(6, 3); (1, 5)] (svf 12 [(6, 3); (1, 5)]) = 13 := eq_refl.
Example feasible_paper : feasibleb 12 [(6, 3); (1, 5)] (svf 12 [(6, 3); (1, 5)]) = true
  := eq_refl.
(** Ties by position: equal volumes keep the instance order. *)
Example svf_ties : svf 16 [(0, 8); (0, 8); (0, 8)] = [0; 0; 8] := eq_refl.
