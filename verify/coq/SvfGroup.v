(** * SVF on a single group of identical requests: the rate bound and 2M/(M + 2).

    n identical requests (s, o) arrive at 0; M >= 2 (s + o); write M = q (s + o) + r with
    0 <= r < s + o (q = M / (s + o) >= 2, r = M mod (s + o)) and L = r - s (0 when r <= s).
    This file proves, for every n, s, o >= 1 and M:

    - [svf_group_start_bound]: the k-th start of the Coq SVF (Svf.v) satisfies
        (q o + L) x_k <= o^2 k + 3 o L,
      so SVF starts requests at a rate theta with theta o >= q + L/o (asymptotically);
    - [svf_group_competitive]: for every feasible schedule xs,
        (M + 2) TEL(SVF) <= 2 M TEL(xs) + (3 (2s + o + 1) L + (M + 2) o) n,
      so the limit ratio of the family (n -> infinity) is at most 2M/(M + 2) < 2.

    The counting (SvfCount.v): at every decision while a request waits, the forward check
    failed, so at least q requests run, and q + 1 when one of them has at most L steps
    left ([check_fail_running]): a candidate started then stays under M at every step,
    q peaks and s + (at most L) = r before that completion, q - 1 peaks and its own peak
    after it.  The algebra (q o + L)(2s + o + 1) >= o (M + 2) is [rate_algebra]; with
    Prop. 3.1 ([prop31_pairmin]) it gives the ratio.  This is the single-group bound of
    theory/svf_fluid_classes.py (the ledger rows svf.fluid.k1 to svf.fluid.k4). *)

From Coq Require Import Arith Lia List Bool Permutation.
From GeoSched Require Import Model Svf SvfFacts Prop31 LemmaA2 SvfCount.
Import ListNotations.

(** ** The placement of identical requests, one after the other *)

Section Group.

Variables (M : nat) (rq : req).

Fixpoint group_run (k : nat) : list (req * nat) * nat :=
  match k with
  | 0 => ([], 0)
  | S k' =>
      let g := group_run k' in
      let x := find_start M (fst g) rq (snd g) (horizon_js (fst g) - snd g) in
      ((rq, x) :: fst g, x)
  end.

(** The start of the j-th request (from 0). *)
Definition gstart (j : nat) : nat := snd (group_run (S j)).

Lemma combine_seq_repeat_in : forall m k b,
  In b (combine (seq k m) (repeat rq m)) -> snd b = rq.
Proof.
  induction m; intros k b H; simpl in H; [contradiction|].
  destruct H as [<-|H]; [auto|eapply IHm; eauto].
Qed.

Lemma svf_order_repeat : forall n, svf_order (repeat rq n) = combine (seq 0 n) (repeat rq n).
Proof.
  intros n. unfold svf_order. rewrite repeat_length.
  apply (isort_v_const (volume2 rq)). intros b Hb. unfold vol_of.
  rewrite (combine_seq_repeat_in n 0 b Hb). auto.
Qed.

Lemma place_group : forall m k,
  place M (fst (group_run k)) (snd (group_run k)) (combine (seq k m) (repeat rq m))
  = map (fun j => ((j, rq), gstart j)) (seq k m).
Proof.
  induction m; intros k; simpl; auto. f_equal. apply (IHm (S k)).
Qed.

Lemma svf_repeat : forall n, svf M (repeat rq n) = map gstart (seq 0 n).
Proof.
  intros n. unfold svf, svf_placed. rewrite svf_order_repeat, repeat_length.
  change [] with (fst (group_run 0)). change 0 with (snd (group_run 0)) at 1.
  rewrite place_group. apply map_ext_in. intros i Hi. apply in_seq in Hi. apply lookup_map_seq. lia.
Qed.

Lemma group_usage : forall k t,
  usage_js (fst (group_run k)) t = sum_upto k (fun j => req_usage rq (gstart j) t).
Proof.
  induction k; intros t; [reflexivity|].
  change (fst (group_run (S k))) with ((rq, gstart k) :: fst (group_run k)).
  rewrite usage_js_cons, IHk. simpl. lia.
Qed.

Lemma gstart_step : forall j, gstart j <= gstart (S j).
Proof.
  intros j. unfold gstart. cbn [group_run fst snd]. apply find_start_ge.
Qed.

