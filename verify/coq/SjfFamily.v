(** * The SJF-unbounded family (kong.sjf_unbounded), closed forms for every size m >= 2.

    SJF is the same strict head-of-line placement with the forward-looking check as
    [svf] (Svf.v), in the order of the output length, ties by position.

    Family (theory/kong_sjf_unbounded.py): M = 2 m^2; m requests A = (m^2, 1), then m^2
    requests B = (0, 2); all arrive at 0; alpha = (m^2 + 1) / (2 m^2) <= 5/8.
      TEL(SVF) = 2 m^2 + 2 m + m (m + 1) / 2     ([svf_family_tel], times 2)
      TEL(SJF) = m (m + 1) / 2 + m^3 + m^2 + 1   ([sjf_family_tel], times 2)
    so m TEL(SVF) <= 3 TEL(SJF), and SJF has no constant competitive ratio
    ([sjf_not_competitive]). *)

From Coq Require Import Arith Lia List Bool Permutation Sorting.
From GeoSched Require Import Model Svf SvfFacts Prop31.
Import ListNotations.

(** ** SJF *)

Fixpoint insert_o (a : nat * req) (l : list (nat * req)) : list (nat * req) :=
  match l with
  | [] => [a]
  | b :: l' => if Nat.leb (output (snd a)) (output (snd b)) then a :: l else b :: insert_o a l'
  end.

Fixpoint isort_o (l : list (nat * req)) : list (nat * req) :=
  match l with
  | [] => []
  | a :: l' => insert_o a (isort_o l')
  end.

Definition sjf_order (rs : list req) : list (nat * req) :=
  isort_o (combine (seq 0 (length rs)) rs).

Definition sjf (M : nat) (rs : list req) : list nat :=
  let pl := place M [] 0 (sjf_order rs) in
  map (fun i => lookup i pl) (seq 0 (length rs)).

(** ** Orders and placements only depend on the requests *)

Fixpoint place_r (M : nat) (pl : list (req * nat)) (lo : nat) (todo : list req)
  : list (req * nat) :=
  match todo with
  | [] => []
  | r :: rest =>
      let x := find_start M pl r lo (horizon_js pl - lo) in
      (r, x) :: place_r M ((r, x) :: pl) x rest
  end.

Lemma place_strip : forall M todo pl lo,
  map strip (place M pl lo todo) = place_r M pl lo (map snd todo).
Proof.
  intros M todo. induction todo as [|a todo IH]; intros pl lo; simpl; auto.
  rewrite IH. reflexivity.
Qed.

Fixpoint insert_ro (r : req) (l : list req) : list req :=
  match l with
  | [] => [r]
  | q :: l' => if Nat.leb (output r) (output q) then r :: l else q :: insert_ro r l'
  end.

Fixpoint sort_o (l : list req) : list req :=
  match l with
  | [] => []
  | r :: l' => insert_ro r (sort_o l')
  end.

Lemma isort_v_snd : forall l, map snd (isort_v l) = sort_r (map snd l).
Proof.
  assert (Hi : forall a l, map snd (insert_v a l) = insert_r (snd a) (map snd l)).
  { intros a l. induction l as [|b l IH]; simpl; auto. unfold vol_of.
    rewrite !volume2_eq.
    destruct (Nat.leb_spec (2 * volume (snd a)) (2 * volume (snd b))),
             (Nat.leb_spec (volume (snd a)) (volume (snd b))); simpl; rewrite ?IH; auto; lia. }
  induction l as [|a l IH]; simpl; auto. rewrite Hi, IH. auto.
Qed.

Lemma isort_o_snd : forall l, map snd (isort_o l) = sort_o (map snd l).
Proof.
  assert (Hi : forall a l, map snd (insert_o a l) = insert_ro (snd a) (map snd l)).
  { intros a l. induction l as [|b l IH]; simpl; auto.
    destruct (Nat.leb (output (snd a)) (output (snd b))); simpl; rewrite ?IH; auto. }
  induction l as [|a l IH]; simpl; auto. rewrite Hi, IH. auto.
Qed.

