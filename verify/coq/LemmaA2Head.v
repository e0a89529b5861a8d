(** * Lemma A.2 with the head's own peak, and the bounds it gives.

    Kong et al.'s Lemma A.2 charges every step at which a request waits with M - P (P the
    largest peak).  Here each such step is charged M minus the peak of the request that is
    blocked at it: the head of the queue, i.e. the first request in the SVF order that has not
    started by that step ([head_at]).

    - [lemmaA2_blocked_head]: if h is the head at step t, then active_peaks(t) + p_h > M;
    - [svf_head_charge_pairmin]: summed over the steps each request waits, the charges
      M - p_head are at most sum over the pairs (j started before k) of p_j o_j, hence at
      most 2 * pairmin rs (= 2 sum_k P_k, Prop31.v);
    - [svf_head_charge_competitive]: so at most 2 M TEL(S) for every feasible schedule S;
    - [svf_waiting_peak_bound]: if every request that SVF starts after step 0 has peak
      <= Pw, then (M - Pw) TEL(SVF) <= 2 M TEL(S) + (M - Pw) sum o for every feasible S:
      the largest peak P of Thm. 3.2 is replaced by the largest peak among the requests
      that wait.

    The class bound with prompt-heavy requests and the sharper form of Thm. 3.2 are in
    SvfSharp.v. *)

From Coq Require Import Arith Lia List Bool Permutation Sorting.
From GeoSched Require Import Model Svf SvfFacts Prop31 LemmaA2 Thm32.
Import ListNotations.

(** ** The head of the queue and the charge of a step *)

(** The head at step t: the first entry of [js] (the SVF order) not started by t. *)
Definition head_at (js : list (req * nat)) (t : nat) : option (req * nat) :=
  find (fun e => Nat.ltb t (snd e)) js.

(** A step is charged M minus its head's peak; a step at which nobody waits is charged 0. *)
Definition head_charge (M : nat) (js : list (req * nat)) (t : nat) : nat :=
  match head_at js t with
  | Some h => M - peak (fst h)
  | None => 0
  end.

(** The head waits at t, and everything before it in the order has started by t. *)
Lemma head_at_spec : forall js t h, head_at js t = Some h ->
  exists l1 l2, js = l1 ++ h :: l2 /\ t < snd h /\ forall e, In e l1 -> snd e <= t.
Proof.
  induction js as [|a js IH]; intros t h H; [discriminate|]. unfold head_at in *. cbn [find] in H.
  destruct (Nat.ltb_spec t (snd a)) as [Ht|Ht].
  - injection H as <-. exists [], js. repeat split; auto. intros e [].
  - destruct (IH t h H) as [l1 [l2 [-> [Hh Hl]]]]. exists (a :: l1), l2.
    repeat split; auto. intros e [<-|He]; auto.
Qed.

(** Some entry waits at t exactly when there is a head at t. *)
Lemma head_at_some : forall js t e, In e js -> t < snd e -> exists h, head_at js t = Some h.
Proof.
  induction js as [|a js IH]; intros t e He Ht; [contradiction|]. unfold head_at in *. cbn [find].
  destruct (Nat.ltb_spec t (snd a)); [eauto|].
  destruct He as [<-|He]; [lia|]. eapply IH; eauto.
Qed.

(** ** Lemma A.2 for the head, by induction over the placement *)

Lemma place_a2_first : forall M todo pl lo t h,
  (forall e, In e pl -> snd e <= lo) -> lo <= t ->
  head_at (map strip (place M pl lo todo)) t = Some h ->
  M < active_peaks_js (pl ++ map strip (place M pl lo todo)) t + peak (fst h).
Proof.
  intros M todo. induction todo as [|a rest IH]; intros pl lo t h Hpl Hlo Hh; [discriminate|].
  cbn [place map] in *. set (x := find_start M pl (snd a) lo (horizon_js pl - lo)) in *.
  pose proof (find_start_ge M pl (snd a) (horizon_js pl - lo) lo) as Hx.
  unfold head_at in Hh. cbn [find] in Hh. unfold strip at 1 in Hh. cbn [fst snd] in Hh.
  destruct (Nat.ltb_spec t x) as [Htx|Htx].
  - injection Hh as <-. cbn [fst].
    assert (Hf : fits M pl (snd a) t = false) by (eapply find_start_fail; eauto).
    apply check_fail_bound in Hf; [|intros e' He'; specialize (Hpl e' He'); lia].
    rewrite active_peaks_js_app. unfold strip. cbn [fst snd]. lia.
  - assert (Hm : M < active_peaks_js (((snd a, x) :: pl) ++ map strip (place M ((snd a, x) :: pl) x rest)) t
                     + peak (fst h)).
    { apply IH; auto. intros e' [<-|He']; simpl; auto. specialize (Hpl e' He'). lia. }
    rewrite active_peaks_js_app in *. cbn [map app] in *.
    rewrite active_peaks_js_cons in *. unfold strip in *; simpl fst in *; simpl snd in *. lia.
