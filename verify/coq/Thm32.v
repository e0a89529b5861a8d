(** * Thm. 3.2 of Kong et al. for the Coq SVF (forward-looking check, any M, alpha < 1):

        (M - P) * TEL(SVF) <= (3M - P) * TEL(S)

    for every feasible schedule S of the same burst, where every peak is <= P < M.
    (With alpha = P / M this is TEL(SVF) <= (3 - alpha) / (1 - alpha) * TEL(S).)

    Proof: (a) in placement order the starts and the volumes both never decrease;
    (b) by Lemma A.2, each of the x_k steps before request k starts has active peak mass
        >= M - P, so (M - P) x_k <= sum_{j : x_j < x_k} p_j o_j <= 2 sum_{j : x_j < x_k} v_j;
    (c) summed over k, each pair is counted at most once, with its smaller volume, so
        (M - P) sum_k x_k <= 2 * pairmin <= 2 M TEL(S) by Prop. 3.1;
    (d) (M - P) sum_k o_k <= (M - P) TEL(S); add. *)

From Coq Require Import Arith Lia List Bool Permutation Sorting.
From GeoSched Require Import Model Svf SvfFacts Volume Prop31 LemmaA2.
Import ListNotations.

(** ** (a) The placement is sorted by start and by volume *)

Definition start_vol_le (a b : req * nat) : Prop :=
  snd a <= snd b /\ volume (fst a) <= volume (fst b).

(** The placement keeps any relation its order has, and its starts never decrease (Hol.v: any order). *)
Definition start_rel (Rel : req -> req -> Prop) (e f : req * nat) : Prop :=
  snd e <= snd f /\ Rel (fst e) (fst f).

Lemma place_sorted_by : forall (Rel : req -> req -> Prop) M todo pl lo,
  StronglySorted (fun a b => Rel (snd a) (snd b)) todo ->
  StronglySorted (start_rel Rel) (map strip (place M pl lo todo)).
