(** * The svf-triangles family: SVF starts in batches, a staggered schedule is ~(2 - 1/q) better.

    Family, for every q >= 1 and every n: p = 2 q - 1 (odd), memory M = q p = p (p + 1) / 2,
    and n identical requests (prompt 0, output p), all arriving at 0:
      rs = repeat (0, p) n.

    SVF (strict head-of-line, forward-looking check, Svf.v) starts them in batches of q
    every p steps: request k starts at p * (k / q) ([svf_triangles_starts]).  q requests
    started together use q (t - x) <= q p = M; a (q+1)-th one at x would exceed M at x + p;
    one started at x < u < x + p would exceed M at x + p; at x + p the batch has finished.

    The staggered schedule "request k starts at step k" is feasible
    ([triangles_staggered_feasible]): at step t the running requests have distinct ages
    in 1 .. p, so the usage is at most 1 + ... + p = p (p + 1) / 2 = M.

    Per request, q (p (k / q) + p) >= p (k + 1), hence
      p TEL(staggered) <= q TEL(SVF) + p (p - 1) n   ([svf_triangles_ratio_sharp])
    and the weaker form with p p n ([svf_triangles_ratio]).  Since TEL(staggered)
    = n (n - 1) / 2 + p n grows quadratically in n ([triangles_staggered_tel]) and
    OPT <= TEL(staggered), this gives liminf_n TEL(SVF) / TEL(OPT) >= p / q = 2 - 1/q.
    For n = q b (full batches) TEL(SVF) = p q b (b + 1) / 2 ([svf_triangles_tel]). *)

From Coq Require Import Arith Lia List Bool Permutation Sorting.
From GeoSched Require Import Model Svf SvfFacts.
Import ListNotations.

(** ** Generic tools for computing placements *)

(** The search returns x when every step in [lo, x) fails, x fits and the fuel reaches x. *)
Lemma tri_find_start_exact : forall M pl r fuel lo x,
  lo <= x <= lo + fuel ->
  (forall u, lo <= u < x -> fits M pl r u = false) ->
  fits M pl r x = true -> find_start M pl r lo fuel = x.
Proof.
  induction fuel; intros lo x Hx Hfail Hfit; simpl; [lia|].
  destruct (Nat.eq_dec lo x) as [<-|Hne]; [rewrite Hfit; auto|].
  rewrite (Hfail lo) by lia. apply IHfuel; auto; [lia|].
  intros u Hu; apply Hfail; lia.
Qed.

(** Going from k to k + 1 either stays in the batch k / q or starts the next one. *)
Lemma tri_divmod_succ : forall q k, 1 <= q ->
  (S (k mod q) < q /\ S k / q = k / q /\ S k mod q = S (k mod q)) \/
  (S (k mod q) = q /\ S k / q = S (k / q) /\ S k mod q = 0).
Proof.
  intros q k Hq.
  pose proof (Nat.div_mod k q ltac:(lia)) as Hd.
  pose proof (Nat.mod_upper_bound k q ltac:(lia)) as Hm.
  destruct (Nat.eq_dec (S (k mod q)) q) as [E|E].
  - right. split; auto. split.
    + symmetry. apply (Nat.div_unique _ _ _ 0); nia.
    + symmetry. apply (Nat.mod_unique _ _ (S (k / q)) 0); nia.
  - left. split; [lia|]. split.
    + symmetry. apply (Nat.div_unique _ _ _ (S (k mod q))); lia.
    + symmetry. apply (Nat.mod_unique _ _ (k / q)); lia.
Qed.

Lemma sumf_lin_bound : forall {A} (F G : A -> nat) a b c l,
  (forall x, a * F x <= b * G x + c) -> a * sumf F l <= b * sumf G l + c * length l.
Proof.
  intros A F G a b c l H. induction l as [|x l IH]; simpl; [lia|].
  specialize (H x). rewrite !Nat.mul_add_distr_l, Nat.mul_succ_r. lia.
Qed.

(** ** The family *)

Section Triangles.
Variable q : nat.
Hypothesis Hq : 1 <= q.
Let p := 2 * q - 1.
Let M := q * p.
Let r : req := (0, p).
(** The SVF start of request k. *)
Let f (k : nat) : nat := p * (k / q).

