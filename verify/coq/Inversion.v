(** * The inversion lemma: strict head-of-line placement in any priority order.

    Thm. 3.2's proof uses the volume order in one place only: when it bounds, pair by pair,
    the volume v_i of a request started before j by min(v_i, v_j).  For any order ([Hol.v])
    the certificate still gives

        (M - P) * sum_j x_j <= 2 * sum_{i started before j} v_i       ([hol_starts_bound])

    and the pairs are bounded by what the order guarantees:

    - [hol_inversion] (linear): if every request placed before another has volume at most R
      times its volume (R >= 1), each pair costs at most R * min, so
        (M - P) * TEL(order) <= (M - P + 2 R M) * TEL(S)   for every feasible S;
      R = 1 is SVF, and gives Thm. 3.2's (3M - P) again ([thm32_from_inversion]).
    - [hol_inversion_sqrt]: if instead v_i <= rho^2 v_j for every i placed before j
      (rho >= 1), then
        (M - P) * TEL(order) <= (M - P + 2 (2 rho - 1) M) * TEL(S):
      the cost grows with the square root of the worst inversion ratio, not with the ratio.
      Proof ([rank_bound]): sort the volumes decreasingly, u_1 >= u_2 >= ...; a pair
      (i, l), i < l, costs at most u_i when u_i <= rho^2 u_l, else u_l.  Charge it to i when
      l <= rho i (at most (rho - 1) i such l, each u_i), else to l (fewer than l / rho such i,
      each at most rho^2 u_l); both sums are at most rho * sum_l l u_l = rho * (Prop. 3.1's
      sum_k P_k).  The two-group instance (a large volumes, then b small ones, b = rho a) shows
      that sqrt is the right order. *)

From Coq Require Import Arith Lia List Bool Permutation Sorting.
From GeoSched Require Import Model Svf SvfFacts Prop31 LemmaA2 Thm32 Hol.
Import ListNotations.

(** ** Sums over the unordered pairs of a list of volumes *)

(** [psum f l] = sum over i < j of f l_i l_j (the earlier argument first). *)
Fixpoint psum (f : nat -> nat -> nat) (l : list nat) : nat :=
  match l with
  | [] => 0
  | a :: l' => sumf (f a) l' + psum f l'
  end.

Lemma psum_perm : forall f, (forall x y, f x y = f y x) ->
  forall l1 l2, Permutation l1 l2 -> psum f l1 = psum f l2.
Proof.
  intros f Hf l1 l2 H. induction H; cbn [psum sumf].
  - auto.
  - rewrite (sumf_perm _ _ _ H). lia.
  - rewrite (Hf x y). lia.
  - lia.
Qed.

Lemma psum_mul : forall c f l, psum (fun x y => c * f x y) l = c * psum f l.
Proof.
  intros c f l. induction l as [|a l IH]; cbn [psum]; [lia|].
  rewrite IH, (sumf_mul_l c (f a)). lia.
Qed.

Lemma psum_le : forall f g l, (forall x y, f x y <= g x y) -> psum f l <= psum g l.
Proof.
  intros f g l H. induction l as [|a l IH]; cbn [psum]; [lia|].
  assert (sumf (f a) l <= sumf (g a) l) by (apply sumf_le; auto). lia.
Qed.

(** Prop. 3.1's sum_k P_k is the volumes plus the pairs' minima. *)
Lemma pairmin_psum : forall rs, pairmin rs = sumf volume rs + psum Nat.min (map volume rs).
Proof.
  induction rs as [|r rs IH]; cbn [pairmin psum map sumf]; [lia|].
  rewrite IH, sumf_map. lia.
Qed.

(** ** From the placement to the pairs *)

Lemma ss_impl : forall {A} (R1 R2 : A -> A -> Prop) l,
  (forall a b, R1 a b -> R2 a b) -> StronglySorted R1 l -> StronglySorted R2 l.
Proof.
  intros A R1 R2 l H Hs. induction Hs; constructor; auto. apply (Forall_impl _ (H a)); auto.
