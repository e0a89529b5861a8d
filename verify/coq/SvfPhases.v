(** * SVF on a burst made of several groups of identical requests (k-group families).

    The instance is [rs = flat_map (fun g => repeat (fst g) (snd g)) groups]: group j has
    [snd g_j] copies of the request [fst g_j = (s_j, o_j)].  The volumes are nondecreasing
    along [groups], so SVF's order (the stable insertion sort by volume) is the instance
    order ([isort_v_sorted_id]) and SVF places the requests one after the other
    ([svf_prun]: svf M rs = the starts of [prun], the run of [find_start] in instance order).

    Write [before j] for c_0 + ... + c_(j-1), [last_prev j] for the start of request
    [before j - 1] (0 if before j = 0) and [Omax] for the largest output.  From the decision
    [last_prev j + Omax] on, every request of the earlier groups has finished, so only group
    j's requests run, and while one of them waits its failed check gives exactly the
    hypothesis of [running_count_bound] (SvfCount.v); the first request of group j starts by
    [last_prev j + Omax].  Hence [svf_phase_start_bound]:
        (q o + L) (x_(before j + k) - (last_prev j + Omax)) <= o^2 k + 3 o L
    for the k-th request of group j, q = M / (s + o), L = M mod (s + o) - s, the same rate
    as the single group (SvfGroup.v, [svf_group_start_bound]) once the earlier groups are
    gone. *)

From Coq Require Import Arith Lia List Bool Permutation Sorting.
From GeoSched Require Import Model Svf SvfFacts SvfCount SvfGroup.
Import ListNotations.

(** ** A list sorted by volume is its own SVF order *)

Lemma isort_v_sorted_id : forall l, Sorted vle l -> isort_v l = l.
Proof.
  induction l as [|a l IH]; intros H; simpl; auto.
  inversion H as [|? ? Hs Hh]; subst. rewrite IH by auto.
  destruct l as [|b l]; simpl; auto.
  inversion Hh as [|? ? Hab]; subst. unfold vle in Hab.
  destruct (Nat.leb_spec (vol_of a) (vol_of b)); [auto|lia].
Qed.

