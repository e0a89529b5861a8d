(** * The online Lemma A.2 and the wait bound, for strict head-of-line scheduling with arrivals.

    For every instance (requests [rs], arrival steps [ars], priority keys [ks]) and
    [xs = osvf M ks ars rs] (OnlineSvf.v; the online SVF when [ks = map volume2 rs]):

    - [osvf_feasible], [osvf_after_arrival]: the schedule fits in M and no request starts
      before it arrives;
    - [online_lemmaA2]: at every step t at which some arrived request waits
      (a_k <= t < x_k), the first waiting request h in the queue order has
      active_peaks(t) + p_h > M (the certificate of a blocked step with arrivals);
    - [online_ahead]: a request i started while j waits (a_j <= x_i < x_j) comes before j
      in the queue order (key, arrival, position);
    - [online_wait_bound]: with every peak <= P,
          (M - P) (x_j - a_j) <= R_j + sum_{i : a_j <= x_i < x_j} p_i o_i,
      R_j = sum_{i : x_i < a_j} p_i (x_i + o_i - a_j)^+ (the residual peak-time of the
      requests running when j arrives), and every i of the sum is ahead of j
      ([online_ahead]): the wait is bounded by the peak-time work ahead of j plus a residual. *)

From Coq Require Import Arith Lia List Bool Permutation.
From GeoSched Require Import Model Svf SvfFacts LemmaA2 OnlineSvf.
Import ListNotations.

(** ** The residual and the work ahead, over the instance-order schedule *)

(** sum over requests started before a of p_i (x_i + o_i - a), truncated at 0. *)
Definition oresidual (rs : list req) (xs : list nat) (a : nat) : nat :=
  sumf (fun e => if Nat.ltb (snd e) a then peak (fst e) * (snd e + output (fst e) - a) else 0)
       (combine rs xs).

(** sum over requests started in [a, x) of p_i o_i. *)
Definition oahead_work (rs : list req) (xs : list nat) (a x : nat) : nat :=
  sumf (fun e => if Nat.leb a (snd e) && Nat.ltb (snd e) x then peak (fst e) * output (fst e) else 0)
       (combine rs xs).