Qed.

Lemma fop_impl : forall {A} (R1 R2 : A -> A -> Prop) l,
  (forall a b, R1 a b -> R2 a b) -> ForallOrdPairs R1 l -> ForallOrdPairs R2 l.
Proof.
  intros A R1 R2 l H Hp. induction Hp; constructor; auto. apply (Forall_impl _ (H a)); auto.
Qed.

(** Each pair is counted once, with the earlier request's volume, which [f] bounds. *)
Lemma dsum_before_psum : forall (f : nat -> nat -> nat) (l : list (req * nat)),
  StronglySorted (start_rel (fun a b => volume a <= f (volume a) (volume b))) l ->
  dsum before l <= psum f (map (fun e => volume (fst e)) l).
Proof.
  intros f. induction l as [|a l IH]; intros Hs; [unfold dsum; simpl; lia|].
  inversion Hs as [|? ? Hs' Hf]; subst. rewrite dsum_cons. cbn [map psum].
  assert (before a a = 0) by (unfold before; rewrite Nat.ltb_irrefl; auto).
  assert (sumf (fun b => before a b + before b a) l
          <= sumf (f (volume (fst a))) (map (fun e => volume (fst e)) l)).
  { rewrite sumf_map. apply sumf_le. intros b Hb. rewrite Forall_forall in Hf.
    destruct (Hf b Hb) as [H1 H2]. pose proof (before_pair a b H1). lia. }
  specialize (IH Hs'). lia.
Qed.

Lemma hol_vols_perm : forall M rs todo, order_of rs todo ->
  Permutation (map (fun e => volume (fst e)) (hol_js M todo)) (map volume rs).
Proof.
  intros M rs todo Ho.
  apply perm_trans with (map (fun e => volume (fst e)) (combine rs (hol M todo (length rs)))).
  - apply Permutation_map, Permutation_sym, hol_perm; auto.
  - rewrite <- (map_map fst volume), map_fst_combine; auto. rewrite hol_length. lia.
Qed.

(** The pair bound of the placement, for a symmetric cost [f] the order guarantees. *)
Lemma hol_pairs_bound : forall f M rs todo, order_of rs todo -> (forall x y, f x y = f y x) ->
  ForallOrdPairs (fun a b => volume (snd a) <= f (volume (snd a)) (volume (snd b))) todo ->
  dsum before (hol_js M todo) <= psum f (map volume rs).
Proof.
  intros f M rs todo Ho Hsym Hp.
  rewrite <- (psum_perm f Hsym _ _ (hol_vols_perm M rs todo Ho)).
  apply dsum_before_psum.
  apply (ss_impl (start_rel (fun a b => volume a <= f (volume a) (volume b)))); auto.
  apply hol_js_sorted, ordpairs_sorted; auto.
Qed.

(** ** Composition with Prop. 3.1 *)

(** If the pairs cost at most [c * pairmin], the order is (M - P + 2 c M)-competitive. *)
Lemma hol_compose : forall M P c rs todo xs, order_of rs todo ->
  (forall r, In r rs -> peak r <= P) -> feasible M rs xs ->
  dsum before (hol_js M todo) <= c * pairmin rs ->
  (M - P) * tel rs (hol M todo (length rs)) <= (M - P + 2 * c * M) * tel rs xs.
Proof.
  intros M P c rs todo xs Ho HP Hf Hd.
  pose proof (hol_starts_bound M P rs todo Ho HP) as Hs.
  pose proof (prop31_pairmin M rs xs Hf) as Hq.
  pose proof (tel_ge_outputs rs xs (proj1 Hf)) as Ho'.
  rewrite tel_hol by auto.
  set (D := M - P) in *. set (A := sumf snd (hol_js M todo)) in *.
  set (O := sumf output rs) in *. set (T := tel rs xs) in *.
  set (B := dsum before (hol_js M todo)) in *. set (Q := pairmin rs) in *.
  assert (D * O <= D * T) by (apply Nat.mul_le_mono_l; auto).
  assert (c * Q <= c * (M * T)) by (apply Nat.mul_le_mono_l; auto).
  nia.
Qed.

(** ** The linear inversion lemma *)

Lemma min_linear : forall R x y, 1 <= R -> x <= R * y -> x <= R * Nat.min x y.
Proof.
  intros R x y HR H. destruct (Nat.le_ge_cases x y); [rewrite Nat.min_l|rewrite Nat.min_r]; nia.
Qed.

(** any order in which every request placed before another has v_i <= R v_j (R >= 1), S feasible: (M - P)
    TEL(order) <= (M - P + 2RM) TEL(S) *)
Theorem hol_inversion : forall M P R rs todo xs,
  order_of rs todo -> 1 <= R ->
  ForallOrdPairs (fun a b => volume (snd a) <= R * volume (snd b)) todo ->
  (forall r, In r rs -> peak r <= P) -> feasible M rs xs ->
  (M - P) * tel rs (hol M todo (length rs)) <= (M - P + 2 * R * M) * tel rs xs.
Proof.
  intros M P R rs todo xs Ho HR Hpairs HP Hf. apply (hol_compose M P R rs todo xs Ho HP Hf).
  eapply Nat.le_trans; [apply (hol_pairs_bound (fun x y => R * Nat.min x y) M rs todo Ho)|].
  - intros x y. rewrite Nat.min_comm. auto.
  - eapply fop_impl; [|exact Hpairs]. intros a b H. apply min_linear; auto.
  - rewrite psum_mul, (pairmin_psum rs). nia.
Qed.

(** Thm. 3.2 again, as the instance R = 1 of [hol_inversion] *)
Corollary thm32_from_inversion : forall M P rs xs,
  (forall r, In r rs -> peak r <= P) -> P < M -> feasible M rs xs ->
  (M - P) * tel rs (svf M rs) <= (3 * M - P) * tel rs xs.
Proof.
  intros M P rs xs HP HPM Hf. rewrite svf_hol.
  replace (3 * M - P) with (M - P + 2 * 1 * M) by lia.
  apply (hol_inversion M P 1 rs (svf_order rs) xs); auto using svf_order_is_order.
  pose proof (isort_v_sorted (combine (seq 0 (length rs)) rs)) as Hs.
  fold (svf_order rs) in Hs. clear -Hs. induction Hs as [|a l Hs IH Hf]; constructor; auto.
  eapply Forall_impl; [|exact Hf]. intros b H. unfold vle, vol_of in H.
  rewrite !volume2_eq in H. lia.
Qed.

(** ** The square-root inversion lemma *)

(** The cost of a pair whose larger volume is at most rho^2 times the smaller: the larger;
    otherwise the smaller. *)
Definition gsq (rho x y : nat) : nat :=
  if Nat.max x y <=? rho * rho * Nat.min x y then Nat.max x y else Nat.min x y.

Lemma gsq_comm : forall rho x y, gsq rho x y = gsq rho y x.
Proof. intros; unfold gsq; rewrite Nat.max_comm, Nat.min_comm; auto. Qed.

Lemma gsq_pair : forall rho x y, x <= rho * rho * y -> x <= gsq rho x y.
Proof.
  intros rho x y H. unfold gsq.
  destruct (Nat.le_ge_cases x y); [rewrite Nat.max_r, Nat.min_l by auto|rewrite Nat.max_l, Nat.min_r by auto].
  - destruct (y <=? rho * rho * x); lia.
  - destruct (Nat.leb_spec x (rho * rho * y)); lia.
Qed.

(** *** A decreasing sort of the volumes *)

Fixpoint insert_dec (x : nat) (l : list nat) : list nat :=
  match l with
  | [] => [x]
  | y :: l' => if y <=? x then x :: l else y :: insert_dec x l'
  end.

Fixpoint sort_dec (l : list nat) : list nat :=
  match l with
  | [] => []
  | x :: l' => insert_dec x (sort_dec l')
  end.

Lemma sort_dec_perm : forall l, Permutation (sort_dec l) l.
Proof. apply (insertion_sort_perm (fun x y => y <=? x) insert_dec); reflexivity. Qed.

Definition geq (a b : nat) : Prop := b <= a.

Lemma sort_dec_sorted : forall l, StronglySorted geq (sort_dec l).
Proof.
  apply (insertion_sort_sorted (fun x y => y <=? x) insert_dec); try reflexivity; unfold geq;
    intros a b; [intros E; apply Nat.leb_le in E|intros E; apply Nat.leb_gt in E|intros d]; lia.
Qed.

(** *** Lists as functions of the index *)

Lemma sumf_nth : forall g (u : list nat),
  sumf g u = sum_upto (length u) (fun i => g (nth i u 0)).
Proof.
  intros g u. induction u as [|z u IH] using rev_ind; [reflexivity|].
  rewrite sumf_app, app_length. cbn [sumf length]. rewrite Nat.add_1_r. cbn [sum_upto].
  rewrite IH. rewrite app_nth2, Nat.sub_diag by lia. cbn [nth]. f_equal; [|lia].
  apply sum_upto_ext. intros i Hi. rewrite app_nth1; auto.
Qed.

Lemma psum_snoc : forall f u z, psum f (u ++ [z]) = psum f u + sumf (fun a => f a z) u.
Proof.
  intros f u z. induction u as [|a u IH]; cbn [psum app sumf]; [lia|].
  rewrite IH, sumf_app. cbn [sumf]. lia.
Qed.

Lemma psum_nth : forall f (u : list nat),
  psum f u = sum_upto (length u) (fun l => sum_upto l (fun i => f (nth i u 0) (nth l u 0))).
Proof.
  intros f u. induction u as [|z u IH] using rev_ind; [reflexivity|].
  rewrite psum_snoc, app_length. cbn [length]. rewrite Nat.add_1_r. cbn [sum_upto].
  rewrite IH, (sumf_nth (fun a => f a z)). f_equal.
  - apply sum_upto_ext. intros l Hl. rewrite (app_nth1 u [z] 0 Hl).
    apply sum_upto_ext. intros i Hi. rewrite app_nth1 by lia. auto.
  - rewrite app_nth2, Nat.sub_diag by lia. cbn [nth].
    apply sum_upto_ext. intros i Hi. rewrite app_nth1; auto.
Qed.

Lemma sorted_nth : forall u i j, StronglySorted geq u -> i <= j -> j < length u ->
  nth j u 0 <= nth i u 0.
Proof.
  induction u as [|a u IH]; intros i j Hs Hij Hj; simpl in Hj; [lia|].
  inversion Hs as [|? ? Hs' Hf]; subst. destruct j as [|j].
  - replace i with 0 by lia. auto.
  - destruct i as [|i]; cbn [nth].
    + rewrite Forall_forall in Hf. apply Hf, nth_In. lia.
    + apply IH; auto; lia.
Qed.

(** *** The charging argument on the decreasing sequence *)

Lemma sum_upto_plus : forall n f g,
  sum_upto n (fun i => f i + g i) = sum_upto n f + sum_upto n g.
Proof. induction n; intros; simpl; [auto|rewrite IHn; lia]. Qed.

(** Exchange of the triangular double sum. *)
Lemma sum_upto_triangle : forall n (h : nat -> nat -> nat),
  sum_upto n (fun l => sum_upto l (fun i => h i l)) =
  sum_upto n (fun i => sum_upto n (fun l => if i <? l then h i l else 0)).
Proof.
  induction n as [|n IH]; intros h; [reflexivity|]. cbn [sum_upto]. rewrite IH.
  rewrite sum_upto_plus, Nat.ltb_irrefl.
  rewrite (sum_upto_ext n (fun l => if n <? l then h n l else 0) (fun _ => 0))
    by (intros l Hl; destruct (Nat.ltb_spec n l); lia).
  rewrite (sum_upto_ext n (fun i => if i <? n then h i n else 0) (fun i => h i n))
    by (intros i Hi; destruct (Nat.ltb_spec i n); lia).
  rewrite sum_upto_const. lia.
Qed.

(** At most b - a indices l in [a, b). *)
Lemma count_window : forall a b m,
  sum_upto m (fun l => if (a <=? l) && (l <? b) then 1 else 0) <= b - a.
Proof.
  intros a b m. assert (H : forall m, sum_upto m (fun l => if (a <=? l) && (l <? b) then 1 else 0)
                                      <= Nat.min m b - Nat.min m a).
  { induction m0 as [|m0 IH]; cbn [sum_upto]; [lia|].
    destruct (Nat.leb_spec a m0), (Nat.ltb_spec m0 b); cbn [andb]; lia. }
  specialize (H m). lia.
Qed.

(** rho times the number of i < m with rho (i + 1) <= l is at most l. *)
Lemma count_far : forall rho l m,
  rho * sum_upto m (fun i => if rho * S i <=? l then 1 else 0) <= l.
Proof.
  intros rho l m. induction m as [|m IH]; cbn [sum_upto]; [lia|].
  assert (Hc : sum_upto m (fun i => if rho * S i <=? l then 1 else 0) <= m).
  { rewrite <- (Nat.mul_1_r m) at 2. rewrite <- sum_upto_const.
    apply sum_upto_le. intros i _. destruct (rho * S i <=? l); lia. }
  destruct (Nat.leb_spec (rho * S m) l); nia.
Qed.

Section Rank.
  Variables (rho n : nat) (u : nat -> nat).
  Hypothesis Hrho : 1 <= rho.
  Hypothesis Hdec : forall i j, i <= j -> j < n -> u j <= u i.

  Let near (i l : nat) : bool := S l <=? rho * S i.

  Lemma gsq_split : forall i l, i < l -> l < n ->
    gsq rho (u i) (u l) <= (if near i l then u i else 0) + (if near i l then 0 else rho * rho * u l).
  Proof.
    intros i l Hil Hl. pose proof (Hdec i l ltac:(lia) Hl) as Hd. unfold gsq.
    rewrite Nat.max_l, Nat.min_r by auto.
    assert (u l <= rho * rho * u l) by (rewrite <- Nat.mul_1_l at 1; apply Nat.mul_le_mono_r; nia).
    destruct (near i l); destruct (Nat.leb_spec (u i) (rho * rho * u l)); lia.
  Qed.

  Lemma near_part : sum_upto n (fun l => sum_upto l (fun i => if near i l then u i else 0))
                    <= (rho - 1) * sum_upto n (fun i => S i * u i).
  Proof.
    rewrite sum_upto_triangle, <- sum_upto_mul. apply sum_upto_le. intros i Hi.
    rewrite (sum_upto_ext n _ (fun l => u i * (if (S i <=? l) && (l <? rho * S i) then 1 else 0))).
    - rewrite sum_upto_mul. pose proof (count_window (S i) (rho * S i) n). nia.
    - intros l Hl. unfold near. destruct (Nat.ltb_spec i l), (Nat.leb_spec (S l) (rho * S i));
        destruct (Nat.leb_spec (S i) l), (Nat.ltb_spec l (rho * S i)); cbn [andb]; lia.
  Qed.

  Lemma far_part : sum_upto n (fun l => sum_upto l (fun i => if near i l then 0 else rho * rho * u l))
                   <= rho * sum_upto n (fun l => l * u l).
  Proof.
    rewrite <- sum_upto_mul. apply sum_upto_le. intros l Hl.
    rewrite (sum_upto_ext l _ (fun i => (rho * rho * u l) * (if rho * S i <=? l then 1 else 0))).
    - rewrite sum_upto_mul. pose proof (count_far rho l l) as Hc.
      set (C := sum_upto l (fun i => if rho * S i <=? l then 1 else 0)) in *.
      assert (rho * C * (rho * u l) <= l * (rho * u l)) by (apply Nat.mul_le_mono_r; auto).
      replace (rho * rho * u l * C) with (rho * C * (rho * u l)) by ring.
      replace (rho * (l * u l)) with (l * (rho * u l)) by ring. auto.
    - intros i Hi. unfold near. destruct (Nat.leb_spec (S l) (rho * S i)), (Nat.leb_spec (rho * S i) l); lia.
  Qed.

  Lemma rank_bound : sum_upto n (fun l => sum_upto l (fun i => gsq rho (u i) (u l)))
                     <= (2 * rho - 1) * sum_upto n (fun l => S l * u l).
  Proof.
    eapply Nat.le_trans.
    - apply sum_upto_le. intros l Hl. apply sum_upto_le. intros i Hi. apply gsq_split; auto.
    - rewrite (sum_upto_ext n _ (fun l => sum_upto l (fun i => if near i l then u i else 0)
                                          + sum_upto l (fun i => if near i l then 0 else rho * rho * u l)))
        by (intros; apply sum_upto_plus).
      rewrite sum_upto_plus. pose proof near_part. pose proof far_part.
      assert (sum_upto n (fun l => l * u l) <= sum_upto n (fun l => S l * u l))
        by (apply sum_upto_le; intros; nia).
      nia.
  Qed.
End Rank.

(** On a decreasingly sorted list: sum_k P_k = sum_l (l + 1) u_l. *)
Lemma pm_sorted : forall u, StronglySorted geq u ->
  sumf (fun x => x) u + psum Nat.min u = sum_upto (length u) (fun l => S l * nth l u 0).
Proof.
  intros u Hs. rewrite sumf_nth, psum_nth, <- sum_upto_plus. apply sum_upto_ext. intros l Hl.
  rewrite (sum_upto_ext l _ (fun _ => nth l u 0)).
  - rewrite sum_upto_const. lia.
  - intros i Hi. apply Nat.min_r, sorted_nth; auto; lia.
Qed.

Lemma psum_gsq_bound : forall rho vs, 1 <= rho ->
  psum (gsq rho) vs <= (2 * rho - 1) * (sumf (fun x => x) vs + psum Nat.min vs).
Proof.
  intros rho vs Hrho.
  rewrite (psum_perm (gsq rho) (gsq_comm rho) vs (sort_dec vs)) by (apply Permutation_sym, sort_dec_perm).
  rewrite (sumf_perm _ vs (sort_dec vs)) by (apply Permutation_sym, sort_dec_perm).
  rewrite (psum_perm Nat.min Nat.min_comm vs (sort_dec vs)) by (apply Permutation_sym, sort_dec_perm).
  rewrite pm_sorted by apply sort_dec_sorted. rewrite psum_nth.
  apply rank_bound; auto. intros i j Hij Hj. apply sorted_nth; auto. apply sort_dec_sorted.
Qed.

(** the same with v_i <= rho^2 v_j (rho >= 1): (M - P + 2(2 rho - 1) M) TEL(S): the cost grows with the square
    root of the inversion ratio *)
Theorem hol_inversion_sqrt : forall M P rho rs todo xs,
  order_of rs todo -> 1 <= rho ->
  ForallOrdPairs (fun a b => volume (snd a) <= rho * rho * volume (snd b)) todo ->
  (forall r, In r rs -> peak r <= P) -> feasible M rs xs ->
  (M - P) * tel rs (hol M todo (length rs)) <= (M - P + 2 * (2 * rho - 1) * M) * tel rs xs.
Proof.
  intros M P rho rs todo xs Ho Hrho Hpairs HP Hf.
  apply (hol_compose M P (2 * rho - 1) rs todo xs Ho HP Hf).
  eapply Nat.le_trans; [apply (hol_pairs_bound (gsq rho) M rs todo Ho (gsq_comm rho))|].
  - eapply fop_impl; [|exact Hpairs]. intros a b H. apply gsq_pair; auto.
  - rewrite (pairmin_psum rs).
    replace (sumf volume rs) with (sumf (fun x => x) (map volume rs)) by (rewrite sumf_map; reflexivity).
    apply psum_gsq_bound; auto.
Qed.