Lemma isort_o_perm : forall l, Permutation (isort_o l) l.
Proof.
  assert (Hi : forall a l, Permutation (insert_o a l) (a :: l)).
  { intros a l. induction l as [|b l IH]; simpl; auto.
    destruct (Nat.leb (output (snd a)) (output (snd b))); auto.
    eapply perm_trans; [apply perm_skip, IH|apply perm_swap]. }
  induction l as [|a l IH]; simpl; auto.
  eapply perm_trans; [apply Hi|apply perm_skip, IH].
Qed.

(** Any order that is a permutation of the positions gives a reordering of the schedule. *)
Lemma placed_perm : forall M rs ord,
  Permutation ord (combine (seq 0 (length rs)) rs) ->
  Permutation (combine rs (map (fun i => lookup i (place M [] 0 ord)) (seq 0 (length rs))))
              (map strip (place M [] 0 ord)).
Proof.
  intros M rs ord Hp. rewrite combine_map_seq.
  set (out := place M [] 0 ord).
  set (h := fun p : nat * req => (snd p, lookup (fst p) out)).
  assert (Hnd : NoDup (map (fun e => fst (fst e)) out)).
  { rewrite <- (map_map fst fst). unfold out. rewrite place_fst.
    apply (Permutation_NoDup (l := seq 0 (length rs))); [|apply seq_NoDup].
    rewrite <- (map_fst_combine (seq 0 (length rs)) rs) at 1 by (rewrite seq_length; lia).
    apply Permutation_map, Permutation_sym, Hp. }
  apply perm_trans with (map h ord).
  - apply Permutation_map, Permutation_sym, Hp.
  - replace ord with (map fst out) at 1 by (apply place_fst).
    rewrite map_map. apply Permutation_refl'. apply map_ext_in. intros e He.
    unfold h, strip. f_equal. apply lookup_in; auto.
Qed.

Lemma tel_svf_r : forall M rs,
  tel rs (svf M rs) = tel_js (place_r M [] 0 (sort_r rs)).
Proof.
  intros M rs. unfold tel, tel_js.
  rewrite (sumf_perm _ _ _ (svf_perm M rs)). unfold svf_placed.
  rewrite place_strip. unfold svf_order. rewrite isort_v_snd, map_snd_combine; auto.
  rewrite seq_length; lia.
Qed.

Lemma tel_sjf_r : forall M rs,
  tel rs (sjf M rs) = tel_js (place_r M [] 0 (sort_o rs)).
Proof.
  intros M rs. unfold tel, tel_js, sjf.
  rewrite (sumf_perm _ _ _ (placed_perm M rs (sjf_order rs) (isort_o_perm _))).
  rewrite place_strip. unfold sjf_order. rewrite isort_o_snd, map_snd_combine; auto.
  rewrite seq_length; lia.
Qed.

(** ** Tools for computing placements *)

Lemma find_start_skip : forall M pl r t fuel,
  fits M pl r t = false -> find_start M pl r t (S fuel) = find_start M pl r (S t) fuel.
Proof. intros M pl r t f H; simpl; rewrite H; auto. Qed.

Lemma horizon_le : forall l h, (forall e, In e l -> finish e <= h) -> horizon_js l <= h.
Proof.
  induction l as [|a l IH]; intros h H; simpl; [lia|].
  specialize (H a (or_introl eq_refl)) as Ha.
  assert (horizon_js l <= h) by (apply IH; intros; apply H; right; auto). lia.
Qed.

(** ** The family *)

Definition fa (m : nat) : req := (m * m, 1).
Definition fb : req := (0, 2).
Definition fam (m : nat) : list req := repeat (fa m) m ++ repeat fb (m * m).

Lemma vol_fa : forall m, volume (fa m) = m * m + 1.
Proof. intros m. unfold volume, fa, prompt, output; simpl fst; simpl snd. simpl. lia. Qed.

Ltac fam_lia := unfold fb, fa, output, prompt in *; simpl in *; lia.

Lemma vol_fb : volume fb = 3.
Proof. reflexivity. Qed.