Lemma gstart_mono : forall i j, i <= j -> gstart i <= gstart j.
Proof.
  intros i j H. induction H; auto. pose proof (gstart_step m). lia.
Qed.

Lemma gstart_0 : gstart 0 = 0.
Proof. reflexivity. Qed.

(** While request j waits (from the previous start to its own), its check fails. *)
Lemma group_wait_fails : forall j u,
  snd (group_run j) <= u < gstart j -> fits M (fst (group_run j)) rq u = false.
Proof.
  intros j u Hu. unfold gstart in Hu. cbn [group_run fst snd] in Hu.
  eapply find_start_fail; [|exact (proj2 Hu)]. lia.
Qed.

Lemma waiting_phase : forall k u, u < gstart k ->
  exists j, j <= k /\ snd (group_run j) <= u < gstart j.
Proof.
  induction k; intros u Hu.
  - exists 0. split; [lia|]. simpl. lia.
  - destruct (Nat.lt_ge_cases u (gstart k)) as [H|H].
    + destruct (IHk u H) as [j [Hj Hw]]. exists j; split; [lia|auto].
    + exists (S k). split; [lia|]. split; auto.
Qed.

Lemma group_run_snd_le : forall j u, snd (group_run j) <= u -> forall i, i < j -> gstart i <= u.
Proof.
  intros j u Hu i Hi. destruct j as [|j]; [lia|].
  change (snd (group_run (S j))) with (gstart j) in Hu. pose proof (gstart_mono i j ltac:(lia)). lia.
Qed.

End Group.

(** ** A failed check: at least q run, and q + 1 when one is nearly done *)

Lemma usage_le_runs : forall (rq : req) xi u t',
  xi <= u -> u < t' ->
  req_usage rq xi t' <= peak rq * b2n (runs (output rq) (fun _ => xi) 0 u && (t' <=? xi + output rq)).
Proof.
  intros rq xi u t' H1 H2. unfold req_usage, runs, peak, b2n.
  destruct (Nat.ltb_spec xi t'), (Nat.leb_spec t' (xi + output rq)); cbn [andb];
    destruct (Nat.leb_spec xi u), (Nat.ltb_spec u (xi + output rq)); cbn [andb]; lia.
Qed.

Lemma check_fail_running : forall M rq pl (x : nat -> nat) j u,
  1 <= output rq -> peak rq <= M ->
  (forall i, i < j -> x i <= u) ->
  (forall t, u < t -> usage_js pl t = sum_upto j (fun i => req_usage rq (x i) t)) ->
  fits M pl rq u = false ->
  M / peak rq + b2n (bonus (output rq) (M mod peak rq - prompt rq) j x u) <= running (output rq) j x u.