Definition vr (r r' : req) : Prop := volume2 r <= volume2 r'.

Lemma sorted_combine : forall rs k,
  Sorted vr rs -> Sorted vle (combine (seq k (length rs)) rs).
Proof.
  induction rs as [|r rs IH]; intros k H; simpl; [constructor|].
  inversion H as [|? ? Hs Hh]; subst. constructor; [apply IH; auto|].
  destruct rs as [|r' rs]; simpl; constructor.
  inversion Hh; subst. unfold vle, vol_of. simpl. auto.
Qed.

(** ** The run in instance order *)

Definition dreq : req := (0, 1).

Section Run.

Variables (M : nat) (rs : list req).

Fixpoint prun (k : nat) : list (req * nat) * nat :=
  match k with
  | 0 => ([], 0)
  | S k' =>
      let g := prun k' in
      let r := nth k' rs dreq in
      let x := find_start M (fst g) r (snd g) (horizon_js (fst g) - snd g) in
      ((r, x) :: fst g, x)
  end.

Definition pstart (j : nat) : nat := snd (prun (S j)).

Lemma skipn_nth_cons : forall (l : list req) k, k < length l ->
  skipn k l = nth k l dreq :: skipn (S k) l.
Proof.
  induction l as [|a l IH]; intros [|k] Hk; simpl in *; try lia; auto.
  apply IH. lia.
Qed.

Lemma place_prun : forall m k, k + m = length rs ->
  place M (fst (prun k)) (snd (prun k)) (combine (seq k m) (skipn k rs))
  = map (fun j => ((j, nth j rs dreq), pstart j)) (seq k m).
Proof.
  induction m; intros k Hk; [reflexivity|].
  rewrite (skipn_nth_cons rs k) by lia. cbn [seq combine place map].
  f_equal. apply (IHm (S k)). lia.
Qed.

Lemma lookup_prun : forall m k i, k <= i < k + m ->
  lookup i (map (fun j => ((j, nth j rs dreq), pstart j)) (seq k m)) = pstart i.
Proof.
  induction m; intros k i Hi; [lia|]. simpl.
  destruct (Nat.eqb_spec k i) as [->|Hne]; auto. apply IHm. lia.
Qed.

Lemma svf_prun : Sorted vr rs -> svf M rs = map pstart (seq 0 (length rs)).
Proof.
  intros Hs. unfold svf, svf_placed, svf_order.
  rewrite isort_v_sorted_id by (apply sorted_combine; auto).
  change [] with (fst (prun 0)). change 0 with (snd (prun 0)) at 1.
  rewrite <- (skipn_O rs) at 2. rewrite place_prun by lia.
  apply map_ext_in. intros i Hi. apply in_seq in Hi. rewrite skipn_O in Hi. apply lookup_prun. lia.
Qed.

Lemma prun_usage : forall k t,
  usage_js (fst (prun k)) t = sum_upto k (fun i => req_usage (nth i rs dreq) (pstart i) t).
Proof.
  induction k; intros t; [reflexivity|].
  change (fst (prun (S k))) with ((nth k rs dreq, pstart k) :: fst (prun k)).
  rewrite usage_js_cons, IHk. simpl. lia.
Qed.

Lemma pstart_step : forall j, pstart j <= pstart (S j).
Proof. intros j. unfold pstart. cbn [prun fst snd]. apply find_start_ge. Qed.

Lemma pstart_mono : forall i j, i <= j -> pstart i <= pstart j.
Proof. intros i j H. induction H; auto. pose proof (pstart_step m). lia. Qed.

Lemma pstart_0 : pstart 0 = 0.
Proof. reflexivity. Qed.

Lemma find_start_le : forall pl r fuel t, find_start M pl r t fuel <= t + fuel.
Proof.
  induction fuel; intros t; simpl; [lia|].
  destruct (fits M pl r t); [lia|]. specialize (IHfuel (S t)). lia.
Qed.

Lemma prun_horizon : forall k h,
  (forall i, i < k -> pstart i + output (nth i rs dreq) <= h) -> horizon_js (fst (prun k)) <= h.
Proof.
  induction k; intros h H; simpl; [lia|].
  change (fst (prun k)) with (fst (prun k)). unfold finish. simpl.
  specialize (IHk h (fun i Hi => H i ltac:(lia))). specialize (H k ltac:(lia)).
  unfold pstart in H. simpl in H. lia.
Qed.

(** Once the earlier requests have finished and the previous one has started, a request
    starts. *)
Lemma pstart_le_end : forall k h,
  (forall i, i < k -> pstart i + output (nth i rs dreq) <= h) -> snd (prun k) <= h ->
  pstart k <= h.
Proof.
  intros k h H1 H2. pose proof (prun_horizon k h H1). unfold pstart. cbn [prun snd].
  pose proof (find_start_le (fst (prun k)) (nth k rs dreq) (horizon_js (fst (prun k)) - snd (prun k))
    (snd (prun k))). lia.
Qed.

Lemma prun_waiting : forall i0 m u, snd (prun i0) <= u < pstart (i0 + m) ->
  exists i, i0 <= i <= i0 + m /\ snd (prun i) <= u < pstart i.
Proof.
  intros i0 m. induction m; intros u Hu.
  - exists i0. rewrite Nat.add_0_r in Hu. split; [lia|auto].
  - destruct (Nat.lt_ge_cases u (pstart (i0 + m))) as [H|H].
    + destruct (IHm u ltac:(lia)) as [i [Hi Hw]]. exists i; split; [lia|auto].
    + rewrite Nat.add_succ_r in Hu. exists (S (i0 + m)). split; [lia|]. split; [exact H|apply Hu].
Qed.

Lemma prun_wait_fails : forall i u,
  snd (prun i) <= u < pstart i -> fits M (fst (prun i)) (nth i rs dreq) u = false.
Proof.
  intros i u Hu. unfold pstart in Hu. cbn [prun fst snd] in Hu.
  eapply find_start_fail; [|exact (proj2 Hu)]. lia.
Qed.

End Run.