(** Both families' schedules end with a run of [j] requests [fa m] started one step apart from [i + d]
    ([aout] in SVF's, [sout] in SJF's): its TEL once, for every function with the run's two equations. *)
Lemma tel_fa_run : forall m d (run : nat -> nat -> list (req * nat)),
  (forall i, run i 0 = []) -> (forall i j, run i (S j) = (fa m, i + d) :: run (S i) j) ->
  forall j i, 2 * tel_js (run i j) = 2 * j * (i + d + 1) + j * (j - 1).
Proof.
  intros m d run Hnil Hcons. induction j; intros i; [rewrite Hnil; reflexivity|]. rewrite Hcons.
  unfold tel_js in *. cbn [sumf]. specialize (IHj (S i)). unfold finish at 1, fa, output; cbn [fst snd].
  destruct j; rewrite ?Hnil in *; simpl in *; nia.
Qed.

Lemma sort_r_fam : forall m j k, 2 <= m ->
  sort_r (repeat (fa m) j ++ repeat fb k) = repeat fb k ++ repeat (fa m) j.
Proof.
  intros m j k Hm.
  assert (Hb : forall k, sort_r (repeat fb k) = repeat fb k).
  { induction k0; simpl; auto. rewrite IHk0. destruct k0; simpl; auto. }
  assert (Hins : forall k j, insert_r (fa m) (repeat fb k ++ repeat (fa m) j)
                             = repeat fb k ++ repeat (fa m) (S j)).
  { induction k0; intros j0; simpl.
    - destruct j0; simpl; auto. rewrite Nat.leb_refl. auto.
    - rewrite vol_fa, vol_fb. destruct (Nat.leb_spec (m * m + 1) 3); [nia|].
      rewrite IHk0. auto. }
  induction j; simpl; [rewrite app_nil_r; apply Hb|]. rewrite IHj. apply Hins.
Qed.

Lemma sort_o_fam : forall m j k,
  sort_o (repeat (fa m) j ++ repeat fb k) = repeat (fa m) j ++ repeat fb k.
Proof.
  intros m j k.
  assert (Hb : forall k, sort_o (repeat fb k) = repeat fb k).
  { induction k0; simpl; auto. rewrite IHk0. destruct k0; simpl; auto. }
  induction j; simpl; [apply Hb|]. rewrite IHj.
  destruct j; simpl; [destruct k; simpl; auto|]; auto.
Qed.

Lemma tel_repeat : forall e k, tel_js (repeat e k) = k * finish e.
Proof. intros e k. induction k; simpl; auto. unfold tel_js in *. simpl. lia. Qed.

(** ** SVF on the family: every B at 0, then A_k at k + 1 *)

Section Svf_family.
Variable m : nat.
Hypothesis Hm : 2 <= m.
Let M := 2 * m * m.
Let K := m * m.

Lemma svf_B_phase : forall j k rest, k + j <= K ->
  place_r M (repeat (fb, 0) k) 0 (repeat fb j ++ rest)
  = repeat (fb, 0) j ++ place_r M (repeat (fb, 0) (j + k)) 0 rest.
Proof.
  induction j; intros k rest Hk; simpl; auto.
  rewrite find_start_now.
  - change ((fb, 0) :: repeat (fb, 0) k) with (repeat (fb, 0) (S k)).
    rewrite IHj by lia. replace (j + S k) with (S (j + k)) by lia. auto.
  - apply fits_spec. intros t' Ht'. rewrite usage_js_repeat. simpl fst; simpl snd.
    rewrite req_usage_on by fam_lia. unfold fb, prompt, output in *; simpl in *.
    unfold M, K in *. nia.
Qed.

Fixpoint alist (i : nat) : list (req * nat) :=
  match i with
  | 0 => []
  | S i' => (fa m, i' + 2) :: alist i'
  end.

Fixpoint aout (i j : nat) : list (req * nat) :=
  match j with
  | 0 => []
  | S j' => (fa m, i + 2) :: aout (S i) j'
  end.

Definition alo (i : nat) : nat := match i with 0 => 0 | S i' => i' + 2 end.

Lemma alist_finish : forall i e, In e (alist i) -> finish e <= i + 2.
Proof.
  induction i; intros e He; simpl in He; [contradiction|].
  destruct He as [<-|He]; [unfold finish, fa, output; simpl; lia|].
  specialize (IHi e He). lia.