Proof.
  intros M rq pl x j u Ho Hp Hx Hu Hf.
  assert (HP : peak rq = prompt rq + output rq) by reflexivity.
  set (s := prompt rq) in *. set (o := output rq) in *. set (P := peak rq) in *.
  set (q := M / P). set (rr := M mod P). set (L := rr - s).
  assert (HM : M = P * q + rr) by (apply Nat.div_mod; lia).
  assert (Hrr : rr < P) by (apply Nat.mod_upper_bound; lia).
  unfold fits in Hf. apply forallb_false_ex in Hf. destruct Hf as [t' [Hin Hle]].
  apply in_seq in Hin. apply Nat.leb_gt in Hle. fold o in Hin. rewrite Hu in Hle by lia.
  (* the usage at t' counts only the requests running after u that are still there at t' *)
  set (R' := sum_upto j (fun i => b2n (runs o x i u && (t' <=? x i + o)))).
  assert (HU : sum_upto j (fun i => req_usage rq (x i) t') <= P * R').
  { unfold R'. rewrite <- sum_upto_mul. apply sum_upto_le. intros i Hi.
    pose proof (usage_le_runs rq (x i) u t' (Hx i Hi) ltac:(lia)) as H. unfold runs in *. exact H. }
  assert (HR : R' <= running o j x u).
  { unfold R', running. apply sum_upto_le. intros i _. unfold b2n.
    destruct (runs o x i u), (t' <=? x i + o); simpl; lia. }
  set (Run := running o j x u) in *.
  set (U := sum_upto j (fun i => req_usage rq (x i) t')) in *.
  (* fewer than q running: the candidate fits *)
  assert (Hq : q <= R').
  { destruct (Nat.le_gt_cases q R') as [|Hlt]; auto.
    assert (P * (R' + 1) <= P * q) by (apply Nat.mul_le_mono_l; lia). nia. }
  unfold bonus. destruct (Nat.leb_spec 1 (nearly o L j x u)) as [Hn|Hn]; simpl; [|lia].
  destruct (Nat.le_gt_cases (q + 1) Run) as [|Hlt]; auto. exfalso.
  unfold nearly in Hn. apply sum_upto_pos in Hn. destruct Hn as [i0 [Hi0 Hnd]].
  unfold b2n, nearly_done in Hnd.
  destruct (runs o x i0 u) eqn:Hr0; simpl in Hnd; [|lia].
  destruct (Nat.leb_spec (x i0 + o) (u + L)) as [Hnear|]; simpl in Hnd; [|lia].
  destruct (Nat.le_gt_cases t' (u + L)) as [Hearly|Hlate].
  - (* before that completion: q peaks, and the candidate holds s + (t' - u) <= r *)
    assert (P * R' <= P * q) by (apply Nat.mul_le_mono_l; lia). unfold L in Hearly. lia.
  - (* after it: one of the q has left *)
    assert (HR1 : R' + 1 <= Run).
    { unfold R', Run, running. apply (sum_upto_lt_at j _ _ i0); auto.
      - intros i _. unfold b2n. destruct (runs o x i u), (t' <=? x i + o); simpl; lia.
      - rewrite Hr0. destruct (Nat.leb_spec t' (x i0 + o)); simpl; lia. }
    assert (P * (R' + 1) <= P * q) by (apply Nat.mul_le_mono_l; lia). nia.
Qed.

(** ** The rate bound for the Coq SVF *)

(** The requests placed after j do not run yet at a decision u before j's start. *)
Lemma counts_prefix : forall o L (x : nat -> nat) j k u,
  j <= k -> (forall i, j <= i < k -> u < x i) ->
  running o k x u = running o j x u /\ nearly o L k x u = nearly o L j x u.
Proof.
  intros o L x j k u Hjk H. unfold running, nearly. split; apply sum_upto_prefix; auto;
    intros i Hi; specialize (H i Hi); unfold b2n, nearly_done, runs;
    destruct (Nat.leb_spec (x i) u); simpl; lia.
Qed.

Lemma group_decisions : forall M rq k u,
  1 <= output rq -> peak rq <= M -> u < gstart M rq k ->
  M / peak rq + b2n (bonus (output rq) (M mod peak rq - prompt rq) k (gstart M rq) u)
  <= running (output rq) k (gstart M rq) u.
Proof.
  intros M rq k u Ho Hp Hu.
  destruct (waiting_phase M rq k u Hu) as [j [Hjk Hw]].
  assert (Hafter : forall i, j <= i < k -> u < gstart M rq i).
  { intros i Hi. pose proof (gstart_mono M rq j i ltac:(lia)). lia. }
  destruct (counts_prefix (output rq) (M mod peak rq - prompt rq) (gstart M rq) j k u Hjk Hafter)
    as [E1 E2].
  unfold bonus. rewrite E1, E2. fold (bonus (output rq) (M mod peak rq - prompt rq) j (gstart M rq) u).
  apply (check_fail_running M rq (fst (group_run M rq j))); auto.
  - intros i Hi. apply (group_run_snd_le M rq j); [lia|auto].
  - intros t _. apply group_usage.
  - apply group_wait_fails; auto.
Qed.

(** n identical (s, o), s + o <= M, M = q(s+o) + r, L = r - s: the k-th SVF start has (q o + L) x_k <= o^2 k + 3
    o L *)
Theorem svf_group_start_bound : forall M s o n k,
  1 <= o -> s + o <= M -> k < n ->
  (M / (s + o) * o + (M mod (s + o) - s)) * nth k (svf M (repeat (s, o) n)) 0
  <= o * o * k + 3 * o * (M mod (s + o) - s).
Proof.
  intros M s o n k Ho Hp Hk.
  rewrite svf_repeat, (nth_indep _ 0 (gstart M (s, o) 0)) by (rewrite map_length, seq_length; lia).
  rewrite map_nth, seq_nth by lia. simpl (0 + k).
  destruct k as [|k]; [rewrite gstart_0; nia|].
  assert (Hrr : M mod (s + o) < s + o) by (apply Nat.mod_upper_bound; lia).
  assert (Hq1 : 1 <= M / (s + o)) by (apply Nat.div_le_lower_bound; lia).
  set (rq := (s, o)). change s with (prompt rq). change o with (output rq).
  change (prompt rq + output rq) with (peak rq) in *.
  apply (running_count_bound (output rq) (M / peak rq) _ (S k) (gstart M rq) 0).
  - unfold peak; simpl. remember (M mod (s + o)) as rr. lia.
  - exact Hq1.
  - exists 0. split; [lia|]. rewrite gstart_0. lia.
  - intros u Hu. apply group_decisions; [unfold rq; simpl; lia|unfold peak, rq; simpl; lia|lia].
Qed.

(** ** The total latency against Prop. 3.1 *)

Lemma tel_repeat_starts : forall (rq : req) g n k,
  sumf finish (combine (repeat rq n) (map g (seq k n))) = sum_upto n (fun i => g (k + i) + output rq).
Proof.
  intros rq g n. induction n; intros k; [reflexivity|].
  rewrite sum_upto_shift. cbn [repeat seq map combine sumf]. rewrite IHn. unfold finish. simpl. rewrite Nat.add_0_r.
  f_equal. apply sum_upto_ext. intros i _. rewrite Nat.add_succ_r. reflexivity.
Qed.

Lemma sumf_repeat : forall (f : req -> nat) rq n, sumf f (repeat rq n) = n * f rq.
Proof. intros f rq n. induction n; simpl; [auto|rewrite IHn; lia]. Qed.

Lemma pairmin_repeat : forall rq n, 2 * pairmin (repeat rq n) = volume rq * (n * (n + 1)).
Proof.
  intros rq n. induction n; simpl; [lia|].
  rewrite sumf_repeat, Nat.min_id. nia.
Qed.

Lemma sum_upto_id : forall n, 2 * sum_upto n (fun i => i) = n * (n - 1).
Proof.
  induction n; [reflexivity|]. cbn [sum_upto]. rewrite Nat.mul_add_distr_l, IHn. destruct n; simpl; nia.
Qed.

(** (q o + L)(2s + o + 1) >= o (M + 2) for M = q (s + o) + r, 0 <= r < s + o, q >= 2, L = r - s. *)
Lemma rate_algebra : forall s o q rr,
  2 <= q -> rr < s + o ->
  o * ((s + o) * q + rr + 2) <= (q * o + (rr - s)) * (2 * s + o + 1).
Proof.
  intros s o q rr Hq Hrr. destruct (Nat.le_gt_cases rr s) as [Hle|Hgt].
  - replace (rr - s) with 0 by lia. rewrite Nat.add_0_r.
    assert (rr + 2 <= q * (s + 1)) by nia. nia.
  - set (L := rr - s). replace rr with (s + L) by (unfold L; lia).
    assert (L < o) by (unfold L; lia). nia.
Qed.

(** the same with 2(s + o) <= M, S feasible: (M + 2) TEL(SVF) <= 2M TEL(S) + (3(2s+o+1)L + (M+2)o) n, so the
    limit ratio is <= 2M/(M+2) (svf.fluid.k1) *)
Theorem svf_group_competitive : forall M s o n xs,
  1 <= o -> 2 * (s + o) <= M -> feasible M (repeat (s, o) n) xs ->
  (M + 2) * tel (repeat (s, o) n) (svf M (repeat (s, o) n))
  <= 2 * M * tel (repeat (s, o) n) xs + (3 * (2 * s + o + 1) * (M mod (s + o) - s) + (M + 2) * o) * n.
Proof.
  intros M s o n xs Ho HM Hf.
  set (q := M / (s + o)). set (rr := M mod (s + o)). set (L := rr - s).
  assert (HMd : M = (s + o) * q + rr) by (apply Nat.div_mod; lia).
  assert (Hrr : rr < s + o) by (apply Nat.mod_upper_bound; lia).
  assert (Hq : 2 <= q) by (unfold q; apply Nat.div_le_lower_bound; lia).
  set (mu := q * o + L).
  (* the starts: 2 mu sum_k x_k <= o^2 n (n - 1) + 6 o L n *)
  set (A := sum_upto n (fun i => gstart M (s, o) i)).
  assert (HA : 2 * mu * A <= o * o * (n * (n - 1)) + 6 * o * L * n).
  { assert (H : mu * A <= sum_upto n (fun i => o * o * i + 3 * o * L)).
    { unfold A. rewrite <- sum_upto_mul. apply sum_upto_le. intros i Hi.
      pose proof (svf_group_start_bound M s o n i Ho ltac:(lia) Hi) as B.
      rewrite svf_repeat, (nth_indep _ 0 (gstart M (s, o) 0)) in B by (rewrite map_length, seq_length; lia).
      rewrite map_nth, seq_nth in B by lia. exact B. }
    rewrite sum_upto_add, sum_upto_mul, sum_upto_const in H.
    pose proof (sum_upto_id n). nia. }
  (* TEL(SVF) = A + n o; Prop. 3.1: 4 M TEL(xs) >= 4 pairmin = o (2s + o + 1) n (n + 1) *)
  assert (Htel : tel (repeat (s, o) n) (svf M (repeat (s, o) n)) = A + n * o).
  { unfold tel, tel_js. rewrite svf_repeat, tel_repeat_starts, sum_upto_add, sum_upto_const. reflexivity. }
  pose proof (prop31_pairmin M _ xs Hf) as Hopt.
  pose proof (pairmin_repeat (s, o) n) as Hpm.
  assert (Hv : 2 * volume (s, o) = o * (2 * s + o + 1)) by (rewrite <- volume2_eq; unfold volume2; simpl; nia).
  rewrite Htel. set (T := tel (repeat (s, o) n) xs) in *. set (P := pairmin (repeat (s, o) n)) in *.
  assert (H4 : o * (2 * s + o + 1) * (n * (n + 1)) <= 4 * M * T).
  { rewrite <- Hv. replace (2 * volume (s, o) * (n * (n + 1))) with (2 * (volume (s, o) * (n * (n + 1)))) by ring.
    rewrite <- Hpm. change (2 * (2 * P) <= 4 * M * T). clear -Hopt. lia. }
  (* cancel mu: 2 (M + 2) A <= (2s + o + 1)(o n (n - 1) + 6 L n) *)
  assert (Halg : o * (M + 2) <= mu * (2 * s + o + 1)) by (rewrite HMd; apply rate_algebra; lia).
  assert (Hqo : 1 * 1 <= q * o) by (apply Nat.mul_le_mono; lia).
  assert (Hmu : 0 < mu) by (unfold mu; lia).
  set (X := n * (n - 1)) in *. set (Y := n * (n + 1)) in *. set (W := o * X + 6 * L * n).
  assert (HA' : 2 * mu * A <= o * W) by (unfold W; rewrite Nat.mul_add_distr_l; lia).
  assert (Hcancel : 2 * (M + 2) * A <= (2 * s + o + 1) * W).
  { apply (Nat.mul_le_mono_pos_l _ _ mu Hmu).
    replace (mu * (2 * (M + 2) * A)) with ((M + 2) * (2 * mu * A)) by ring.
    apply Nat.le_trans with ((M + 2) * (o * W)); [apply Nat.mul_le_mono_l; exact HA'|].
    replace ((M + 2) * (o * W)) with ((o * (M + 2)) * W) by ring.
    replace (mu * ((2 * s + o + 1) * W)) with ((mu * (2 * s + o + 1)) * W) by ring.
    apply Nat.mul_le_mono_r. exact Halg. }
  assert (HXY : o * (2 * s + o + 1) * X <= o * (2 * s + o + 1) * Y)
    by (apply Nat.mul_le_mono_l; unfold X, Y; apply Nat.mul_le_mono_l; lia).
  assert (HW : (2 * s + o + 1) * W = o * (2 * s + o + 1) * X + 2 * (3 * (2 * s + o + 1) * L * n))
    by (unfold W; ring).
  fold L. clear -Hcancel HXY HW H4.
  replace ((3 * (2 * s + o + 1) * L + (M + 2) * o) * n) with (3 * (2 * s + o + 1) * L * n + (M + 2) * o * n)
    by ring.
  replace ((M + 2) * (A + n * o)) with ((M + 2) * A + (M + 2) * o * n) by ring.
  lia.
Qed.