Qed.

Lemma active_peaks_svf_js : forall M rs t,
  active_peaks rs (svf M rs) t = active_peaks_js (svf_js M rs) t.
Proof.
  intros M rs t. unfold active_peaks, active_peaks_js. apply sumf_perm, svf_js_perm.
Qed.

(** h = [head_at (svf_js M rs) t], the first request in SVF's order not started by t: active_peaks(t) + p_h > M;
    no hypothesis (svf.lemmaA2.head) *)
Theorem lemmaA2_blocked_head : forall M rs t h,
  head_at (svf_js M rs) t = Some h ->
  M < active_peaks rs (svf M rs) t + peak (fst h).
Proof.
  intros M rs t h Hh. rewrite active_peaks_svf_js.
  pose proof (place_a2_first M (svf_order rs) [] 0 t h) as H.
  apply H; auto; [intros ? []|lia].
Qed.

(** The charge of a step is at most the active peak mass. *)
Lemma head_charge_le : forall M rs t,
  head_charge M (svf_js M rs) t <= active_peaks_js (svf_js M rs) t.
Proof.
  intros M rs t. unfold head_charge. destruct (head_at (svf_js M rs) t) as [h|] eqn:E; [|lia].
  pose proof (lemmaA2_blocked_head M rs t h E) as H. rewrite active_peaks_svf_js in H. lia.
Qed.

(** ** Summed over the waiting steps *)

(** [before_po e b]: p_b o_b when b starts before e, else 0. *)
Definition before_po (e b : req * nat) : nat :=
  if Nat.ltb (snd b) (snd e) then peak (fst b) * output (fst b) else 0.

(** The charges of the steps before e starts are at most sum_{b before e} p_b o_b. *)
Lemma head_wait_bound : forall M rs e,
  sum_upto (snd e) (head_charge M (svf_js M rs)) <= sumf (before_po e) (svf_js M rs).
Proof.
  intros M rs e. set (sl := svf_js M rs).
  eapply Nat.le_trans; [apply sum_upto_le; intros t _; apply head_charge_le|].
  fold sl. unfold active_peaks_js. rewrite sum_upto_sumf.
  apply sumf_le. intros b _. apply active_time_po.
Qed.

(** p o <= 2 v, so before_po <= 2 before. *)
Lemma peak_output_le_volume2 : forall r, peak r * output r <= volume2 r.
Proof. intros r. unfold peak, volume2. nia. Qed.

Lemma before_po_le : forall e b, before_po e b <= 2 * before e b.
Proof.
  intros e b. unfold before_po, before. destruct (Nat.ltb (snd b) (snd e)); [|lia].
  rewrite <- volume2_eq. apply peak_output_le_volume2.
Qed.

(** each step t charged M - p_head(t) (0 if nobody waits), summed over the steps each request waits: <= sum over
    the pairs (j started before k) of p_j o_j *)
Theorem svf_head_charge_po : forall M rs,
  sumf (fun e => sum_upto (snd e) (head_charge M (svf_js M rs))) (svf_js M rs)
  <= dsum before_po (svf_js M rs).