Lemma tri_p_pos : 1 <= p.
Proof. unfold p; lia. Qed.

Lemma tri_f_zero : f 0 = 0.
Proof. unfold f. rewrite Nat.div_0_l by lia. lia. Qed.

(** State before request k is placed: the last batch (start f (k - 1)) holds
    (k - 1) mod q + 1 requests, the earlier ones have finished by its start. *)
Definition tri_inv (k : nat) (pl : list (req * nat)) (lo : nat) : Prop :=
  (k = 0 /\ pl = [] /\ lo = 0) \/
  (exists j E, k = S j /\ lo = f j /\ pl = repeat (r, f j) (S (j mod q)) ++ E /\
               forall e, In e E -> finish e <= f j).

Lemma tri_block_usage : forall y c E t, (forall e, In e E -> finish e <= y) -> y < t <= y + p ->
  usage_js (repeat (r, y) c ++ E) t = c * (t - y).
Proof.
  intros y c E t HE Ht.
  rewrite usage_js_app, usage_js_repeat, (usage_js_finished E)
    by (intros e He; specialize (HE e He); lia).
  cbn [fst snd]. rewrite req_usage_on by (unfold r, output; simpl; lia).
  unfold r, prompt; simpl. lia.
Qed.

Lemma tri_block_usage_after : forall y c E t, (forall e, In e E -> finish e <= y) -> y + p < t ->
  usage_js (repeat (r, y) c ++ E) t = 0.
Proof.
  intros y c E t HE Ht. apply usage_js_finished. intros e He.
  apply in_app_or in He. destruct He as [He|He].
  - apply repeat_spec in He. subst e. unfold finish, r, output; simpl. lia.
  - specialize (HE e He). lia.
Qed.

(** Request k starts at f k, and the invariant moves on. *)
Lemma tri_place_step : forall k pl lo, tri_inv k pl lo ->
  find_start M pl r lo (horizon_js pl - lo) = f k /\ tri_inv (S k) ((r, f k) :: pl) (f k).