Proof.
  intros Rel M todo. induction todo as [|a rest IH]; intros pl lo Hs; simpl; [constructor|].
  inversion Hs as [|? ? Hs' Hf]; subst. constructor; [apply IH; auto|].
  set (x := find_start M pl (snd a) lo (horizon_js pl - lo)).
  pose proof (place_ge M rest ((snd a, x) :: pl) x) as Hge.
  pose proof (place_fst M rest ((snd a, x) :: pl) x) as Hfst.
  apply Forall_forall. intros e He. apply in_map_iff in He. destruct He as [e0 [<- He0]].
  unfold start_rel, strip. simpl. split.
  - rewrite Forall_forall in Hge. apply Hge; auto.
  - rewrite Forall_forall in Hf. apply (Hf (fst e0)). rewrite <- Hfst. apply in_map; auto.
Qed.

Lemma place_sorted : forall M todo pl lo,
  StronglySorted vle todo -> StronglySorted start_vol_le (map strip (place M pl lo todo)).
Proof.
  intros M todo pl lo Hs. apply (place_sorted_by (fun a b => volume a <= volume b)).
  induction Hs as [|a l Hs IH Hf]; constructor; auto.
  eapply Forall_impl; [|exact Hf]. intros b Hv. cbv beta.
  unfold vle, vol_of in Hv. rewrite !volume2_eq in Hv. lia.
Qed.

Definition svf_js (M : nat) (rs : list req) : list (req * nat) := map strip (svf_placed M rs).

(** in placement order the SVF's starts and volumes never decrease, so whoever runs while j waits precedes j
    (Lemma A.2, item 2) *)
Theorem svf_js_sorted : forall M rs, StronglySorted start_vol_le (svf_js M rs).
Proof. intros; apply place_sorted, isort_v_sorted. Qed.

(** ** (b) The waiting steps of one request *)

Lemma count_active : forall (b : req * nat) T,
  sum_upto T (fun t => if activeb b t then 1 else 0) = Nat.min T (finish b) - Nat.min T (snd b).
Proof.
  intros b T. assert (snd b <= finish b) by (unfold finish; lia).
  induction T; cbn [sum_upto]; [lia|]. rewrite IHT. unfold activeb.
  destruct (Nat.leb_spec (snd b) T), (Nat.ltb_spec T (finish b)); cbn [andb]; lia.
Qed.

(** A request b contributes its peak at most o_b times, and only if it starts before T. *)
Lemma active_time_po : forall (b : req * nat) T,
  sum_upto T (fun t => if activeb b t then peak (fst b) else 0)
  <= (if Nat.ltb (snd b) T then peak (fst b) * output (fst b) else 0).
Proof.
  intros b T.
  rewrite (sum_upto_ext T _ (fun t => peak (fst b) * (if activeb b t then 1 else 0)))
    by (intros; destruct (activeb b t); lia).
  rewrite sum_upto_mul, count_active.
  destruct (Nat.ltb_spec (snd b) T).
  - apply Nat.mul_le_mono_l. unfold finish. lia.
  - replace (Nat.min T (finish b) - Nat.min T (snd b)) with 0 by (unfold finish; lia). lia.
Qed.

Lemma active_time_bound : forall (b : req * nat) T,
  sum_upto T (fun t => if activeb b t then peak (fst b) else 0)
  <= (if Nat.ltb (snd b) T then volume2 (fst b) else 0).
Proof.
  intros b T. eapply Nat.le_trans; [apply active_time_po|].
  destruct (Nat.ltb (snd b) T); [unfold peak, volume2; nia|lia].
Qed.

Definition before (e b : req * nat) : nat :=
  if Nat.ltb (snd b) (snd e) then volume (fst b) else 0.

(** A pair in start order counts once, with the earlier one's volume. *)
Lemma before_pair : forall a b, snd a <= snd b -> before a b + before b a <= volume (fst a).
Proof.
  intros a b H. unfold before.
  destruct (Nat.ltb_spec (snd b) (snd a)); [lia|]. destruct (Nat.ltb_spec (snd a) (snd b)); lia.
Qed.

Lemma wait_bound : forall M P rs e,
  (forall r, In r rs -> peak r <= P) -> In e (svf_js M rs) ->
  (M - P) * snd e <= 2 * sumf (before e) (svf_js M rs).
Proof.
  intros M P rs e HP He. set (sl := svf_js M rs).
  assert (Hstep : forall t, t < snd e -> M - P <= active_peaks_js sl t).
  { intros t Ht. unfold sl, svf_js in He. apply in_map_iff in He.
    destruct He as [e0 [<- He0]].
    destruct (svf_a2_js M rs t e0 He0 Ht) as [h [Hh [_ Hm]]].
    assert (In (snd (fst h)) rs).
    { apply (in_svf_order rs (fst h)). unfold svf_placed in Hh.
      rewrite <- (place_fst M (svf_order rs) [] 0). apply in_map; auto. }
    specialize (HP _ H). change (map strip (svf_placed M rs)) with sl in Hm. lia. }
  rewrite Nat.mul_comm, <- sum_upto_const.
  eapply Nat.le_trans; [apply sum_upto_le; exact Hstep|].
  unfold active_peaks_js. rewrite sum_upto_sumf. rewrite <- sumf_mul_l.
  apply sumf_le. intros b _. eapply Nat.le_trans; [apply active_time_bound|].
  unfold before. destruct (Nat.ltb (snd b) (snd e)); [rewrite volume2_eq|]; lia.
Qed.

(** ** (c) Each pair counted at most once, with its smaller volume *)

Lemma dsum_before_le_pairmin : forall l,
  StronglySorted start_vol_le l -> dsum before l <= pairmin (map fst l).
Proof.
  induction l as [|a l IH]; intros Hs; [unfold dsum; simpl; lia|].
  inversion Hs as [|? ? Hs' Hf]; subst. rewrite dsum_cons. simpl pairmin.
  assert (before a a = 0) by (unfold before; rewrite Nat.ltb_irrefl; auto).
  assert (sumf (fun b => before a b + before b a) l
          <= sumf (fun q => Nat.min (volume (fst a)) (volume q)) (map fst l)).
  { rewrite sumf_map. apply sumf_le. intros b Hb. rewrite Forall_forall in Hf.
    destruct (Hf b Hb) as [H1 H2]. pose proof (before_pair a b H1). lia. }
  specialize (IH Hs'). lia.
Qed.

Lemma svf_js_perm : forall M rs, Permutation (combine rs (svf M rs)) (svf_js M rs).
Proof. intros; apply svf_perm. Qed.

Lemma svf_js_pairmin : forall M rs, pairmin (map fst (svf_js M rs)) = pairmin rs.
Proof.
  intros M rs. rewrite <- (pairmin_perm _ _ (Permutation_map fst (svf_js_perm M rs))).
  rewrite map_fst_combine; auto. rewrite svf_length. lia.
Qed.

(** with every peak <= P: (M - P) * sum of the SVF starts <= 2 * pairmin rs *)
Theorem svf_starts_bound : forall M P rs,
  (forall r, In r rs -> peak r <= P) ->
  (M - P) * sumf snd (svf_js M rs) <= 2 * pairmin rs. (* MUT: factor2 *)
Proof.
  intros M P rs HP. rewrite <- (svf_js_pairmin M rs).
  eapply Nat.le_trans; [|apply Nat.mul_le_mono_l, dsum_before_le_pairmin, svf_js_sorted].
  unfold dsum. rewrite <- !sumf_mul_l. apply sumf_le. intros e He.
  apply wait_bound; auto.
Qed.

(** ** (d) Composition *)

Lemma tel_js_split : forall l, tel_js l = sumf snd l + sumf (fun e => output (fst e)) l.
Proof. intros; unfold tel_js, finish; apply sumf_add. Qed.

Lemma outputs_combine : forall (rs : list req) (xs : list nat), length rs <= length xs ->
  sumf (fun e => output (fst e)) (combine rs xs) = sumf output rs.
Proof.
  intros rs xs H. rewrite <- (map_fst_combine rs xs H) at 2. rewrite sumf_map. auto.
Qed.

Lemma tel_svf : forall M rs,
  tel rs (svf M rs) = sumf snd (svf_js M rs) + sumf output rs.
Proof.
  intros M rs. unfold tel, tel_js. rewrite (sumf_perm finish _ _ (svf_js_perm M rs)).
  fold (tel_js (svf_js M rs)). rewrite tel_js_split. f_equal.
  rewrite <- (sumf_perm (fun e => output (fst e)) _ _ (svf_js_perm M rs)).
  apply outputs_combine. rewrite svf_length; lia.
Qed.

Lemma tel_ge_outputs : forall rs xs, length xs = length rs -> sumf output rs <= tel rs xs.
Proof.
  intros rs xs H. unfold tel. rewrite tel_js_split, outputs_combine by lia. lia.
Qed.

(** peaks <= P < M, o >= 1, S feasible: (M - P) * tel(SVF) <= (3M - P) * tel(S) (kong.thm3.2) *)
Theorem thm32_svf_competitive : forall M P rs xs,
  (forall r, In r rs -> peak r <= P) -> P < M ->
  (forall r, In r rs -> 1 <= output r) ->
  feasible M rs xs ->
  (M - P) * tel rs (svf M rs) <= (3 * M - P) * tel rs xs.
Proof.
  intros M P rs xs HP HPM _ Hf.
  pose proof (svf_starts_bound M P rs HP) as Hs.
  pose proof (prop31_pairmin M rs xs Hf) as Hq.
  pose proof (tel_ge_outputs rs xs (proj1 Hf)) as Ho.
  rewrite tel_svf. replace (3 * M - P) with (2 * M + (M - P)) by lia.
  set (D := M - P) in *. set (A := sumf snd (svf_js M rs)) in *.
  set (O := sumf output rs) in *. set (T := tel rs xs) in *.
  assert (D * O <= D * T) by (apply Nat.mul_le_mono_l; auto).
  nia.
Qed.

(** under the same hypotheses the SVF schedule itself is feasible *)
Corollary thm32_svf_feasible : forall M P rs,
  (forall r, In r rs -> peak r <= P) -> P < M -> feasible M rs (svf M rs).
Proof.
  intros M P rs HP HPM. apply svf_feasible. intros r Hr. specialize (HP r Hr). lia.
Qed.