Proof. intros M rs. unfold dsum. apply sumf_le. intros e _. apply head_wait_bound. Qed.

(** the same charges <= 2 pairmin rs *)
Theorem svf_head_charge_pairmin : forall M rs,
  sumf (fun e => sum_upto (snd e) (head_charge M (svf_js M rs))) (svf_js M rs) <= 2 * pairmin rs.
Proof.
  intros M rs. eapply Nat.le_trans; [apply svf_head_charge_po|].
  rewrite <- (svf_js_pairmin M rs).
  eapply Nat.le_trans; [|apply Nat.mul_le_mono_l, dsum_before_le_pairmin, svf_js_sorted].
  unfold dsum. rewrite <- sumf_mul_l. apply sumf_le. intros e _.
  rewrite <- sumf_mul_l. apply sumf_le. intros b _. apply before_po_le.
Qed.

(** the same charges <= 2 M tel(S) for every feasible S *)
Theorem svf_head_charge_competitive : forall M rs xs,
  feasible M rs xs ->
  sumf (fun e => sum_upto (snd e) (head_charge M (svf_js M rs))) (svf_js M rs) <= 2 * M * tel rs xs.
Proof.
  intros M rs xs Hf. pose proof (svf_head_charge_pairmin M rs). pose proof (prop31_pairmin M rs xs Hf). lia.
Qed.

(** ** The bound with the peaks of the waiting requests *)

(** While request e waits, every step is charged at least M - Pw when every request SVF
    starts after step 0 has peak <= Pw. *)
Lemma wait_le_head_charge : forall M Pw rs e,
  (forall h, In h (svf_js M rs) -> 0 < snd h -> peak (fst h) <= Pw) ->
  In e (svf_js M rs) -> (M - Pw) * snd e <= sum_upto (snd e) (head_charge M (svf_js M rs)).
Proof.
  intros M Pw rs e HPw He. rewrite Nat.mul_comm, <- sum_upto_const. apply sum_upto_le.
  intros t Ht. destruct (head_at_some _ t e He Ht) as [h Hh]. unfold head_charge. rewrite Hh.
  destruct (head_at_spec _ t h Hh) as [l1 [l2 [Hsl [Hth _]]]].
  assert (In h (svf_js M rs)) by (rewrite Hsl; apply in_or_app; right; left; auto).
  specialize (HPw h H ltac:(lia)). lia.
Qed.

Lemma in_svf_js_combine : forall M rs r x, In (r, x) (svf_js M rs) <-> In (r, x) (combine rs (svf M rs)).
Proof.
  intros M rs r x. split; intros H.
  - apply (Permutation_in _ (Permutation_sym (svf_js_perm M rs))); auto.
  - apply (Permutation_in _ (svf_js_perm M rs)); auto.
Qed.

(** every request SVF starts after step 0 has peak <= Pw, S feasible: (M - Pw) TEL(SVF) <= 2M TEL(S) + (M - Pw)
    sum o *)
Theorem svf_waiting_peak_bound : forall M Pw rs xs,
  (forall r x, In (r, x) (combine rs (svf M rs)) -> 0 < x -> peak r <= Pw) ->
  feasible M rs xs ->
  (M - Pw) * tel rs (svf M rs) <= 2 * M * tel rs xs + (M - Pw) * sumf output rs.
Proof.
  intros M Pw rs xs HPw Hf.
  assert (HPw' : forall h, In h (svf_js M rs) -> 0 < snd h -> peak (fst h) <= Pw).
  { intros [r x] Hh Hx. apply (HPw r x); auto. apply in_svf_js_combine; auto. }
  assert (Hs : (M - Pw) * sumf snd (svf_js M rs)
               <= sumf (fun e => sum_upto (snd e) (head_charge M (svf_js M rs))) (svf_js M rs)).
  { rewrite <- sumf_mul_l. apply sumf_le. intros e He. apply wait_le_head_charge; auto. }
  pose proof (svf_head_charge_competitive M rs xs Hf) as Hc.
  rewrite tel_svf, Nat.mul_add_distr_l. lia.
Qed.