Proof.
  pose proof tri_p_pos as Hp.
  intros k pl lo [[-> [-> ->]]|[j [E [-> [-> [-> HE]]]]]].
  - rewrite tri_f_zero. split; [reflexivity|]. right. exists 0, []. rewrite tri_f_zero.
    rewrite Nat.mod_0_l by lia. repeat split; auto. intros e [].
  - destruct (tri_divmod_succ q j Hq) as [[Hlt [Hd Hm]]|[Heq [Hd Hm]]].
    + (* same batch: start at lo *)
      assert (Hf : f (S j) = f j) by (unfold f; rewrite Hd; auto). rewrite Hf.
      split.
      * apply find_start_now, fits_spec. intros t' Ht'.
        unfold r, output in Ht'; cbn [snd] in Ht'.
        rewrite tri_block_usage by (auto; lia). unfold r, prompt; cbn [fst].
        assert (t' - f j <= p) by lia. unfold M. nia.
      * right. exists (S j), E. rewrite Hf, Hm. repeat split; auto.
    + (* the batch is full: start p steps later *)
      assert (Hf : f (S j) = f j + p) by (unfold f; rewrite Hd; nia). rewrite Hf.
      split.
      * assert (Hh : f j + p <= horizon_js (repeat (r, f j) (S (j mod q)) ++ E)).
        { apply (horizon_ge _ (r, f j)). left; auto. }
        apply tri_find_start_exact; [lia| |].
        -- intros u Hu. apply (fits_false _ _ _ _ (f j + p));
             [unfold r, output; simpl; lia|].
           rewrite tri_block_usage by (auto; lia). rewrite Heq. unfold r, prompt, M; simpl. nia.
        -- apply fits_spec. intros t' Ht'. unfold r, output in Ht'; cbn [snd] in Ht'.
           rewrite tri_block_usage_after by (auto; lia). unfold r, prompt, M; simpl. nia.
      * right. exists (S j), (repeat (r, f j) q ++ E). rewrite Hf, Hm, Heq.
        repeat split; auto. intros e He. apply in_app_or in He. destruct He as [He|He].
        -- apply repeat_spec in He. subst e. unfold finish, r, output; simpl. lia.
        -- specialize (HE e He). lia.
Qed.

Lemma place_tri : forall m k pl lo, tri_inv k pl lo ->
  place M pl lo (combine (seq k m) (repeat r m)) = map (fun i => ((i, r), f i)) (seq k m).
Proof.
  induction m; intros k pl lo H; [reflexivity|].
  cbn [seq repeat combine place map snd].
  destruct (tri_place_step k pl lo H) as [Hx Hi]. rewrite Hx. f_equal. apply IHm; auto.
Qed.

Lemma svf_tri : forall n, svf M (repeat r n) = map f (seq 0 n).
Proof.
  intros n. unfold svf, svf_placed, svf_order. cbv zeta. rewrite repeat_length.
  rewrite (isort_v_const (volume2 r)).
  2: { intros [i rq] Ha. apply in_combine_r, repeat_spec in Ha. unfold vol_of.
       cbn [snd]. rewrite Ha. auto. }
  rewrite (place_tri n 0 [] 0) by (left; auto).
  apply map_ext_in. intros i Hi. apply in_seq in Hi. apply lookup_map_seq. lia.
Qed.

(** ** The staggered schedule *)

(** Twice the usage of requests started at s, s + 1, ... is at most a (a + 1), where
    a = min (t - s) p bounds their ages at step t. *)
Lemma tri_stagger_usage : forall m s t,
  2 * usage_js (combine (repeat r m) (seq s m)) t
  <= Nat.min (t - s) p * (Nat.min (t - s) p + 1).
Proof.
  induction m; intros s t; cbn [repeat seq combine].
  - unfold usage_js; simpl. lia.
  - rewrite usage_js_cons. cbn [fst snd]. specialize (IHm (S s) t).
    destruct (Nat.le_gt_cases t s).
    + rewrite req_usage_zero_before by lia.
      replace (t - s) with 0 by lia. replace (t - S s) with 0 in IHm by lia. simpl in *. lia.
    + destruct (Nat.le_gt_cases t (s + p)).
      * rewrite req_usage_on by (unfold r, output; simpl; lia). change (prompt r) with 0.
        rewrite (Nat.min_l (t - s) p) by lia.
        rewrite (Nat.min_l (t - S s) p) in IHm by lia.
        replace (t - S s) with (t - s - 1) in IHm by lia.
        destruct (t - s) as [|a] eqn:Ea; [lia|]. replace (S a - 1) with a in IHm by lia. nia.
      * rewrite req_usage_zero_after by (unfold r, output; simpl; lia).
        rewrite (Nat.min_r (t - s) p) by lia. rewrite (Nat.min_r (t - S s) p) in IHm by lia.
        lia.
Qed.

Lemma tri_stagger_feasible : forall n, feasible M (repeat r n) (seq 0 n).
Proof.
  intros n. split; [rewrite seq_length, repeat_length; auto|]. intros t. unfold usage.
  pose proof (tri_stagger_usage n 0 t) as H.
  set (a := Nat.min (t - 0) p) in H.
  assert (Ha : a <= p) by apply Nat.le_min_r.
  assert (Haa : a * (a + 1) <= p * (p + 1)) by (apply Nat.mul_le_mono; lia).
  assert (Hp1 : p + 1 = 2 * q) by (unfold p; lia).
  rewrite Hp1 in Haa. unfold M. nia.
Qed.

(** ** TEL *)

Lemma tel_repeat_map : forall (g : nat -> nat) m s,
  tel (repeat r m) (map g (seq s m)) = sumf (fun k => g k + p) (seq s m).
Proof.
  intros g m. unfold tel, tel_js. induction m; intros s; [reflexivity|].
  cbn [seq map repeat combine sumf]. rewrite IHm. unfold finish, r, output; simpl. lia.
Qed.

Lemma tel_stagger : forall n, tel (repeat r n) (seq 0 n) = sumf (fun k => k + p) (seq 0 n).
Proof.
  intros n. pose proof (tel_repeat_map (fun k => k) n 0) as H. rewrite map_id in H. exact H.
Qed.

Lemma tel_svf_tri : forall n,
  tel (repeat r n) (svf M (repeat r n)) = sumf (fun k => f k + p) (seq 0 n).
Proof. intros n. rewrite svf_tri. apply tel_repeat_map. Qed.

(** Per request: q (f k + p) >= p (k + 1). *)
Lemma tri_ratio_pointwise : forall k, p * (k + p) <= q * (f k + p) + p * (p - 1).
Proof.
  intros k. pose proof tri_p_pos as Hp. unfold f.
  pose proof (Nat.div_mod k q ltac:(lia)) as Hd.
  pose proof (Nat.mod_upper_bound k q ltac:(lia)) as Hm.
  set (a := k / q) in *. set (b := k mod q) in *.
  assert (p * (b + 1) <= p * q) by (apply Nat.mul_le_mono_l; lia).
  rewrite Hd at 1. replace (p * (p - 1)) with (p * p - p) by nia. nia.
Qed.

Lemma tri_ratio_sharp : forall n,
  p * tel (repeat r n) (seq 0 n) <= q * tel (repeat r n) (svf M (repeat r n)) + p * (p - 1) * n.
Proof.
  intros n. rewrite tel_stagger, tel_svf_tri.
  rewrite <- (seq_length n 0) at 3. apply sumf_lin_bound. apply tri_ratio_pointwise.
Qed.

(** ** Closed forms *)

Lemma tri_sumf_const : forall {A} (c : nat) (l : list A), sumf (fun _ => c) l = length l * c.
Proof. intros A c l. induction l; simpl; lia. Qed.

Lemma tri_tel_stagger_closed : forall n,
  2 * tel (repeat r n) (seq 0 n) = n * (n - 1) + 2 * p * n.
Proof.
  intros n. rewrite tel_stagger. induction n; [simpl; lia|].
  rewrite seq_S, sumf_app. cbn [sumf]. destruct n; simpl in *; nia.
Qed.

(** Every request of batch b starts at p b. *)
Lemma tri_f_batch : forall b k, In k (seq (q * b) q) -> f k = p * b.
Proof.
  intros b k Hk. apply in_seq in Hk. unfold f. f_equal.
  symmetry. apply (Nat.div_unique _ _ _ (k - q * b)); lia.
Qed.

Lemma tri_tel_svf_closed : forall b,
  2 * tel (repeat r (q * b)) (svf M (repeat r (q * b))) = p * q * b * (b + 1).
Proof.
  intros b. rewrite tel_svf_tri. induction b; [rewrite Nat.mul_0_r; simpl; lia|].
  replace (q * S b) with (q * b + q) by lia. rewrite seq_app, sumf_app. cbn [Nat.add].
  rewrite (sumf_ext _ (fun _ => p * b + p) (seq (q * b) q))
    by (intros k Hk; rewrite (tri_f_batch b k Hk); auto).
  rewrite tri_sumf_const, seq_length. nia.
Qed.

End Triangles.

(** ** The theorems, for every q >= 1 and every n *)

(** p = 2q - 1, M = qp, n x (0, p): SVF starts request k at p (k / q) *)
Theorem svf_triangles_starts : forall q n, 1 <= q ->
  svf (q * (2 * q - 1)) (repeat (0, 2 * q - 1) n)
  = map (fun k => (2 * q - 1) * (k / q)) (seq 0 n).
Proof. intros q n Hq. exact (svf_tri q Hq n). Qed.

(** the same family: one start per step (request k at k) is feasible *)
Theorem triangles_staggered_feasible : forall q n, 1 <= q ->
  feasible (q * (2 * q - 1)) (repeat (0, 2 * q - 1) n) (seq 0 n).
Proof. intros q n Hq. exact (tri_stagger_feasible q Hq n). Qed.

(** the same family: p TEL(one per step) <= q TEL(SVF) + p (p - 1) n (the sharper additive term) *)
Theorem svf_triangles_ratio_sharp : forall q n, 1 <= q ->
  let p := 2 * q - 1 in let rs := repeat (0, p) n in
  p * tel rs (seq 0 n) <= q * tel rs (svf (q * p) rs) + p * (p - 1) * n.
Proof. intros q n Hq. exact (tri_ratio_sharp q Hq n). Qed.

(** p TEL(one per step) <= q TEL(SVF) + p^2 n: the ratio tends to p/q = 2 - 1/q (svf.lower_bound,
    svf.fluid.k1..k4) *)
Theorem svf_triangles_ratio : forall q n, 1 <= q ->
  let p := 2 * q - 1 in let rs := repeat (0, p) n in
  p * tel rs (seq 0 n) <= q * tel rs (svf (q * p) rs) + p * p * n.
Proof.
  intros q n Hq. pose proof (svf_triangles_ratio_sharp q n Hq) as H. cbv zeta in *.
  set (p := 2 * q - 1) in *.
  assert (p * (p - 1) * n <= p * p * n).
  { apply Nat.mul_le_mono_r, Nat.mul_le_mono_l, Nat.le_sub_l. }
  lia.
Qed.

(** n = q b: 2 TEL(SVF) = p q b (b + 1); 2 TEL(one per step) = n (n - 1) + 2 p n (svf.constant_two) *)
Theorem triangles_staggered_tel : forall q n, 1 <= q ->
  let p := 2 * q - 1 in
  2 * tel (repeat (0, p) n) (seq 0 n) = n * (n - 1) + 2 * p * n.
Proof. intros q n Hq. exact (tri_tel_stagger_closed q Hq n). Qed.

(** n = q b: 2 TEL(SVF) = p q b (b + 1); 2 TEL(one per step) = n (n - 1) + 2 p n (svf.constant_two) *)
Theorem svf_triangles_tel : forall q b, 1 <= q ->
  let p := 2 * q - 1 in let rs := repeat (0, p) (q * b) in
  2 * tel rs (svf (q * p) rs) = p * q * b * (b + 1).
Proof. intros q b Hq. exact (tri_tel_svf_closed q Hq b). Qed.

(** ** Sanity checks on small instances *)

(** q = 2 (p = 3, M = 6), n = 5: batches of two every three steps. *)
Example tri_q2_starts : svf 6 (repeat (0, 3) 5) = [0; 0; 3; 3; 6] := eq_refl.
Example tri_q2_formula : map (fun k => 3 * (k / 2)) (seq 0 5) = [0; 0; 3; 3; 6] := eq_refl.
Example tri_q2_stagger : feasibleb 6 (repeat (0, 3) 5) (seq 0 5) = true := eq_refl.
(** TEL(SVF) = 3 + 3 + 6 + 6 + 9 = 27, TEL(staggered) = 10 + 15 = 25. *)
Example tri_q2_tels :
  tel (repeat (0, 3) 5) (svf 6 (repeat (0, 3) 5)) = 27 /\ tel (repeat (0, 3) 5) (seq 0 5) = 25.
Proof. split; vm_compute; reflexivity. Qed.
(** One more start per step would not fit: starting at 0, 0, 1 exceeds M = 6 at step 3. *)
Example tri_q2_tight : feasibleb 6 (repeat (0, 3) 3) [0; 0; 1] = false := eq_refl.

(** The closed forms at q = 2, b = 2 (n = 4):
    2 * 18 = 3 * 2 * 2 * 3 and 2 * 18 = 4 * 3 + 2 * 3 * 4. *)
Example tri_q2_closed :
  tel (repeat (0, 3) 4) (svf 6 (repeat (0, 3) 4)) = 18 /\ tel (repeat (0, 3) 4) (seq 0 4) = 18.
Proof. split; vm_compute; reflexivity. Qed.

(** q = 3 (p = 5, M = 15), n = 7. *)
Example tri_q3_starts : svf 15 (repeat (0, 5) 7) = [0; 0; 0; 5; 5; 5; 10].
Proof. vm_compute. reflexivity. Qed.
Example tri_q3_stagger : feasibleb 15 (repeat (0, 5) 7) (seq 0 7) = true.
Proof. vm_compute. reflexivity. Qed.

(** q = 1 (p = 1, M = 1): SVF is the staggered schedule. *)
Example tri_q1_starts : svf 1 (repeat (0, 1) 4) = [0; 1; 2; 3] := eq_refl.