(** ** The instance's items *)

Lemma map_nth_seq_id : forall {A} (l : list A) d, map (fun i => nth i l d) (seq 0 (length l)) = l.
Proof.
  intros A l d. apply (nth_ext _ _ d d); [rewrite map_length, seq_length; auto|].
  intros n Hn. rewrite map_length, seq_length in Hn.
  rewrite (nth_indep _ d (nth 0 l d)) by (rewrite map_length, seq_length; auto).
  rewrite (map_nth (fun i => nth i l d) (seq 0 (length l)) 0 n), seq_nth by auto. reflexivity.
Qed.

Lemma nth_map_seq0 : forall (g : nat -> nat) n i, i < n -> nth i (map g (seq 0 n)) 0 = g i.
Proof.
  intros g n i H. rewrite (nth_indep _ 0 (g 0)) by (rewrite map_length, seq_length; auto).
  rewrite map_nth, seq_nth by auto. reflexivity.
Qed.

Lemma oitems_pos : forall ks ars rs, map ipos (oitems ks ars rs) = seq 0 (length rs).
Proof.
  intros. unfold oitems. rewrite map_map. erewrite map_ext; [apply map_id|]. intros; reflexivity.
Qed.

Lemma in_oitems : forall ks ars rs a,
  In a (oitems ks ars rs) -> exists i, i < length rs /\ a = oitem ks ars rs i.
Proof.
  intros ks ars rs a H. unfold oitems in H. apply in_map_iff in H. destruct H as [i [<- Hi]].
  apply in_seq in Hi. exists i. split; [lia|auto].
Qed.

Lemma oitem_in : forall ks ars rs i, i < length rs -> In (oitem ks ars rs i) (oitems ks ars rs).
Proof. intros. unfold oitems. apply in_map, in_seq. lia. Qed.

Lemma nth_le_last : forall ars i, nth i ars 0 <= last_arrival ars.
Proof.
  induction ars as [|a ars IH]; intros [|i]; simpl; try lia. specialize (IH i). unfold last_arrival in *. lia.
Qed.

Lemma osumo_oitems : forall ks ars rs, osumo (oitems ks ars rs) = sumf output rs.
Proof.
  intros. unfold osumo, oitems. rewrite sumf_map.
  rewrite <- (map_nth_seq_id rs (0, 0)) at 2. rewrite sumf_map. reflexivity.
Qed.

(** The invariant of [osim_spec] holds at the start. *)
Lemma osvf_placed_spec : forall M ks ars rs,
  (forall r, In r rs -> peak r <= M) ->
  let out := osvf_placed M ks ars rs in
  Permutation (oitems ks ars rs) (map fst out) /\
  (forall e, In e out -> 0 <= snd e /\ iarr (fst e) <= snd e) /\
  ((forall u, usage_js [] u <= M) -> forall u, usage_js ([] ++ map ostrip out) u <= M) /\
  (forall e g, In e out -> In g out -> iarr (fst g) <= snd e < snd g -> prio_le (fst e) (fst g)) /\
  (forall u, 0 <= u -> (exists g, In g out /\ iarr (fst g) <= u < snd g) ->
     exists h, In h out /\ iarr (fst h) <= u < snd h /\
       M < active_peaks_js ([] ++ map ostrip out) u + peak (ireq (fst h)) /\
       forall g, In g out -> iarr (fst g) <= u < snd g -> prio_le (fst h) (fst g)).
Proof.
  intros M ks ars rs Hp. apply (osim_spec M (last_arrival ars)).
  - rewrite oitems_pos. apply seq_NoDup.
  - intros a Ha. apply in_oitems in Ha. destruct Ha as [i [Hi ->]]. unfold iarr, ireq, oitem; simpl.
    split; [apply nth_le_last|apply Hp, nth_In; auto].
  - intros e [].
  - rewrite osumo_oitems. simpl. lia.
Qed.

Lemma olookup_in : forall l e,
  NoDup (map (fun e => ipos (fst e)) l) -> In e l -> olookup (ipos (fst e)) l = snd e.
Proof.
  induction l as [|b l IH]; intros e Hn He; simpl in *; [contradiction|].
  inversion Hn as [|? ? Hb Hn']; subst. destruct He as [->|He].
  - rewrite Nat.eqb_refl; auto.
  - destruct (Nat.eqb_spec (ipos (fst b)) (ipos (fst e))) as [E|E]; auto.
    exfalso. apply Hb. rewrite E. apply (in_map (fun e => ipos (fst e))); auto.
Qed.

Lemma osvf_placed_nodup : forall M ks ars rs, (forall r, In r rs -> peak r <= M) ->
  NoDup (map (fun e => ipos (fst e)) (osvf_placed M ks ars rs)).
Proof.
  intros M ks ars rs Hp. destruct (osvf_placed_spec M ks ars rs Hp) as [Hperm _].
  rewrite <- (map_map fst ipos). apply (Permutation_NoDup (Permutation_map ipos Hperm)).
  rewrite oitems_pos. apply seq_NoDup.
Qed.

Lemma osvf_length : forall M ks ars rs, length (osvf M ks ars rs) = length rs.
Proof. intros. unfold osvf. rewrite map_length, seq_length. auto. Qed.

Lemma osvf_nth : forall M ks ars rs i, i < length rs ->
  nth i (osvf M ks ars rs) 0 = olookup i (osvf_placed M ks ars rs).
Proof. intros. unfold osvf. apply nth_map_seq0; auto. Qed.

(** Every element of the placement is request i with its start x_i, for some i. *)
Lemma placed_is : forall M ks ars rs e, (forall r, In r rs -> peak r <= M) ->
  In e (osvf_placed M ks ars rs) ->
  exists i, i < length rs /\ fst e = oitem ks ars rs i /\ snd e = nth i (osvf M ks ars rs) 0.
Proof.
  intros M ks ars rs e Hp He. destruct (osvf_placed_spec M ks ars rs Hp) as [Hperm _].
  destruct (in_oitems ks ars rs (fst e)) as [i [Hi Hfst]].
  { apply (Permutation_in _ (Permutation_sym Hperm)), in_map; auto. }
  exists i. split; [auto|split; [auto|]]. rewrite osvf_nth by auto.
  replace i with (ipos (fst e)) by (rewrite Hfst; reflexivity).
  symmetry. apply olookup_in; auto. apply osvf_placed_nodup; auto.
Qed.

(** Request i appears in the placement with its start x_i. *)
Lemma placed_item : forall M ks ars rs i, (forall r, In r rs -> peak r <= M) -> i < length rs ->
  In (oitem ks ars rs i, nth i (osvf M ks ars rs) 0) (osvf_placed M ks ars rs).
Proof.
  intros M ks ars rs i Hp Hi. destruct (osvf_placed_spec M ks ars rs Hp) as [Hperm _].
  destruct (in_fst_out _ _ _ Hperm (oitem_in ks ars rs i Hi)) as [e [He Hfst]].
  destruct (placed_is M ks ars rs e Hp He) as [j [Hj [Hfj Hsj]]].
  assert (i = j) as <-.
  { rewrite Hfst in Hfj. apply (f_equal ipos) in Hfj. exact Hfj. }
  rewrite <- Hfst, <- Hsj. destruct e; auto.
Qed.

Lemma combine_map_seq0 : forall (rs : list req) (g : nat -> nat),
  combine rs (map g (seq 0 (length rs))) = map (fun i => (nth i rs (0, 0), g i)) (seq 0 (length rs)).
Proof.
  intros rs g. apply (nth_ext _ _ ((0, 0), 0) ((0, 0), 0)).
  - rewrite combine_length, !map_length, seq_length. lia.
  - intros n Hn. rewrite combine_length, map_length, seq_length, Nat.min_id in Hn.
    rewrite combine_nth by (rewrite map_length, seq_length; auto).
    rewrite nth_map_seq0 by auto.
    rewrite (nth_indep _ _ (nth 0 rs (0, 0), g 0)) by (rewrite map_length, seq_length; auto).
    rewrite (map_nth (fun i => (nth i rs (0, 0), g i))), seq_nth by auto.
    rewrite (nth_indep rs (0, 0) (0, 0)) by auto. reflexivity.
Qed.

(** The instance-order schedule is a reordering of the placement. *)
Lemma osvf_perm : forall M ks ars rs, (forall r, In r rs -> peak r <= M) ->
  Permutation (combine rs (osvf M ks ars rs)) (map ostrip (osvf_placed M ks ars rs)).
Proof.
  intros M ks ars rs Hp. set (out := osvf_placed M ks ars rs).
  destruct (osvf_placed_spec M ks ars rs Hp) as [Hperm _]. fold out in Hperm.
  unfold osvf. fold out. rewrite combine_map_seq0.
  replace (map ostrip out) with (map (fun a => ostrip (a, olookup (ipos a) out)) (map fst out)).
  - assert (E : map (fun a => ostrip (a, olookup (ipos a) out)) (oitems ks ars rs) =
                 map (fun i => (nth i rs (0, 0), olookup i out)) (seq 0 (length rs)))
      by (unfold oitems; rewrite map_map; reflexivity).
    rewrite <- E. apply Permutation_map; exact Hperm.
  - rewrite map_map. apply map_ext_in. intros e He. unfold ostrip; simpl. f_equal.
    apply olookup_in; auto. apply osvf_placed_nodup; auto.
Qed.

(** ** The theorems *)

(** The online schedule fits in memory at every step. *)
Theorem osvf_feasible : forall M ks ars rs,
  (forall r, In r rs -> peak r <= M) -> feasible M rs (osvf M ks ars rs).
Proof.
  intros M ks ars rs Hp. split; [apply osvf_length|]. intros u. unfold usage.
  rewrite (usage_js_perm _ _ u (osvf_perm M ks ars rs Hp)).
  destruct (osvf_placed_spec M ks ars rs Hp) as [_ [_ [Hu _]]].
  apply Hu. intros v. unfold usage_js. simpl. lia.
Qed.

(** No request starts before it arrives. *)
Theorem osvf_after_arrival : forall M ks ars rs j,
  (forall r, In r rs -> peak r <= M) -> j < length rs -> nth j ars 0 <= nth j (osvf M ks ars rs) 0.
Proof.
  intros M ks ars rs j Hp Hj. destruct (osvf_placed_spec M ks ars rs Hp) as [_ [Hs _]].
  destruct (Hs _ (placed_item M ks ars rs j Hp Hj)) as [_ H]. exact H.
Qed.

(** A request started while j waits is ahead of j in the queue order (key, arrival, position). *)
Theorem online_ahead : forall M ks ars rs i j,
  (forall r, In r rs -> peak r <= M) -> i < length rs -> j < length rs ->
  nth j ars 0 <= nth i (osvf M ks ars rs) 0 < nth j (osvf M ks ars rs) 0 ->
  nth i ks 0 < nth j ks 0 \/
  (nth i ks 0 = nth j ks 0 /\ (nth i ars 0 < nth j ars 0 \/ (nth i ars 0 = nth j ars 0 /\ i < j))).
Proof.
  intros M ks ars rs i j Hp Hi Hj Hord.
  destruct (osvf_placed_spec M ks ars rs Hp) as [_ [_ [_ [Had _]]]].
  pose proof (Had _ _ (placed_item M ks ars rs i Hp Hi) (placed_item M ks ars rs j Hp Hj) Hord) as H.
  unfold prio_le, ikey, iarr, ipos, oitem in H; simpl in H.
  assert (i <> j) by (intros <-; lia). lia.
Qed.

(** Lemma A.2 with arrivals: when an arrived request waits at step t, the first waiting request h in the queue
    order has active_peaks(t) + p_h > M. *)
Theorem online_lemmaA2 : forall M ks ars rs t,
  (forall r, In r rs -> peak r <= M) ->
  (exists k, k < length rs /\ nth k ars 0 <= t < nth k (osvf M ks ars rs) 0) ->
  exists h, h < length rs /\ nth h ars 0 <= t < nth h (osvf M ks ars rs) 0 /\
    M < active_peaks rs (osvf M ks ars rs) t + peak (nth h rs (0, 0)) /\
    forall k, k < length rs -> nth k ars 0 <= t < nth k (osvf M ks ars rs) 0 ->
      nth h ks 0 < nth k ks 0 \/
      (nth h ks 0 = nth k ks 0 /\ (nth h ars 0 < nth k ars 0 \/ (nth h ars 0 = nth k ars 0 /\ h <= k))).
Proof.
  intros M ks ars rs t Hp [k [Hk Hw]].
  destruct (osvf_placed_spec M ks ars rs Hp) as [_ [_ [_ [_ Hblk]]]].
  destruct (Hblk t (Nat.le_0_l t)) as [eh [Heh [Hhw [Hm Hmin]]]].
  { exists (oitem ks ars rs k, nth k (osvf M ks ars rs) 0).
    split; [apply placed_item; auto|]. unfold iarr, oitem; simpl. lia. }
  destruct (placed_is M ks ars rs eh Hp Heh) as [h [Hh [Hfst Hsnd]]].
  exists h. rewrite Hfst, Hsnd in *. unfold iarr, ireq, oitem in *; simpl in *.
  split; [auto|]. split; [lia|]. split.
  - unfold active_peaks. rewrite (active_peaks_js_perm _ _ t (osvf_perm M ks ars rs Hp)). exact Hm.
  - intros k' Hk' Hw'. pose proof (Hmin _ (placed_item M ks ars rs k' Hp Hk')) as H.
    unfold prio_le, ikey, iarr, ipos, oitem in H; simpl in H. apply H. lia.
Qed.

(** ** The wait bound *)

Lemma window_count : forall (e : req * nat) a L,
  sum_upto L (fun k => if activeb e (a + k) then 1 else 0) =
  Nat.min (a + L) (finish e) - Nat.min (a + L) (Nat.max a (snd e)).
Proof.
  intros e a L. assert (snd e <= finish e) by (unfold finish; lia).
  induction L; cbn [sum_upto]; [lia|]. rewrite IHL. unfold activeb.
  destruct (Nat.leb_spec (snd e) (a + L)), (Nat.ltb_spec (a + L) (finish e)); cbn [andb]; lia.
Qed.

Lemma window_bound : forall (e : req * nat) a x, a <= x ->
  sum_upto (x - a) (fun k => if activeb e (a + k) then peak (fst e) else 0) <=
  (if Nat.ltb (snd e) a then peak (fst e) * (snd e + output (fst e) - a) else 0) +
  (if Nat.leb a (snd e) && Nat.ltb (snd e) x then peak (fst e) * output (fst e) else 0).
Proof.
  intros e a x Hax.
  rewrite (sum_upto_ext (x - a) _ (fun k => peak (fst e) * (if activeb e (a + k) then 1 else 0)))
    by (intros k _; destruct (activeb e (a + k)); lia).
  rewrite sum_upto_mul, window_count. replace (a + (x - a)) with x by lia. unfold finish.
  destruct (Nat.ltb_spec (snd e) a), (Nat.leb_spec a (snd e)), (Nat.ltb_spec (snd e) x); cbn [andb];
    rewrite ?Nat.add_0_r, ?Nat.add_0_l; try lia.
  all: first [apply Nat.mul_le_mono_l; lia|
              assert (Hc : Nat.min x (snd e + output (fst e)) - Nat.min x (Nat.max a (snd e)) = 0) by lia;
              rewrite Hc; lia].
Qed.

(** The wait of request j is bounded by the peak-time work started during its wait (all of it ahead of j,
    [online_ahead]) plus the residual of the requests running at its arrival. *)
Theorem online_wait_bound : forall M P ks ars rs j,
  (forall r, In r rs -> peak r <= P) -> j < length rs ->
  let xs := osvf M ks ars rs in
  (M - P) * (nth j xs 0 - nth j ars 0) <=
  oresidual rs xs (nth j ars 0) + oahead_work rs xs (nth j ars 0) (nth j xs 0).
Proof.
  intros M P ks ars rs j HP Hj xs.
  destruct (Nat.le_gt_cases P M) as [HPM|HPM]; [|replace (M - P) with 0 by lia; lia].
  assert (Hp : forall r, In r rs -> peak r <= M) by (intros r Hr; specialize (HP r Hr); lia).
  set (a := nth j ars 0). set (x := nth j xs 0).
  assert (Hax : a <= x) by (apply osvf_after_arrival; auto).
  assert (Hstep : forall k, k < x - a -> M - P <= active_peaks rs xs (a + k)).
  { intros k Hk. destruct (online_lemmaA2 M ks ars rs (a + k) Hp) as [h [Hh [_ [Hm _]]]].
    { exists j. split; auto. fold xs. fold a x. lia. }
    pose proof (HP _ (nth_In rs (0, 0) Hh)). fold xs in Hm. lia. }
  rewrite Nat.mul_comm, <- sum_upto_const.
  eapply Nat.le_trans; [apply sum_upto_le; exact Hstep|].
  unfold active_peaks, active_peaks_js. rewrite sum_upto_sumf.
  unfold oresidual, oahead_work. rewrite <- sumf_add. apply sumf_le. intros e _.
  apply window_bound; auto.
Qed.
