(** * The volume identity (ledger row kong.volume).

    For T >= x + o:  sum_{t=1..T} req_usage r x t = volume r = s o + o (o + 1) / 2. *)

From Coq Require Import Arith Lia List.
From GeoSched Require Import Model.

(** Memory-time up to step T: sum_{t=1..T} req_usage r x t. *)
Definition mem_time (r : req) (x T : nat) : nat := sum_upto T (fun t => req_usage r x (S t)).

Lemma mem_time_before : forall r x T, T <= x -> mem_time r x T = 0.
Proof.
  intros r x T. unfold mem_time. induction T; intros H; simpl; auto.
  rewrite IHT by lia. rewrite req_usage_zero_before by lia. auto.
Qed.

(** Division-free closed form after the start: with m = min k o,
    2 * mem_time (x + k) = 2 s m + m m + m. *)
Lemma mem_time_after2 : forall r x k,
  2 * mem_time r x (x + k) =
  2 * prompt r * Nat.min k (output r) + Nat.min k (output r) * Nat.min k (output r)
  + Nat.min k (output r).
Proof.
  intros r x k. induction k.
  - rewrite Nat.add_0_r, mem_time_before by lia. rewrite Nat.min_0_l. lia.
  - replace (x + S k) with (S (x + k)) by lia. unfold mem_time in *. cbn [sum_upto].
    unfold req_usage at 2.
    destruct (Nat.ltb_spec x (S (x + k))); [|lia].
    destruct (Nat.leb_spec (S (x + k)) (x + output r)); cbn [andb].
    + replace (Nat.min (S k) (output r)) with (S k) by lia.
      replace (Nat.min k (output r)) with k in IHk by lia.
      replace (S (x + k) - x) with (S k) by lia. nia.
    + replace (Nat.min (S k) (output r)) with (output r) by lia.
      replace (Nat.min k (output r)) with (output r) in IHk by lia. lia.
Qed.

Lemma volume2_is_memory_time : forall r x T, x + output r <= T -> 2 * mem_time r x T = volume2 r.
Proof.
  intros r x T H. replace T with (x + (T - x)) by lia. rewrite mem_time_after2.
  replace (Nat.min (T - x) (output r)) with (output r) by lia. unfold volume2. lia.
Qed.

(** for T >= x + o, sum_{t=1..T} req_usage r x t = volume r (kong.volume) *)
Theorem volume_is_memory_time : forall r x T,
  x + output r <= T -> sum_upto T (fun t => req_usage r x (S t)) = volume r.
Proof.
  intros r x T H. pose proof (volume2_is_memory_time r x T H) as H2.
  rewrite volume2_eq in H2. unfold mem_time in H2. lia.
Qed.
