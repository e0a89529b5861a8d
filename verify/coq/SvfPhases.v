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
    gone.  Also proved: [svf_starts_nondecreasing], [svf_phase_earlier_done] (every earlier
    request has finished by last_prev j + Omax), [svf_phase_first_start] (group j's first
    request starts by then; this needs neither o >= 1 nor peak <= M) and
    [svf_phase_start_bound_abs] (the bound without the truncated subtraction).  The
    groups' volume order is [gvle] ([Sorted gvle groups]); a group may have count 0. *)

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

(** ** Bursts made of groups *)

(** The instance: [snd g] copies of [fst g], group after group. *)
Definition gfam (groups : list (req * nat)) : list req :=
  flat_map (fun g => repeat (fst g) (snd g)) groups.

(** c_0 + ... + c_(j-1): the position of group j's first request. *)
Definition before (groups : list (req * nat)) (j : nat) : nat := sumf snd (firstn j groups).

(** The largest output of the groups. *)
Definition omax (groups : list (req * nat)) : nat :=
  fold_right (fun g m => Nat.max (output (fst g)) m) 0 groups.

(** The SVF start of the request just before group j (0 when there is none). *)
Definition last_prev (M : nat) (groups : list (req * nat)) (j : nat) : nat :=
  match before groups j with
  | 0 => 0
  | S b => nth b (svf M (gfam groups)) 0
  end.

Definition gvle (g h : req * nat) : Prop := volume (fst g) <= volume (fst h).

Lemma ss_app : forall {A} (R : A -> A -> Prop) l1 l2,
  StronglySorted R l1 -> StronglySorted R l2 -> (forall a b, In a l1 -> In b l2 -> R a b) ->
  StronglySorted R (l1 ++ l2).
Proof.
  intros A R l1. induction l1 as [|a l1 IH]; intros l2 H1 H2 H; simpl; auto.
  inversion H1; subst. constructor.
  - apply IH; auto. intros; apply H; [right|]; auto.
  - apply Forall_app. split; auto. apply Forall_forall. intros; apply H; [left|]; auto.
Qed.

Lemma ss_repeat : forall {A} (R : A -> A -> Prop) a n, R a a -> StronglySorted R (repeat a n).
Proof.
  intros A R a n H. induction n; simpl; constructor; auto.
  apply Forall_forall. intros b Hb. apply repeat_spec in Hb. subst. auto.
Qed.

Lemma gfam_in : forall groups r, In r (gfam groups) -> exists g, In g groups /\ r = fst g.
Proof.
  intros groups r H. unfold gfam in H. apply in_flat_map in H. destruct H as [g [Hg Hr]].
  apply repeat_spec in Hr. eauto.
Qed.

Lemma gfam_sorted : forall groups, Sorted gvle groups -> Sorted vr (gfam groups).
Proof.
  intros groups H. apply StronglySorted_Sorted.
  apply Sorted_StronglySorted in H; [|unfold Relations_1.Transitive, gvle; intros; lia].
  induction groups as [|g gs IH]; [constructor|]. inversion H as [|? ? Hs Hf]; subst.
  unfold gfam. simpl. apply ss_app; [apply ss_repeat; unfold vr; lia|apply IH; auto|].
  intros a b Ha Hb. apply repeat_spec in Ha. subst. apply gfam_in in Hb. destruct Hb as [h [Hh ->]].
  rewrite Forall_forall in Hf. specialize (Hf h Hh). unfold gvle in Hf. unfold vr.
  rewrite !volume2_eq. lia.
Qed.

Lemma gfam_length : forall groups, length (gfam groups) = sumf snd groups.
Proof.
  induction groups as [|g gs IH]; [reflexivity|]. unfold gfam in *. simpl.
  rewrite app_length, repeat_length, IH. auto.
Qed.

Lemma before_le : forall groups j d, j < length groups ->
  before groups j + snd (nth j groups d) <= sumf snd groups.
Proof.
  induction groups as [|g gs IH]; intros j d Hj; simpl in *; [lia|].
  destruct j as [|j]; unfold before; simpl; [lia|].
  specialize (IH j d ltac:(lia)). unfold before in IH. lia.
Qed.

Lemma gfam_nth : forall groups j i d d', j < length groups -> i < snd (nth j groups d) ->
  nth (before groups j + i) (gfam groups) d' = fst (nth j groups d).
Proof.
  induction groups as [|g gs IH]; intros j i d d' Hj Hi; simpl in *; [lia|].
  unfold gfam. simpl. destruct j as [|j].
  - unfold before. simpl. rewrite app_nth1 by (rewrite repeat_length; lia).
    apply repeat_spec with (n := snd g). apply nth_In. rewrite repeat_length. lia.
  - unfold before. simpl. rewrite <- Nat.add_assoc.
    rewrite <- (repeat_length (fst g) (snd g)) at 1. rewrite app_nth2_plus.
    apply IH; [lia|auto].
Qed.

Lemma omax_ge : forall groups g, In g groups -> output (fst g) <= omax groups.
Proof.
  induction groups as [|h gs IH]; intros g H; simpl in *; [contradiction|].
  destruct H as [->|H]; [lia|]. specialize (IH g H). lia.
Qed.

Lemma gfam_output : forall groups r, In r (gfam groups) -> output r <= omax groups.
Proof.
  intros groups r H. destruct (gfam_in groups r H) as [g [Hg ->]]. apply omax_ge; auto.
Qed.

Lemma svf_gfam : forall M groups i, Sorted gvle groups -> i < length (gfam groups) ->
  nth i (svf M (gfam groups)) 0 = pstart M (gfam groups) i.
Proof.
  intros M groups i Hs Hi. rewrite (svf_prun M _ (gfam_sorted groups Hs)).
  rewrite (nth_indep _ 0 (pstart M (gfam groups) 0)) by (rewrite map_length, seq_length; lia).
  rewrite map_nth, seq_nth by lia. reflexivity.
Qed.

(** SVF's starts are nondecreasing in the instance order (the groups sorted by volume). *)
Theorem svf_starts_nondecreasing : forall M groups i i',
  Sorted gvle groups -> i <= i' < length (gfam groups) ->
  nth i (svf M (gfam groups)) 0 <= nth i' (svf M (gfam groups)) 0.
Proof.
  intros M groups i i' Hs Hi. rewrite !svf_gfam by (auto; lia). apply pstart_mono. lia.
Qed.

(** ** The phase boundary: the earlier groups are done by last_prev j + Omax *)

Lemma phase_before : forall M groups j, Sorted gvle groups -> j < length groups ->
  snd (prun M (gfam groups) (before groups j)) <= last_prev M groups j /\
  (forall i, i < before groups j ->
     pstart M (gfam groups) i + output (nth i (gfam groups) dreq) <= last_prev M groups j + omax groups).
Proof.
  intros M groups j Hs Hj.
  pose proof (before_le groups j ((0, 1), 0) Hj) as HBl. rewrite <- gfam_length in HBl.
  unfold last_prev. set (rs := gfam groups) in *.
  remember (before groups j) as B eqn:HB in *.
  assert (H2 : snd (prun M rs B) <= match B with 0 => 0 | S b => nth b (svf M rs) 0 end /\
    forall i, i < B -> pstart M rs i <= match B with 0 => 0 | S b => nth b (svf M rs) 0 end).
  { destruct B as [|b].
    - split; [simpl; lia|intros; lia].
    - assert (Hsvf : forall i, i < length rs -> nth i (svf M rs) 0 = pstart M rs i)
        by (intros; apply svf_gfam; auto).
      rewrite Hsvf by lia.
      split; [change (snd (prun M rs (S b))) with (pstart M rs b); lia|].
      intros i Hi. apply pstart_mono. lia. }
  destruct H2 as [H2 H2']. split; [exact H2|].
  intros i Hi. specialize (H2' i Hi). assert (Hin : i < length rs) by lia.
  pose proof (gfam_output groups (nth i rs dreq) (nth_In rs dreq Hin)). lia.
Qed.

(** Every request of the groups before j has finished by last_prev j + Omax. *)
Theorem svf_phase_earlier_done : forall M groups j i,
  Sorted gvle groups -> j < length groups -> i < before groups j ->
  nth i (svf M (gfam groups)) 0 + output (nth i (gfam groups) (0, 1))
  <= last_prev M groups j + omax groups.
Proof.
  intros M groups j i Hs Hj Hi.
  pose proof (before_le groups j ((0, 1), 0) Hj) as HBl. rewrite <- gfam_length in HBl.
  rewrite svf_gfam by (auto; lia). apply (proj2 (phase_before M groups j Hs Hj)). auto.
Qed.

(** The first request of a nonempty group j starts by last_prev j + Omax. *)
Theorem svf_phase_first_start : forall M groups j,
  Sorted gvle groups -> j < length groups -> 1 <= snd (nth j groups ((0, 1), 0)) ->
  nth (before groups j) (svf M (gfam groups)) 0 <= last_prev M groups j + omax groups.
Proof.
  intros M groups j Hs Hj Hc.
  pose proof (before_le groups j ((0, 1), 0) Hj) as HBl. rewrite <- gfam_length in HBl.
  rewrite svf_gfam by (auto; lia). destruct (phase_before M groups j Hs Hj) as [H1 H2].
  apply pstart_le_end; auto. lia.
Qed.

(** ** The rate bound for group j: its premises, stated once *)

Section PhaseBound.

Variables (M : nat) (groups : list (req * nat)) (j k : nat).
Hypothesis sorted_groups : Sorted gvle groups.
Hypothesis outputs_pos : forall g, In g groups -> 1 <= output (fst g).
Hypothesis peaks_fit : forall g, In g groups -> peak (fst g) <= M.
Hypothesis j_group : j < length groups.
Hypothesis k_member : k < snd (nth j groups ((0, 1), 0)).

(** a burst of groups in volume order: request k of group j has mu_j x <= o_j^2 k + 3 o_j L_j + mu_j (last_prev
    j + Omax), with truncated subtraction *)
Theorem svf_phase_start_bound :
  let r := fst (nth j groups ((0, 1), 0)) in
  let s := prompt r in
  let o := output r in
  (M / (s + o) * o + (M mod (s + o) - s))
    * (nth (before groups j + k) (svf M (gfam groups)) 0 - (last_prev M groups j + omax groups))
  <= o * o * k + 3 * o * (M mod (s + o) - s).
Proof using sorted_groups outputs_pos peaks_fit j_group k_member.
  pose proof outputs_pos as Ho. pose proof peaks_fit as Hp. pose proof j_group as Hj. cbv zeta.
  pose proof (before_le groups j ((0, 1), 0) Hj) as HBl. rewrite <- gfam_length in HBl.
  pose proof (gfam_nth groups j) as HF4.
  assert (Hgr : In (nth j groups ((0, 1), 0)) groups) by (apply nth_In; auto).
  set (rs := gfam groups) in *.
  assert (Hsvf : forall i, i < length rs -> nth i (svf M rs) 0 = pstart M rs i)
    by (intros; apply svf_gfam; auto).
  unfold last_prev. fold rs.
  remember (before groups j) as B eqn:HB in *.
  set (a := (match B with 0 => 0 | S b => nth b (svf M rs) 0 end) + omax groups).
  destruct (nth j groups ((0, 1), 0)) as [[s o] c] eqn:Hg. cbn [fst snd prompt output] in *.
  specialize (Ho _ Hgr). specialize (Hp _ Hgr). unfold peak in Hp. cbn [fst snd prompt output] in Ho, Hp.
  assert (HF4' : forall i, i < c -> nth (B + i) rs dreq = (s, o)).
  { intros i Hi. pose proof (HF4 i ((0, 1), 0) dreq Hj) as H. rewrite Hg in H. apply H. auto. }
  clear HF4.
  (* the requests before group j: started by the previous start, finished by a *)
  assert (HF2 : snd (prun M rs B) + omax groups <= a /\ forall i, i < B -> pstart M rs i + omax groups <= a).
  { unfold a. destruct B as [|b].
    - split; [simpl; lia|intros; lia].
    - rewrite Hsvf by lia. split; [change (snd (prun M rs (S b))) with (pstart M rs b); lia|].
      intros i Hi. pose proof (pstart_mono M rs i b ltac:(lia)). lia. }
  destruct HF2 as [HF2 HF2'].
  assert (HF1 : forall i, i < B -> pstart M rs i + output (nth i rs dreq) <= a).
  { intros i Hi. pose proof (HF2' i Hi).
    assert (Hin : i < length rs) by lia.
    pose proof (gfam_output groups (nth i rs dreq) (nth_In rs dreq Hin)). lia. }
  assert (HF3 : pstart M rs B <= a) by (apply pstart_le_end; auto; lia).
  clearbody a.
  rewrite Hsvf by lia.
  destruct k as [|k'].
  { rewrite Nat.add_0_r. replace (pstart M rs B - a) with 0 by lia. rewrite !Nat.mul_0_r. apply Nat.le_0_l. }
  assert (Hrr : M mod (s + o) < s + o) by (apply Nat.mod_upper_bound; lia).
  assert (Hq1 : 1 <= M / (s + o)) by (apply Nat.div_le_lower_bound; lia).
  set (x := fun i => pstart M rs (B + i)).
  apply (running_count_bound o (M / (s + o)) (M mod (s + o) - s) (S k') x a (pstart M rs (B + S k') - a)).
  - remember (M mod (s + o)) as rr. lia.
  - exact Hq1.
  - exists 0. split; [lia|]. unfold x. rewrite Nat.add_0_r. exact HF3.
  - intros u Hu.
    destruct (prun_waiting M rs B (S k') u ltac:(lia)) as [i [Hi Hw]].
    assert (Hfail := prun_wait_fails M rs i u Hw).
    replace i with (B + (i - B)) in Hfail by lia. rewrite HF4' in Hfail by lia.
    assert (Hbefore : forall n, n < i - B -> x n <= u).
    { intros n Hn. destruct i as [|i1]; [lia|]. change (snd (prun M rs (S i1))) with (pstart M rs i1) in Hw.
      unfold x. pose proof (pstart_mono M rs (B + n) i1 ltac:(lia)). lia. }
    assert (Husage : forall t, u < t ->
      usage_js (fst (prun M rs (B + (i - B)))) t = sum_upto (i - B) (fun n => req_usage (s, o) (x n) t)).
    { intros t Ht. rewrite prun_usage, sum_upto_split.
      rewrite (sum_upto_ext B _ (fun _ => 0)).
      - rewrite sum_upto_const, Nat.mul_0_r, Nat.add_0_l. apply sum_upto_ext. intros n Hn. rewrite HF4' by lia. reflexivity.
      - intros n Hn. apply req_usage_zero_after. pose proof (HF1 n Hn). lia. }
    pose proof (check_fail_running M (s, o) _ x (i - B) u ltac:(simpl; lia) ltac:(unfold peak; simpl; lia)
      Hbefore Husage Hfail) as Hc.
    change (peak (s, o)) with (s + o) in Hc. change (output (s, o)) with o in Hc.
    change (prompt (s, o)) with s in Hc.
    assert (Hafter : forall n, i - B <= n < S k' -> u < x n).
    { intros n Hn. unfold x. pose proof (pstart_mono M rs i (B + n) ltac:(lia)). lia. }
    destruct (counts_prefix o (M mod (s + o) - s) x (i - B) (S k') u ltac:(lia) Hafter) as [E1 E2].
    unfold bonus in *. rewrite E1, E2. exact Hc.
Qed.

(** a burst of groups (type, count) in volume order, peaks <= M, o >= 1: request k of group j has mu_j x <=
    o_j^2 k + 3 o_j L_j + mu_j (last_prev j + Omax), mu_j = q_j o_j + L_j (svf.fluid.k2..k4) *)
Theorem svf_phase_start_bound_abs :
  let r := fst (nth j groups ((0, 1), 0)) in
  let s := prompt r in
  let o := output r in
  (M / (s + o) * o + (M mod (s + o) - s)) * nth (before groups j + k) (svf M (gfam groups)) 0
  <= o * o * k + 3 * o * (M mod (s + o) - s)
     + (M / (s + o) * o + (M mod (s + o) - s)) * (last_prev M groups j + omax groups).
Proof using sorted_groups outputs_pos peaks_fit j_group k_member.
  intros r s o. pose proof svf_phase_start_bound as H. cbv zeta in H. fold r s o in H.
  set (mu := M / (s + o) * o + (M mod (s + o) - s)) in *.
  set (x := nth (before groups j + k) (svf M (gfam groups)) 0) in *.
  set (a := last_prev M groups j + omax groups) in *.
  assert (Hx : mu * x <= mu * (x - a) + mu * a)
    by (rewrite <- Nat.mul_add_distr_l; apply Nat.mul_le_mono_l; lia).
  lia.
Qed.

End PhaseBound.

(** ** Sanity checks on small instances *)

(** M = 6, three (0, 2) (volume 3) then two (1, 3) (volume 9). *)
Definition ex_groups : list (req * nat) := [((0, 2), 3); ((1, 3), 2)].

Example ex_gfam : gfam ex_groups = [(0, 2); (0, 2); (0, 2); (1, 3); (1, 3)] := eq_refl.
Example ex_sorted : Sorted gvle ex_groups.
Proof. repeat constructor; unfold gvle; vm_compute; lia. Qed.
Example ex_svf6 : svf 6 (gfam ex_groups) = [0; 0; 0; 2; 4] := eq_refl.
Example ex_svf12 : svf 12 (gfam ex_groups) = [0; 0; 0; 0; 0] := eq_refl.
Example ex_params : (before ex_groups 0, before ex_groups 1, before ex_groups 2, omax ex_groups,
  last_prev 6 ex_groups 0, last_prev 6 ex_groups 1) = (0, 3, 5, 3, 0, 0) := eq_refl.
(** The bound for group 1 (s, o) = (1, 3), M = 6: q = 1, L = 2 - 1 = 1; k = 1 starts at 4:
    (1 * 3 + 1) * (4 - (0 + 3)) = 4 <= 3 * 3 * 1 + 3 * 3 * 1 = 18. *)
Example ex_bound : (6 / 4 * 3 + (6 mod 4 - 1)) * (nth (before ex_groups 1 + 1) (svf 6 (gfam ex_groups)) 0
  - (last_prev 6 ex_groups 1 + omax ex_groups)) = 4 := eq_refl.

(** M = 7, six (0, 2) then eight (1, 3): group 1 waits for the previous start 2. *)
Definition ex_groups2 : list (req * nat) := [((0, 2), 6); ((1, 3), 8)].
Example ex2_svf : svf 7 (gfam ex_groups2) = [0; 0; 0; 1; 2; 2; 2; 4; 5; 7; 8; 10; 11; 13] := eq_refl.
Example ex2_last_prev : (last_prev 7 ex_groups2 1, omax ex_groups2) = (2, 3) := eq_refl.