Qed.

Lemma bs_finish : forall k e, In e (repeat (fb, 0) k) -> finish e = 2.
Proof. intros k e He. apply repeat_spec in He. subst. reflexivity. Qed.

Lemma svf_A_phase : forall j i,
  place_r M (alist i ++ repeat (fb, 0) K) (alo i) (repeat (fa m) j) = aout i j.
Proof.
  assert (HK : 4 <= K) by (unfold K; nia).
  induction j; intros i; [reflexivity|]. cbn [repeat place_r aout].
  set (pl := alist i ++ repeat (fb, 0) K).
  assert (Hfin : forall e, In e pl -> finish e <= i + 2).
  { intros e He. apply in_app_or in He. destruct He as [He|He].
    - apply alist_finish; auto.
    - rewrite (bs_finish K e He). lia. }
  assert (Hfit : fits M pl (fa m) (i + 2) = true).
  { apply fits_spec. intros t' Ht'. rewrite usage_js_finished.
    - unfold fa, prompt, output in *; simpl in *. unfold M. nia.
    - intros e He. specialize (Hfin e He). lia. }
  assert (Hx : find_start M pl (fa m) (alo i) (horizon_js pl - alo i) = i + 2).
  { destruct i as [|i'].
    - simpl alo. simpl alist in pl. simpl in pl.
      assert (Hin : In (fb, 0) pl).
      { unfold pl. replace K with (S (K - 1)) by lia. left; auto. }
      pose proof (horizon_ge pl _ Hin) as Hh. unfold finish in Hh; simpl in Hh.
      destruct (horizon_js pl - 0) as [|[|f]] eqn:E; [lia|lia|].
      rewrite !find_start_skip; [apply find_start_now, Hfit| |].
      + apply (fits_false _ _ _ _ 2); [simpl; lia|].
        unfold pl. rewrite usage_js_repeat. simpl fst; simpl snd.
        rewrite req_usage_on by fam_lia. unfold fa, fb, prompt, output; simpl.
        unfold M, K. nia.
      + apply (fits_false _ _ _ _ 1); [simpl; lia|].
        unfold pl. rewrite usage_js_repeat. simpl fst; simpl snd.
        rewrite req_usage_on by fam_lia. unfold fa, fb, prompt, output; simpl.
        unfold M, K. nia.
    - assert (Hin : In (fa m, i' + 2) pl) by (left; auto).
      assert (Hh : i' + 3 <= horizon_js pl).
      { pose proof (horizon_ge pl _ Hin) as H0. unfold finish, fa, output in H0.
        cbn [fst snd] in H0. lia. }
      change (alo (S i')) with (i' + 2). destruct (horizon_js pl - (i' + 2)) as [|f] eqn:E; [lia|].
      rewrite find_start_skip; [replace (S (i' + 2)) with (S i' + 2) by lia; apply find_start_now, Hfit|].
      apply (fits_false _ _ _ _ (i' + 3)); [fam_lia|].
      unfold pl. simpl alist. rewrite <- app_comm_cons, usage_js_cons. simpl fst; simpl snd.
      rewrite req_usage_on by fam_lia.
      unfold fa, prompt, output; simpl. unfold M. nia. }
  rewrite Hx. change ((fa m, i + 2) :: pl) with (alist (S i) ++ repeat (fb, 0) K).
  change (i + 2) with (alo (S i)) at 2. rewrite IHj. reflexivity.
Qed.

Lemma tel_aout : forall j i, 2 * tel_js (aout i j) = 2 * j * (i + 3) + j * (j - 1).
Proof. intros j i. pose proof (tel_fa_run m 2 aout (fun _ => eq_refl) (fun _ _ => eq_refl) j i). nia. Qed.

Lemma svf_family_placed :
  place_r M [] 0 (sort_r (fam m)) = repeat (fb, 0) K ++ aout 0 m.
Proof.
  unfold fam. rewrite sort_r_fam by auto.
  change (@nil (req * nat)) with (repeat (fb, 0) 0).
  rewrite svf_B_phase by lia. rewrite Nat.add_0_r. f_equal.
  apply (svf_A_phase m 0).
Qed.

End Svf_family.

(** on the SJF family (M = 2m^2, m x (m^2, 1), m^2 x (0, 2)), every m >= 2: 2 TEL(SVF) = 4m^2 + 4m + m(m+1) *)
Theorem svf_family_tel : forall m, 2 <= m ->
  2 * tel (fam m) (svf (2 * m * m) (fam m)) = 4 * m * m + 4 * m + m * (m + 1).
Proof.
  intros m Hm. rewrite tel_svf_r, (svf_family_placed m Hm).
  unfold tel_js at 1. rewrite sumf_app. fold (tel_js (repeat (fb, 0) (m * m))).
  fold (tel_js (aout m 0 m)). rewrite tel_repeat.
  pose proof (tel_aout m Hm m 0). unfold finish, fb, output; simpl snd.
  destruct m as [|n]; [lia|]. replace (S n - 1) with n in H by lia. nia.
Qed.

(** ** SJF on the family: A_k at k - 1, then m^2 - 1 of the B at m - 1, the last B at m *)

Definition slo (i : nat) : nat := match i with 0 => 0 | S i' => i' end.

Lemma slo_pred : forall n, 1 <= n -> slo n = n - 1.
Proof. intros [|n] H; simpl; lia. Qed.

Lemma tel_app : forall l1 l2, tel_js (l1 ++ l2) = tel_js l1 + tel_js l2.
Proof. intros; apply sumf_app. Qed.

Section Sjf_family.
Variable m : nat.
Hypothesis Hm : 2 <= m.
Let M := 2 * m * m.
Let K := m * m.

Fixpoint salist (i : nat) : list (req * nat) :=
  match i with
  | 0 => []
  | S i' => (fa m, i') :: salist i'
  end.

Fixpoint sout (i j : nat) : list (req * nat) :=
  match j with
  | 0 => []
  | S j' => (fa m, i) :: sout (S i) j'
  end.

Lemma salist_finish : forall i e, In e (salist i) -> finish e <= i.
Proof.
  induction i; intros e He; simpl in He; [contradiction|].
  destruct He as [<-|He]; [unfold finish, fa, output; simpl; lia|].
  specialize (IHi e He). lia.
Qed.

Lemma salist_usage_after : forall i t, i < t -> usage_js (salist i) t = 0.
Proof.
  intros i t H. apply usage_js_finished. intros e He. specialize (salist_finish i e He). lia.
Qed.

Lemma sjf_A_phase : forall j i rest,
  place_r M (salist i) (slo i) (repeat (fa m) j ++ rest)
  = sout i j ++ place_r M (salist (i + j)) (slo (i + j)) rest.
Proof.
  induction j; intros i rest; [rewrite Nat.add_0_r; reflexivity|].
  cbn [repeat app place_r sout].
  assert (Hx : find_start M (salist i) (fa m) (slo i) (horizon_js (salist i) - slo i) = i).
  { destruct i as [|i']; [reflexivity|].
    set (pl := salist (S i')).
    assert (Hh : i' + 1 <= horizon_js pl).
    { assert (Hin : In (fa m, i') pl) by (left; auto).
      pose proof (horizon_ge pl _ Hin) as H0. unfold finish, fa, output in H0.
      cbn [fst snd] in H0. lia. }
    change (slo (S i')) with i'.
    destruct (horizon_js pl - i') as [|f] eqn:E; [lia|].
    rewrite find_start_skip, find_start_now; auto.
    - apply fits_spec. intros t' Ht'. unfold pl. rewrite salist_usage_after by fam_lia.
      unfold fa, prompt, output in *; simpl in *. unfold M. nia.
    - apply (fits_false _ _ _ _ (S i')); [fam_lia|].
      unfold pl. simpl salist. rewrite usage_js_cons. cbn [fst snd].
      rewrite req_usage_on by fam_lia. unfold fa, prompt, output; cbn [fst snd]. unfold M. nia. }
  rewrite Hx. change ((fa m, i) :: salist i) with (salist (S i)).
  pose proof (IHj (S i) rest) as H. cbn [slo] in H. rewrite H.
  replace (S i + j) with (i + S j) by lia. reflexivity.
Qed.

Lemma salist_m : salist m = (fa m, m - 1) :: salist (m - 1).
Proof.
  assert (Em : m = S (m - 1)) by lia. rewrite Em at 1. reflexivity.
Qed.

(** Usage of the A block at steps after m - 1. *)
Lemma salist_m_usage : forall t, m - 1 < t ->
  usage_js (salist m) t = if Nat.eqb t m then m * m + 1 else 0.
Proof.
  intros t Ht. rewrite salist_m, usage_js_cons, salist_usage_after by lia. cbn [fst snd].
  destruct (Nat.eqb_spec t m).
  - rewrite req_usage_on by fam_lia. unfold fa, prompt; simpl. lia.
  - rewrite req_usage_zero_after by fam_lia. lia.
Qed.

Lemma sjf_B_phase : forall j k rest, k + j <= K - 1 ->
  place_r M (repeat (fb, m - 1) k ++ salist m) (m - 1) (repeat fb j ++ rest)
  = repeat (fb, m - 1) j ++ place_r M (repeat (fb, m - 1) (j + k) ++ salist m) (m - 1) rest.
Proof.
  induction j; intros k rest Hk; [reflexivity|]. cbn [repeat app place_r].
  rewrite find_start_now.
  - change ((fb, m - 1) :: repeat (fb, m - 1) k ++ salist m)
      with (repeat (fb, m - 1) (S k) ++ salist m).
    rewrite IHj by lia. replace (j + S k) with (S j + k) by lia. reflexivity.
  - apply fits_spec. intros t' Ht'. unfold fb, output, prompt in Ht'; cbn [fst snd] in Ht'.
    rewrite usage_js_app, usage_js_repeat, salist_m_usage by lia. cbn [fst snd].
    rewrite req_usage_on by fam_lia. unfold fb, prompt; cbn [fst].
    destruct (Nat.eqb_spec t' m); unfold M, K in *; nia.
Qed.

Lemma sjf_last_B :
  place_r M (repeat (fb, m - 1) (K - 1) ++ salist m) (m - 1) [fb] = [(fb, m)].
Proof.
  assert (HK : 4 <= K) by (unfold K; nia).
  cbn [place_r]. set (pl := repeat (fb, m - 1) (K - 1) ++ salist m).
  assert (Hh : m + 1 <= horizon_js pl).
  { assert (Hin : In (fb, m - 1) pl).
    { unfold pl. apply in_or_app. left. replace (K - 1) with (S (K - 2)) by lia. left; auto. }
    pose proof (horizon_ge pl _ Hin) as H0. unfold finish, fb, output in H0.
    cbn [fst snd] in H0. lia. }
  destruct (horizon_js pl - (m - 1)) as [|f] eqn:E; [lia|].
  rewrite find_start_skip, find_start_now.
  - replace (S (m - 1)) with m by lia. reflexivity.
  - apply fits_spec. intros t' Ht'. unfold fb, output, prompt in Ht'; cbn [fst snd] in Ht'.
    unfold pl. rewrite usage_js_app, usage_js_repeat, salist_m_usage by lia. cbn [fst snd].
    destruct (Nat.eqb_spec t' m); [lia|].
    destruct (Nat.eqb_spec t' (S m)).
    + subst t'. rewrite req_usage_on by fam_lia. unfold fb, prompt; cbn [fst].
      unfold M, K in *. nia.
    + rewrite req_usage_zero_after by fam_lia. unfold fb, prompt; cbn [fst]. unfold M. nia.
  - apply (fits_false _ _ _ _ m); [fam_lia|].
    unfold pl. rewrite usage_js_app, usage_js_repeat, salist_m_usage by lia. cbn [fst snd].
    rewrite Nat.eqb_refl, req_usage_on by fam_lia. unfold fb, prompt; cbn [fst].
    unfold M, K in *. nia.
Qed.

Lemma sjf_family_placed :
  place_r M [] 0 (sort_o (fam m))
  = sout 0 m ++ repeat (fb, m - 1) (K - 1) ++ [(fb, m)].
Proof.
  assert (HK : 4 <= K) by (unfold K; nia).
  unfold fam. rewrite sort_o_fam.
  change (@nil (req * nat)) with (salist 0). change 0 with (slo 0) at 2.
  rewrite sjf_A_phase. f_equal. cbn [Nat.add]. rewrite slo_pred by lia.
  replace (repeat fb (m * m)) with (repeat fb (K - 1) ++ [fb])
    by (replace [fb] with (repeat fb 1) by reflexivity; rewrite <- repeat_app;
        f_equal; unfold K; lia).
  change (salist m) with (repeat (fb, m - 1) 0 ++ salist m).
  rewrite sjf_B_phase by lia. f_equal. rewrite Nat.add_0_r. apply sjf_last_B.
Qed.

Lemma tel_sout : forall j i, 2 * tel_js (sout i j) = 2 * j * (i + 1) + j * (j - 1).
Proof.
  intros j i. assert (Hcons : forall i j, sout i (S j) = (fa m, i + 0) :: sout (S i) j)
    by (intros; rewrite Nat.add_0_r; reflexivity).
  pose proof (tel_fa_run m 0 sout (fun _ => eq_refl) Hcons j i). nia.
Qed.

End Sjf_family.

(** on the same family: 2 TEL(SJF) = m(m+1) + 2(m^3 + m^2 + 1) (kong.sjf_unbounded) *)
Theorem sjf_family_tel : forall m, 2 <= m ->
  2 * tel (fam m) (sjf (2 * m * m) (fam m)) = m * (m + 1) + 2 * (m * m * m + m * m + 1).
Proof.
  intros m Hm. rewrite tel_sjf_r, (sjf_family_placed m Hm), !tel_app, tel_repeat.
  pose proof (tel_sout m Hm m 0) as H. unfold tel_js at 2. cbn [sumf].
  unfold finish, fb, output; cbn [fst snd].
  assert (Hq : m * m = S (m * m - 1)) by nia. set (q := m * m - 1) in *.
  destruct m as [|n]; [lia|]. replace (S n - 1) with n in * by lia. nia.
Qed.

(** m TEL(SVF) <= 3 TEL(SJF) on the family *)
Theorem sjf_family_ratio : forall m, 2 <= m ->
  m * tel (fam m) (svf (2 * m * m) (fam m)) <= 3 * tel (fam m) (sjf (2 * m * m) (fam m)).
Proof.
  intros m Hm. pose proof (svf_family_tel m Hm). pose proof (sjf_family_tel m Hm). nia.
Qed.

(** for every c some burst with every peak <= 5/8 M has a feasible S with c TEL(S) < TEL(SJF) *)
Theorem sjf_not_competitive : forall c, exists M rs xs,
  (forall r, In r rs -> 8 * peak r <= 5 * M) /\ feasible M rs xs /\
  c * tel rs xs < tel rs (sjf M rs).
Proof.
  intros c. set (m := 3 * c + 3). assert (Hm : 2 <= m) by (unfold m; lia).
  exists (2 * m * m), (fam m), (svf (2 * m * m) (fam m)).
  assert (Hp : forall r, In r (fam m) -> 8 * peak r <= 5 * (2 * m * m)).
  { intros r Hr. unfold fam in Hr. apply in_app_or in Hr.
    destruct Hr as [Hr|Hr]; apply repeat_spec in Hr; subst r;
      unfold peak, fa, fb, prompt, output; simpl; nia. }
  split; [auto|]. split.
  - apply svf_feasible. intros r Hr. specialize (Hp r Hr). lia.
  - pose proof (svf_family_tel m Hm). pose proof (sjf_family_ratio m Hm). unfold m in *. nia.
Qed.

(** m = 3 (M = 18, 12 requests): 30 and 43, as closed_form_tels(3) in Python. *)
Example family_3 : tel (fam 3) (svf 18 (fam 3)) = 30 /\ tel (fam 3) (sjf 18 (fam 3)) = 43.
Proof. split; vm_compute; reflexivity. Qed.
