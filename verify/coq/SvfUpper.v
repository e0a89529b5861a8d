(** * An upper bound on SVF's ratio below Thm. 3.2 (ledger row svf.upper_bound).

    Thm. 3.2 (Thm32.v) adds three facts: Lemma A.2 summed, (M - P) sum x <= 2 Q with
    Q = sum_{i<j} min(v_i, v_j) (LemmaA2Sum.lemmaA2_summed, lemmaA2_summed_pairs);
    Prop. 3.1, M TEL(S) >= V + Q (V = sum v); and sum o <= TEL(S).  Its ratio
    1 + 2/(1 - alpha) comes from charging sum o to TEL(S) a second time.

    Here Prop. 3.1 is replaced by a lower bound on TEL(S) that also counts the outputs, the
    mean-busy-time bound of single-machine scheduling (Goemans; Queyranne's parallel
    inequalities) read on the memory:

        [opt_mean_busy]:  6 M TEL(S) >= 6 Q + 3 V + 2 M sum o     (every feasible S, o >= 1).

    Proof.  Memory is a machine of capacity M per step; request j holds u_j(t) at step t.
    (a) [square_moment]: a profile U(t) <= M with total W has
        M * sum_t (2t - 1) U(t) >= W^2 (fill the earliest steps first).
    (b) So every set A of requests has M * sum_{j in A} y_j >= (sum_{j in A} v_j)^2, with the
        moment y_j = sum_t (2t - 1) u_j(t) ([subset_square]).
    (c) [abel]: sorted by volume (weights w_j = W / v_j non-increasing) and summed by parts,
        M * sum_j w_j y_j >= sum_k w_k ((V_k)^2 - (V_{k-1})^2) = W (2 Q + V).
    (d) [moment_identity]: y_j + e_j = 2 v_j C_j for the completion C_j = x_j + o_j of S,
        e_j = s o^2 + o (o + 1)(2o + 1)/6 >= 2 o v_j / 3 (C_j minus the mean busy time
        y_j / (2 v_j) is at least o_j / 3).  Weighted by w_j and summed: (d) and (c) give
        2 M TEL(S) >= 2 Q + V + (2/3) M sum o.

    With Lemma A.2 summed this gives [svf_upper_bound]:

        3 (M - P) TEL(SVF) <= (6 M + (M - 3P)) TEL(S)        (M - 3P truncated at 0),

    i.e. TEL(SVF)/OPT <= 2/(1 - alpha) for alpha >= 1/3 and (7 - 3 alpha)/(3 (1 - alpha)) below:
    4 at alpha = 1/2 (Thm. 3.2: 5), 25/9 at alpha = 1/4 (Thm. 3.2: 11/3).  The factor 2 in front
    of 1/(1 - alpha) is Lemma A.2's and stays. *)

From Coq Require Import Arith Lia List Permutation Sorting.
From GeoSched Require Import Model Volume Prop31 Svf SvfFacts Thm32 Inversion LemmaA2Sum.
Import ListNotations.

(** ** (a) The square bound of one profile *)

Lemma square_moment : forall M H (f : nat -> nat), (forall t, f t <= M) ->
  sum_upto H f * sum_upto H f <= M * sum_upto H (fun t => (2 * t + 1) * f t).
Proof.
  intros M H f Hf. induction H as [|H IH]; cbn [sum_upto]; [lia|].
  assert (Hs : sum_upto H f <= H * M) by (rewrite <- sum_upto_const; apply sum_upto_le; intros; apply Hf).
  pose proof (Hf H) as Ha. set (S := sum_upto H f) in *. set (a := f H) in *.
  set (Y := sum_upto H (fun t => (2 * t + 1) * f t)) in *.
  assert (S * a <= H * M * a) by (apply Nat.mul_le_mono_r; exact Hs).
  assert (a * a <= M * a) by (apply Nat.mul_le_mono_r; exact Ha).
  nia.
Qed.

(** ** (b) The moment of a request and of a set of requests *)

(** The moment of request e (started at snd e): sum over its steps t + 1 of (2t + 1) u(t + 1). *)
Definition moment (e : req * nat) : nat :=
  sum_upto (finish e) (fun t => (2 * t + 1) * req_usage (fst e) (snd e) (S t)).

Lemma moment_partial : forall s o x k, k <= o ->
  6 * sum_upto (x + k) (fun t => (2 * t + 1) * req_usage (s, o) x (S t)) + 3 * k * (k + 1)
  = 6 * x * (2 * s * k + k * k + k) + 6 * s * k * k + 2 * k * (k + 1) * (2 * k + 1).
Proof.
  intros s o x k. induction k as [|k IH]; intros Hk.
  - replace (x + 0) with x by lia. rewrite (sum_upto_ext x _ (fun _ => 0)).
    + rewrite sum_upto_const. lia.
    + intros t Ht. rewrite req_usage_zero_before by lia. lia.
  - replace (x + S k) with (S (x + k)) by lia. cbn [sum_upto].
    unfold req_usage at 2. cbn [fst snd output prompt].
    destruct (Nat.ltb_spec x (S (x + k))); [|lia].
    destruct (Nat.leb_spec (S (x + k)) (x + o)); [|lia]. cbn [andb].
    replace (S (x + k) - x) with (S k) by lia.
    specialize (IH ltac:(lia)). nia.
Qed.

(** The moment against the completion: y + s o^2 + o (o + 1)(2o + 1)/6 = 2 v C, times 6. *)
Lemma moment_identity : forall e,
  6 * moment e + 6 * prompt (fst e) * output (fst e) * output (fst e)
  + output (fst e) * (output (fst e) + 1) * (2 * output (fst e) + 1)
  = 6 * volume2 (fst e) * finish e.
Proof.
  intros [[s o] x]. unfold moment, finish, volume2. cbn [fst snd prompt output].
  pose proof (moment_partial s o x o (le_n o)) as H. nia.
Qed.

Lemma moment_horizon : forall e H, finish e <= H ->
  sum_upto H (fun t => (2 * t + 1) * req_usage (fst e) (snd e) (S t)) = moment e.
Proof.
  intros e H Hf. unfold moment. induction H as [|H IH].
  - replace (finish e) with 0 by lia. reflexivity.
  - destruct (Nat.eq_dec (finish e) (S H)) as [->|Hne]; [reflexivity|].
    cbn [sum_upto]. rewrite IH by lia. rewrite req_usage_zero_after by (unfold finish in *; lia). lia.
Qed.

Lemma volume_horizon : forall e H, finish e <= H ->
  sum_upto H (fun t => req_usage (fst e) (snd e) (S t)) = volume (fst e).
Proof. intros e H Hf. apply volume_is_memory_time. unfold finish in Hf. lia. Qed.

(** Every set of requests run within M: M * (sum of moments) >= (sum of volumes)^2. *)
Lemma subset_square : forall M (l : list (req * nat)),
  (forall t, usage_js l t <= M) ->
  sumf (fun e => volume (fst e)) l * sumf (fun e => volume (fst e)) l <= M * sumf moment l.
Proof.
  intros M l Hu. set (H := horizon_js l).
  rewrite (sumf_ext (fun e => volume (fst e)) (fun e => sum_upto H (fun t => req_usage (fst e) (snd e) (S t))))
    by (intros e He; symmetry; apply volume_horizon, horizon_ge, He).
  rewrite (sumf_ext moment (fun e => sum_upto H (fun t => (2 * t + 1) * req_usage (fst e) (snd e) (S t))))
    by (intros e He; symmetry; apply moment_horizon, horizon_ge, He).
  rewrite <- !(sum_upto_sumf H (fun e t => _)).
  rewrite (sum_upto_ext H (fun t => sumf (fun a => (2 * t + 1) * req_usage (fst a) (snd a) (S t)) l)
                        (fun t => (2 * t + 1) * usage_js l (S t)))
    by (intros t _; unfold usage_js; apply sumf_mul_l).
  apply (square_moment M H (fun t => usage_js l (S t))). intros t; apply Hu.
Qed.

(** ** (c) Summation by parts with non-increasing weights *)

Section Abel.
  Variable A : Type.
  Variables (w y v : A -> nat) (M : nat).

  (** sum_k w_k (2 V_{k-1} v_k + v_k^2) = sum_k w_k (V_k^2 - V_{k-1}^2), from V_0 = V0. *)
  Fixpoint abel_rhs (V0 : nat) (l : list A) : nat :=
    match l with
    | [] => 0
    | a :: l' => w a * (2 * V0 * v a + v a * v a) + abel_rhs (V0 + v a) l'
    end.

  Lemma abel : forall l Y0 V0 c,
    (forall a, In a l -> w a <= c) ->
    StronglySorted (fun a b => w b <= w a) l ->
    (forall k, (V0 + sumf v (firstn k l)) * (V0 + sumf v (firstn k l)) <= M * (Y0 + sumf y (firstn k l))) ->
    c * (V0 * V0) + abel_rhs V0 l <= M * (c * Y0 + sumf (fun a => w a * y a) l).
  Proof.
    induction l as [|a l IH]; intros Y0 V0 c Hc Hs Hk.
    - specialize (Hk 0). cbn [firstn sumf abel_rhs] in *. rewrite !Nat.add_0_r in *.
      assert (c * (V0 * V0) <= c * (M * Y0)) by (apply Nat.mul_le_mono_l; exact Hk). nia.
    - inversion Hs as [|? ? Hs' Hf]; subst. cbn [abel_rhs sumf].
      assert (Hwa : w a <= c) by (apply Hc; left; auto).
      assert (IH' : w a * ((V0 + v a) * (V0 + v a)) + abel_rhs (V0 + v a) l
                    <= M * (w a * (Y0 + y a) + sumf (fun b => w b * y b) l)).
      { apply IH.
        - intros b Hb. rewrite Forall_forall in Hf. apply Hf, Hb.
        - exact Hs'.
        - intros k. specialize (Hk (S k)). cbn [firstn sumf] in Hk.
          replace (V0 + v a + sumf v (firstn k l)) with (V0 + (v a + sumf v (firstn k l))) by lia.
          replace (Y0 + y a + sumf y (firstn k l)) with (Y0 + (y a + sumf y (firstn k l))) by lia.
          exact Hk. }
      pose proof (Hk 0) as H0. cbn [firstn sumf] in H0. rewrite !Nat.add_0_r in H0.
      assert (Hd : (c - w a) * (V0 * V0) <= (c - w a) * (M * Y0)) by (apply Nat.mul_le_mono_l; exact H0).
      replace c with ((c - w a) + w a) at 1 2 by lia. nia.
  Qed.
End Abel.

Arguments abel_rhs {A} w v V0 l.

(** ** Sorting a schedule by volume *)

Definition evol (e : req * nat) : nat := volume (fst e).

Fixpoint insert_e (a : req * nat) (l : list (req * nat)) : list (req * nat) :=
  match l with
  | [] => [a]
  | b :: l' => if Nat.leb (evol a) (evol b) then a :: l else b :: insert_e a l'
  end.

Fixpoint sort_e (l : list (req * nat)) : list (req * nat) :=
  match l with
  | [] => []
  | a :: l' => insert_e a (sort_e l')
  end.

Lemma sort_e_perm : forall l, Permutation (sort_e l) l.
Proof. apply (insertion_sort_perm (fun a b => Nat.leb (evol a) (evol b)) insert_e); reflexivity. Qed.

Definition ele (a b : req * nat) : Prop := evol a <= evol b.

Lemma sort_e_sorted : forall l, StronglySorted ele (sort_e l).
Proof. apply (key_sort_sorted evol insert_e); reflexivity. Qed.

Lemma usage_js_firstn : forall l k t, usage_js (firstn k l) t <= usage_js l t.
Proof.
  intros l k t. rewrite <- (firstn_skipn k l) at 2. rewrite usage_js_app. lia.
Qed.

Lemma usage_js_perm : forall l1 l2 t, Permutation l1 l2 -> usage_js l1 t = usage_js l2 t.
Proof. intros l1 l2 t H. apply sumf_perm, H. Qed.

(** ** The weights W / v *)

Definition vprod (l : list (req * nat)) : nat := fold_right (fun e acc => evol e * acc) 1 l.

Lemma vprod_divide : forall l e, In e l -> Nat.divide (evol e) (vprod l).
Proof.
  induction l as [|a l IH]; intros e He; [contradiction|]. unfold vprod; cbn [fold_right]; fold (vprod l).
  destruct He as [<-|He].
  - exists (vprod l). ring.
  - destruct (IH e He) as [k Hk]. exists (evol a * k). rewrite Hk. ring.
Qed.

Lemma vprod_pos : forall l, (forall e, In e l -> 1 <= evol e) -> 1 <= vprod l.
Proof.
  induction l as [|a l IH]; intros H; unfold vprod; cbn [fold_right]; [lia|]. fold (vprod l).
  assert (1 <= evol a) by (apply H; left; auto).
  assert (1 <= vprod l) by (apply IH; intros; apply H; right; auto). nia.
Qed.

Lemma weight_exact : forall l e, In e l -> 1 <= evol e -> vprod l / evol e * evol e = vprod l.
Proof.
  intros l e He Hv. destruct (vprod_divide l e He) as [k Hk]. rewrite Hk, Nat.div_mul by lia. reflexivity.
Qed.

(** With w e * v e = W on l, the right side of [abel] is W (2 V0 |l| + 2 sum_{i<j} v_i + sum v). *)
Lemma abel_rhs_exact : forall (w : req * nat -> nat) W l V0,
  (forall e, In e l -> w e * evol e = W) ->
  abel_rhs w evol V0 l = W * (2 * V0 * length l + 2 * vol_before (map fst l) + sumf evol l).
Proof.
  intros w W. induction l as [|a l IH]; intros V0 Hw; cbn [abel_rhs length map vol_before sumf]; [lia|].
  rewrite IH by (intros; apply Hw; right; auto). rewrite map_length.
  assert (Ha : w a * evol a = W) by (apply Hw; left; auto). unfold evol in *. nia.
Qed.

Lemma sorted_fst : forall l, StronglySorted ele l -> StronglySorted (fun a b => volume a <= volume b) (map fst l).
Proof.
  induction l as [|a l IH]; intros Hs; cbn [map]; constructor; inversion Hs as [|? ? Hs' Hf]; subst; auto.
  apply Forall_forall. intros b Hb. apply in_map_iff in Hb. destruct Hb as [e [<- He]].
  rewrite Forall_forall in Hf. apply (Hf e He).
Qed.

Lemma weights_sorted : forall W l, StronglySorted ele l -> (forall e, In e l -> 1 <= evol e) ->
  StronglySorted (fun a b => W / evol b <= W / evol a) l.
Proof.
  intros W l. induction l as [|a l IH]; intros Hs Hv; constructor; inversion Hs as [|? ? Hs' Hf]; subst.
  - apply IH; auto. intros; apply Hv; right; auto.
  - apply Forall_forall. intros b Hb. rewrite Forall_forall in Hf. specialize (Hf b Hb). unfold ele in Hf.
    apply Nat.div_le_compat_l. split; [apply Hv; left; auto|exact Hf].
Qed.

(** ** (d) The per-request residual: C - y / (2 v) >= o / 3 *)

Lemma residual_bound : forall r,
  2 * output r * volume2 r <= 6 * prompt r * output r * output r + output r * (output r + 1) * (2 * output r + 1).
Proof. intros [s o]. unfold volume2, prompt, output. cbn [fst snd]. nia. Qed.

(** The mean-busy-time bound: 6 M TEL(S) >= 6 sum_{i<j} min(v_i, v_j) + 3 sum v + 2 M sum o. *)
Theorem opt_mean_busy : forall M rs xs,
  (forall r, In r rs -> 1 <= output r) -> feasible M rs xs ->
  6 * psum Nat.min (map volume rs) + 3 * sumf volume rs + 2 * M * sumf output rs <= 6 * M * tel rs xs.
Proof.
  intros M rs xs Ho [Hlen Hu]. set (js := combine rs xs). set (l := sort_e js).
  assert (Hperm : Permutation l js) by apply sort_e_perm.
  assert (Hfst : map fst js = rs) by (apply map_fst_combine; lia).
  assert (Hin : forall e, In e l -> 1 <= output (fst e)).
  { intros e He. apply Ho. rewrite <- Hfst. apply in_map, (Permutation_in _ Hperm), He. }
  assert (Hv : forall e, In e l -> 1 <= evol e).
  { intros e He. specialize (Hin e He). unfold evol, volume. destruct (fst e) as [s o].
    unfold output, prompt in *. cbn [fst snd] in *.
    assert (H2 : 2 <= o * o + o) by nia.
    pose proof (Nat.div_le_mono 2 (o * o + o) 2 ltac:(lia) H2) as H3. change (2 / 2) with 1 in H3. lia. }
  set (W := vprod l). set (w := fun e => W / evol e).
  assert (HW : 1 <= W) by (apply vprod_pos, Hv).
  assert (Hwv : forall e, In e l -> w e * evol e = W) by (intros e He; apply weight_exact; auto).
  (* (c): summation by parts *)
  assert (Habel : W * (0 * 0) + abel_rhs w evol 0 l <= M * (W * 0 + sumf (fun e => w e * moment e) l)).
  { apply abel.
    - intros e He. unfold w. apply Nat.div_le_upper_bound; [specialize (Hv e He); lia|]. specialize (Hv e He). nia.
    - apply weights_sorted; [apply sort_e_sorted|exact Hv].
    - intros k. rewrite !Nat.add_0_l. apply subset_square. intros t.
      eapply Nat.le_trans; [apply usage_js_firstn|]. rewrite (usage_js_perm _ _ t Hperm). apply Hu. }
  rewrite (abel_rhs_exact w W l 0 Hwv) in Habel.
  (* the pairs and the volumes, back to the instance's order *)
  assert (Hpairs : vol_before (map fst l) = psum Nat.min (map volume rs)).
  { rewrite vol_before_sorted by (apply sorted_fst, sort_e_sorted).
    apply psum_perm; [apply Nat.min_comm|]. rewrite <- Hfst. apply Permutation_map, Permutation_map, Hperm. }
  assert (Hvols : sumf evol l = sumf volume rs).
  { unfold evol. rewrite (sumf_perm _ _ _ Hperm), <- Hfst, sumf_map. reflexivity. }
  assert (Houts : sumf (fun e => output (fst e)) l = sumf output rs).
  { rewrite (sumf_perm _ _ _ Hperm), <- Hfst, sumf_map. reflexivity. }
  assert (Htel : sumf finish l = tel rs xs) by (unfold tel, tel_js; apply sumf_perm, Hperm).
  (* (d): the moments against the completions, weighted *)
  set (e6 := fun e : req * nat => 6 * prompt (fst e) * output (fst e) * output (fst e)
                                  + output (fst e) * (output (fst e) + 1) * (2 * output (fst e) + 1)).
  assert (Hw2 : forall e, In e l -> w e * volume2 (fst e) = 2 * W).
  { intros e He. rewrite volume2_eq. specialize (Hwv e He). unfold evol in Hwv. lia. }
  assert (Hid : forall e, In e l -> w e * (6 * moment e) + w e * e6 e = 12 * W * finish e).
  { intros e He. pose proof (moment_identity e) as Hm. specialize (Hw2 e He). unfold e6.
    rewrite <- Nat.mul_add_distr_l. rewrite Nat.add_assoc, Hm. nia. }
  assert (Hres : forall e, In e l -> 4 * W * output (fst e) <= w e * e6 e).
  { intros e He. pose proof (residual_bound (fst e)) as Hr. specialize (Hw2 e He). unfold e6.
    assert (w e * (2 * output (fst e) * volume2 (fst e))
            <= w e * (6 * prompt (fst e) * output (fst e) * output (fst e)
                      + output (fst e) * (output (fst e) + 1) * (2 * output (fst e) + 1)))
      by (apply Nat.mul_le_mono_l; exact Hr). nia. }
  assert (Hsum : sumf (fun e => w e * (6 * moment e)) l + sumf (fun e => w e * e6 e) l = 12 * W * tel rs xs).
  { rewrite <- sumf_add, <- Htel, <- sumf_mul_l. apply sumf_ext, Hid. }
  assert (Hsres : 4 * W * sumf output rs <= sumf (fun e => w e * e6 e) l).
  { rewrite <- Houts, <- sumf_mul_l. apply sumf_le, Hres. }
  assert (Hmom : sumf (fun e => w e * (6 * moment e)) l = 6 * sumf (fun e => w e * moment e) l).
  { rewrite <- sumf_mul_l. apply sumf_ext. intros; lia. }
  rewrite Hpairs, Hvols in Habel. rewrite Hmom in Hsum.
  set (PS := psum Nat.min (map volume rs)) in *. set (V := sumf volume rs) in *.
  set (O := sumf output rs) in *. set (T := tel rs xs) in *.
  set (Y := sumf (fun e => w e * moment e) l) in *. set (E := sumf (fun e => w e * e6 e) l) in *.
  apply (Nat.mul_le_mono_pos_l _ _ (2 * W)); [lia|].
  assert (M * E >= M * (4 * W * O)) by (apply Nat.mul_le_mono_l; exact Hsres).
  nia.
Qed.

(** ** The bound on SVF *)

Lemma svf_starts_sum : forall M rs, sumf snd (svf_js M rs) = sumf (fun x => x) (svf M rs).
Proof.
  intros M rs. rewrite <- (sumf_perm _ _ _ (svf_js_perm M rs)). rewrite <- (sumf_map (fun x => x) snd).
  rewrite map_snd_combine; auto. rewrite svf_length; lia.
Qed.

(** svf.upper_bound: every burst with outputs >= 1 and peaks <= P, every feasible S:
    3 (M - P) TEL(SVF) <= (6 M + (M - 3P)) TEL(S).  For 3P >= M it reads
    (M - P) TEL(SVF) <= 2 M TEL(S), i.e. 2/(1 - alpha); for 3P < M, (7M - 3P)/(3(M - P)). *)
Theorem svf_upper_bound : forall M P rs xs,
  (forall r, In r rs -> peak r <= P) ->
  (forall r, In r rs -> 1 <= output r) ->
  feasible M rs xs ->
  3 * (M - P) * tel rs (svf M rs) <= (6 * M + (M - 3 * P)) * tel rs xs.
Proof.
  intros M P rs xs HP Ho Hf.
  pose proof (lemmaA2_summed M P rs HP) as Hw. rewrite lemmaA2_summed_pairs in Hw.
  pose proof (opt_mean_busy M rs xs Ho Hf) as Hb.
  pose proof (tel_ge_outputs rs xs (proj1 Hf)) as Ho'.
  rewrite tel_svf, svf_starts_sum.
  set (X := sumf (fun x => x) (svf M rs)) in *. set (PS := psum Nat.min (map volume rs)) in *.
  set (V := sumf volume rs) in *. set (O := sumf output rs) in *. set (T := tel rs xs) in *.
  destruct (Nat.le_gt_cases (3 * P) M) as [Hle|Hgt].
  - (* alpha <= 1/3: 3(M - P) = 2M + (M - 3P), and (M - 3P) O <= (M - 3P) T *)
    replace (3 * (M - P)) with (2 * M + (M - 3 * P)) by lia.
    assert ((M - 3 * P) * O <= (M - 3 * P) * T) by (apply Nat.mul_le_mono_l; exact Ho').
    assert (3 * ((M - P) * X) <= 3 * (2 * PS)) by lia.
    replace ((M - P) * X) with ((M - P) * X) in * by reflexivity. nia.
  - (* alpha > 1/3: M - 3P = 0 and 3(M - P) < 2M *)
    replace (M - 3 * P) with 0 by lia.
    assert (3 * (M - P) * O <= 2 * M * O) by (apply Nat.mul_le_mono_r; lia).
    nia.
Qed.

(** The bound at alpha = 1/2 exactly (M = 2P): TEL(SVF) <= 4 TEL(S), against Thm. 3.2's 5. *)
Corollary svf_upper_bound_half : forall P rs xs,
  (forall r, In r rs -> peak r <= P) ->
  (forall r, In r rs -> 1 <= output r) ->
  feasible (2 * P) rs xs ->
  tel rs (svf (2 * P) rs) <= 4 * tel rs xs.
Proof.
  intros P rs xs HP Ho Hf. destruct rs as [|r rs'] eqn:Hrs; [reflexivity|].
  assert (HP1 : 1 <= P) by (specialize (HP r (or_introl eq_refl)); specialize (Ho r (or_introl eq_refl));
                            unfold peak in HP; lia).
  rewrite <- Hrs in *. pose proof (svf_upper_bound (2 * P) P rs xs HP Ho Hf) as Hb.
  replace (2 * P - 3 * P) with 0 in Hb by lia. replace (2 * P - P) with P in Hb by lia.
  nia.
Qed.
