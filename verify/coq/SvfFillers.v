(** * The svf-fillers family: triangles, then fillers of peak M/2 that SVF serves last.

    Family (theory/svf_fillers.py), for every h >= 1 and m >= 1: q = 6 h + 4 (the batch),
    p = 2 q - 1, M = q p (so M/2 = (3 h + 2) p, alpha = 1/2 exactly), N = q m triangles
    (0, p) (SvfTriangles.v), then f = 2 h + 1 fillers (s, 3) with s = M/2 - 3:
      rs = repeat (0, p) (q m) ++ repeat (s, 3) f.

    SVF (Svf.v) serves the triangles first (their volume p (p + 1)/2 = M is below a filler's
    3 M/2 - 3), in batches of q every p steps as in SvfTriangles.v; the last batch starts at
    y = p (m - 1).  Filler i (i < f) then starts at y + 3 i ([svf_fillers_starts]): beside the
    last batch it fits from there (at its last step the batch holds 3 q (i + 1) <= M/2), and
    never earlier, since the filler before it still runs and two fillers beside a started batch
    exceed M (2 (s + 1) + q > M).

    The witness S (triangle k at k, filler j at 3 j) is feasible ([fillers_witness_feasible]):
    in its first 3 f steps the staggered triangles hold t (t + 1)/2 <= M/2 and one filler at most
    M/2.  The closed forms [svf_fillers_tel] and [fillers_witness_tel] are those of
    theory/svf_fillers.py (doubled, to stay in nat).

    Everything is proved for a general batch q and filler (s, 3), f under the four conditions
    of [Fill] (order, fit, conflict, ramp); the family's h satisfies them
    ([fillers_conditions]). *)

From Coq Require Import Arith Lia List Bool.
From GeoSched Require Import Model Svf SvfFacts SvfTriangles SvfSerial.
Import ListNotations.

(** ** List tools *)

Lemma fil_combine_app : forall {A B} (l1 l2 : list A) (m1 m2 : list B),
  length l1 = length m1 -> combine (l1 ++ l2) (m1 ++ m2) = combine l1 m1 ++ combine l2 m2.
Proof.
  induction l1 as [|a l1 IH]; intros l2 m1 m2 H; destruct m1 as [|b m1]; try discriminate; auto.
  simpl. rewrite IH; auto.
Qed.

(** Inserting an element no larger than the head puts it in front. *)
Lemma fil_insert_front : forall a l,
  (forall b l', l = b :: l' -> vol_of a <= vol_of b) -> insert_v a l = a :: l.
Proof.
  intros a [|b l] H; simpl; auto. rewrite (proj2 (Nat.leb_le _ _)) by (apply (H b l); auto). auto.
Qed.

(** Two blocks of constant volumes v1 <= v2 are already sorted. *)
Lemma fil_isort_two : forall v1 v2 l1 l2, v1 <= v2 ->
  (forall a, In a l1 -> vol_of a = v1) -> (forall a, In a l2 -> vol_of a = v2) ->
  isort_v (l1 ++ l2) = l1 ++ l2.
Proof.
  intros v1 v2 l1 l2 Hv H1 H2. induction l1 as [|a l1 IH].
  - apply (isort_v_const v2). auto.
  - cbn [app isort_v]. rewrite IH by (intros; apply H1; right; auto).
    apply fil_insert_front. intros b l' E.
    rewrite (H1 a) by (left; auto).
    destruct l1 as [|a' l1]; cbn [app] in E.
    + rewrite (H2 b) by (rewrite E; left; auto). auto.
    + injection E as <- _. rewrite (H1 a') by (right; left; auto). auto.
Qed.

Lemma fil_lookup_app_r : forall k l1 l2,
  (forall e, In e l1 -> fst (fst e) <> k) -> lookup k (l1 ++ l2) = lookup k l2.
Proof.
  induction l1 as [|e l1 IH]; intros l2 H; simpl; auto.
  destruct (Nat.eqb_spec (fst (fst e)) k) as [E|E]; [exfalso; apply (H e); [left|]; auto|].
  apply IH. intros e' He'. apply H; right; auto.
Qed.

Lemma fil_lookup_app_s : forall (g : nat -> nat) rq m s k l2, s <= k < s + m ->
  lookup k (map (fun i => ((i, rq), g i)) (seq s m) ++ l2) = g k.
Proof.
  induction m as [|m IH]; intros s k l2 Hs; [lia|]. cbn [seq map app lookup fst snd].
  destruct (Nat.eqb_spec s k) as [<-|Hne]; auto. apply IH; lia.
Qed.

Lemma fil_lookup_app_l : forall (g : nat -> nat) rq m k l2, k < m ->
  lookup k (map (fun i => ((i, rq), g i)) (seq 0 m) ++ l2) = g k.
Proof. intros. apply fil_lookup_app_s. lia. Qed.

Lemma fil_usage_map : forall (rq : req) (g : nat -> nat) n s0 t,
  usage_js (combine (repeat rq n) (map g (seq s0 n))) t
  = sumf (fun j => req_usage rq (g j) t) (seq s0 n).
Proof. induction n; intros s0 t; [reflexivity|]. cbn [repeat seq map combine]. rewrite usage_js_cons, IHn. auto. Qed.

Lemma fil_tel_map : forall (rq : req) (g : nat -> nat) n s0,
  tel (repeat rq n) (map g (seq s0 n)) = sumf (fun j => g j + output rq) (seq s0 n).
Proof.
  intros rq g n. unfold tel, tel_js. induction n; intros s0; [reflexivity|].
  cbn [repeat seq map combine sumf]. rewrite IHn. reflexivity.
Qed.

Lemma fil_map_seq_shift : forall (g : nat -> nat) n s, map g (seq s n) = map (fun i => g (s + i)) (seq 0 n).
Proof.
  intros g n s. assert (H : forall k, map g (seq (s + k) n) = map (fun i => g (s + i)) (seq k n)).
  { induction n; intros k; [reflexivity|]. cbn [seq map]. rewrite <- IHn. replace (s + S k) with (S (s + k)) by lia. reflexivity. }
  rewrite <- H. rewrite Nat.add_0_r. auto.
Qed.

(** 2 sum_{j < f} (c + 3 j + 3) = 2 f c + 3 f (f + 1). *)
Lemma fil_sum_lin : forall c f, 2 * sumf (fun j => c + 3 * j + 3) (seq 0 f) = 2 * f * c + 3 * f * (f + 1).
Proof. intros c f. induction f; [simpl; lia|]. rewrite seq_S, sumf_app. cbn [sumf]. nia. Qed.

(** ** The general family *)

Section Fill.
Variables q s f : nat.
Let p := 2 * q - 1.
Let M := q * p.
Let r : req := (0, p).
Let F : req := (s, 3).
Hypothesis Hq : 1 <= q.
(** order: a filler's volume exceeds a triangle's *)
Hypothesis Horder : p * p + p <= 6 * s + 12.
(** fit: the f fillers fit, one at a time, beside a started batch *)
Hypothesis Hfit : 3 * q * f + s + 3 <= M.
(** conflict: two running fillers and a started batch exceed M *)
Hypothesis Hconf : M < 2 * s + 2 + q.
(** ramp: the staggered triangles' first 3 f steps leave room for a filler *)
Hypothesis Hramp : 3 * f * (3 * f + 1) + 2 * (s + 3) <= 2 * M.

Lemma fil_3f_p : 3 * f <= p.
Proof. unfold M in Hfit. nia. Qed.

(** After the last batch y: the triangles' placed list, invariant of the fillers' placement. *)
Definition fil_inv (y i : nat) (pl : list (req * nat)) (lo : nat) : Prop :=
  exists G E, pl = G ++ repeat (r, y) q ++ E /\ (forall e, In e E -> finish e <= y) /\
    (forall e, In e G -> finish e <= y + 3 * i) /\
    ((i = 0 /\ lo = y) \/ (exists i', i = S i' /\ lo = y + 3 * i' /\ In (F, lo) G)).

Lemma fil_batch_usage : forall y G E t, (forall e, In e E -> finish e <= y) -> y < t <= y + p ->
  usage_js (G ++ repeat (r, y) q ++ E) t = usage_js G t + q * (t - y).
Proof.
  intros y G E t HE Ht. rewrite !usage_js_app, usage_js_repeat, (usage_js_finished E)
    by (intros e He; specialize (HE e He); lia).
  cbn [fst snd]. rewrite req_usage_on by (unfold r, output; simpl; lia). unfold r, prompt; simpl. lia.
Qed.

(** Filler i starts at y + 3 i. *)
Lemma fil_place_step : forall y i pl lo, i < f -> fil_inv y i pl lo ->
  find_start M pl F lo (horizon_js pl - lo) = y + 3 * i /\ fil_inv y (S i) ((F, y + 3 * i) :: pl) (y + 3 * i).
Proof.
  pose proof fil_3f_p as H3.
  intros y i pl lo Hi [G [E [-> [HE [HG Hlo]]]]].
  assert (Hh : y + p <= horizon_js (G ++ repeat (r, y) q ++ E)).
  { apply (horizon_ge _ (r, y)). apply in_or_app. right. apply in_or_app. left.
    destruct q; [lia|]. left; auto. }
  assert (Hlo' : lo <= y + 3 * i) by (destruct Hlo as [[-> ->]|[i' [-> [-> _]]]]; lia).
  split.
  - apply tri_find_start_exact; [lia| |].
    + intros u Hu. destruct Hlo as [[-> ->]|[i' [-> [-> Hin]]]]; [lia|].
      apply (fits_false _ _ _ _ (S u)); [unfold F, output; simpl; lia|].
      rewrite fil_batch_usage by (auto; lia).
      pose proof (usage_js_ge_member G _ (S u) Hin) as Hg. cbn [fst snd] in Hg.
      rewrite req_usage_on in Hg by (unfold F, output; simpl; lia).
      unfold F, prompt in *; cbn [fst] in *. nia.
    + apply fits_spec. intros t' Ht'. unfold F, output in Ht'; cbn [snd] in Ht'.
      rewrite fil_batch_usage by (auto; lia).
      rewrite usage_js_finished by (intros e He; specialize (HG e He); lia).
      unfold F, prompt; cbn [fst]. unfold M. nia.
  - exists ((F, y + 3 * i) :: G), E. repeat split; auto.
    + intros e [<-|He]; [unfold finish, F, output; simpl; lia|]. specialize (HG e He). lia.
    + right. exists i. repeat split; auto. left; auto.
Qed.

Lemma place_fil : forall N y cnt i pl lo, i + cnt <= f -> fil_inv y i pl lo ->
  place M pl lo (combine (seq (N + i) cnt) (repeat F cnt))
  = map (fun k => ((k, F), y + 3 * (k - N))) (seq (N + i) cnt).
Proof.
  intros N y. induction cnt; intros i pl lo Hc H; [reflexivity|].
  cbn [seq repeat combine place map snd].
  destruct (fil_place_step y i pl lo ltac:(lia) H) as [Hx Hi]. rewrite Hx.
  replace (N + i - N) with i by lia. f_equal.
  replace (S (N + i)) with (N + S i) by lia. apply IHcnt; auto. lia.
Qed.

(** The triangles, then whatever follows, from the triangles' invariant. *)
Lemma place_tri_app : forall cnt k pl lo rest, tri_inv q k pl lo ->
  exists pl' lo', tri_inv q (k + cnt) pl' lo' /\
    place M pl lo (combine (seq k cnt) (repeat r cnt) ++ rest)
    = map (fun i => ((i, r), p * (i / q))) (seq k cnt) ++ place M pl' lo' rest.
Proof.
  induction cnt; intros k pl lo rest H.
  - exists pl, lo. rewrite Nat.add_0_r. auto.
  - destruct (tri_place_step q Hq k pl lo H) as [Hx Hi].
    destruct (IHcnt (S k) _ _ rest Hi) as [pl' [lo' [Hi' He]]].
    exists pl', lo'. split; [replace (k + S cnt) with (S k + cnt) by lia; auto|].
    cbn [seq repeat combine app place map snd]. fold p M r in Hx |- *. rewrite Hx. f_equal. exact He.
Qed.

Lemma fil_start : forall m, 1 <= m -> forall pl lo, tri_inv q (q * m) pl lo -> fil_inv (p * (m - 1)) 0 pl lo.
Proof.
  intros m Hm pl lo [[Hk _]|[j [E [Hk [-> [-> HE]]]]]]; [nia|].
  assert (Hd : j / q = m - 1 /\ j mod q = q - 1).
  { split; symmetry; [apply (Nat.div_unique j q (m - 1) (q - 1)) | apply (Nat.mod_unique j q (m - 1) (q - 1))]; nia. }
  destruct Hd as [Hd Hmod]. rewrite Hd, Hmod in *. replace (S (q - 1)) with q by lia.
  exists [], E. repeat split; auto. intros e [].
Qed.

Lemma fil_svf_placed : forall m, 1 <= m ->
  svf_placed M (repeat r (q * m) ++ repeat F f)
  = map (fun i => ((i, r), p * (i / q))) (seq 0 (q * m))
    ++ map (fun k => ((k, F), p * (m - 1) + 3 * (k - q * m))) (seq (q * m) f).
Proof.
  intros m Hm. unfold svf_placed, svf_order.
  rewrite app_length, !repeat_length, seq_app, fil_combine_app by (rewrite seq_length, repeat_length; auto).
  rewrite (fil_isort_two (volume2 r) (volume2 F)).
  2: { unfold r, F, volume2, prompt, output; simpl. lia. }
  2: { intros [i rq] Ha. apply in_combine_r, repeat_spec in Ha. unfold vol_of. cbn [snd]. rewrite Ha. auto. }
  2: { intros [i rq] Ha. apply in_combine_r, repeat_spec in Ha. unfold vol_of. cbn [snd]. rewrite Ha. auto. }
  destruct (place_tri_app (q * m) 0 [] 0 (combine (seq (0 + q * m) f) (repeat F f)) ltac:(left; auto))
    as [pl' [lo' [Hi He]]].
  rewrite He. f_equal. cbn [Nat.add] in *.
  pose proof (place_fil (q * m) (p * (m - 1)) f 0 pl' lo' ltac:(lia) (fil_start m Hm pl' lo' Hi)) as Hf.
  rewrite Nat.add_0_r in Hf. exact Hf.
Qed.

Lemma fil_svf : forall m, 1 <= m ->
  svf M (repeat r (q * m) ++ repeat F f)
  = map (fun k => p * (k / q)) (seq 0 (q * m)) ++ map (fun i => p * (m - 1) + 3 * i) (seq 0 f).
Proof.
  intros m Hm. unfold svf. cbv zeta. rewrite fil_svf_placed by auto.
  rewrite app_length, !repeat_length, seq_app, map_app. cbn [Nat.add]. f_equal.
  - apply map_ext_in. intros k Hk. apply in_seq in Hk. apply (fil_lookup_app_l (fun i => p * (i / q))). lia.
  - rewrite (fil_map_seq_shift _ f (q * m)). apply map_ext_in. intros i Hi. apply in_seq in Hi.
    rewrite fil_lookup_app_r.
    2: { intros e He. apply in_map_iff in He. destruct He as [k [<- Hk]]. apply in_seq in Hk. simpl. lia. }
    rewrite lookup_map_seq by lia. f_equal. lia.
Qed.

(** ** The witness S: triangle k at k, filler j at 3 j *)

Lemma fil_fillers_ramp : forall t, t <= 3 * f ->
  sumf (fun j => req_usage F (3 * j) t) (seq 0 f) <= s + 3.
Proof.
  intros t Ht. set (lo := (t - 1) / 3).
  eapply Nat.le_trans.
  { apply (sumf_le_pointwise _ (fun j => if (lo <=? j) && (j <? lo + 1) then s + 3 else 0)).
    intros j Hj. unfold req_usage, F, output, prompt; cbn [fst snd].
    destruct (Nat.ltb_spec (3 * j) t), (Nat.leb_spec t (3 * j + 3)); simpl; [|lia..].
    assert (Hl : lo = j) by (unfold lo; symmetry; apply (Nat.div_unique (t - 1) 3 j (t - 1 - 3 * j)); lia).
    rewrite Hl, Nat.leb_refl. destruct (Nat.ltb_spec j (j + 1)); simpl; lia. }
  rewrite sumf_window. assert (Nat.min (0 + f) (lo + 1) - Nat.max 0 lo <= 1) by lia. nia.
Qed.

Lemma fil_fillers_after : forall t, 3 * f < t -> sumf (fun j => req_usage F (3 * j) t) (seq 0 f) = 0.
Proof.
  intros t Ht. apply sumf_zero. intros j Hj. apply in_seq in Hj.
  apply req_usage_zero_after. unfold F, output; simpl. lia.
Qed.

Lemma fil_witness_feasible : forall m,
  feasible M (repeat r (q * m) ++ repeat F f) (seq 0 (q * m) ++ map (fun j => 3 * j) (seq 0 f)).
Proof.
  intros m. split; [rewrite !app_length, seq_length, map_length, seq_length, !repeat_length; auto|].
  intros t. unfold usage. rewrite fil_combine_app by (rewrite seq_length, repeat_length; auto).
  rewrite usage_js_app, fil_usage_map.
  pose proof (tri_stagger_usage q Hq (q * m) 0 t) as Ht. fold p r in Ht. rewrite Nat.sub_0_r in Ht.
  assert (Hp : p + 1 = 2 * q) by (unfold p; lia).
  destruct (Nat.le_gt_cases t (3 * f)) as [Hs|Hs].
  - pose proof (fil_fillers_ramp t Hs) as Hr.
    assert (Nat.min t p * (Nat.min t p + 1) <= 3 * f * (3 * f + 1)).
    { apply Nat.mul_le_mono; lia. }
    lia.
  - rewrite fil_fillers_after by auto.
    assert (Nat.min t p * (Nat.min t p + 1) <= p * (p + 1)) by (apply Nat.mul_le_mono; lia).
    unfold M. rewrite Hp in *. nia.
Qed.

(** ** TEL in closed form (doubled) *)

Lemma fil_tel_app : forall l1 l2 x1 x2, length l1 = length x1 -> tel (l1 ++ l2) (x1 ++ x2) = tel l1 x1 + tel l2 x2.
Proof. intros. unfold tel, tel_js. rewrite fil_combine_app, sumf_app; auto. Qed.

Lemma fil_svf_tel : forall m, 1 <= m ->
  2 * tel (repeat r (q * m) ++ repeat F f) (svf M (repeat r (q * m) ++ repeat F f))
  = p * q * m * (m + 1) + 2 * f * (p * (m - 1)) + 3 * f * (f + 1).
Proof.
  intros m Hm. rewrite fil_svf by auto.
  rewrite fil_tel_app by (rewrite map_length, seq_length, repeat_length; auto).
  pose proof (tri_tel_svf_closed q Hq m) as Ht. rewrite (svf_tri q Hq) in Ht. fold p r M in Ht.
  rewrite (fil_tel_map F). unfold F, output; cbn [snd].
  pose proof (fil_sum_lin (p * (m - 1)) f). nia.
Qed.

Lemma fil_witness_tel : forall m,
  2 * tel (repeat r (q * m) ++ repeat F f) (seq 0 (q * m) ++ map (fun j => 3 * j) (seq 0 f))
  = q * m * (q * m - 1) + 2 * p * (q * m) + 3 * f * (f + 1).
Proof.
  intros m. rewrite fil_tel_app by (rewrite seq_length, repeat_length; auto).
  pose proof (tri_tel_stagger_closed q Hq (q * m)) as Ht. fold p r in Ht.
  rewrite (fil_tel_map F). unfold F, output; cbn [snd].
  rewrite (sumf_ext _ (fun j => 0 + 3 * j + 3)) by (intros; lia).
  pose proof (fil_sum_lin 0 f). nia.
Qed.

End Fill.

(** ** The family svf-fillers: q = 6 h + 4, s = M/2 - 3 = (3 h + 2) p - 3, f = 2 h + 1 *)

Lemma fillers_conditions : forall h, 1 <= h ->
  let q := 6 * h + 4 in let p := 2 * q - 1 in let s := (3 * h + 2) * p - 3 in let f := 2 * h + 1 in
  1 <= q /\ p * p + p <= 6 * s + 12 /\ 3 * q * f + s + 3 <= q * p /\ q * p < 2 * s + 2 + q /\
  3 * f * (3 * f + 1) + 2 * (s + 3) <= 2 * (q * p).
Proof.
  intros h Hh. cbv zeta.
  replace (2 * (6 * h + 4) - 1) with (12 * h + 7) by lia.
  assert (Hs : (3 * h + 2) * (12 * h + 7) - 3 + 3 = (3 * h + 2) * (12 * h + 7)) by nia.
  repeat split; nia.
Qed.

(** svf-fillers, h >= 1, m >= 1: q = 6h + 4, p = 2q - 1, M = qp, qm triangles (0, p) then 2h + 1 fillers (M/2 -
    3, 3): SVF starts triangle k at p (k / q) and filler i at p (m - 1) + 3i (svf.fillers) *)
Theorem svf_fillers_starts : forall h m, 1 <= h -> 1 <= m ->
  let q := 6 * h + 4 in let p := 2 * q - 1 in let f := 2 * h + 1 in
  svf (q * p) (repeat (0, p) (q * m) ++ repeat ((3 * h + 2) * p - 3, 3) f)
  = map (fun k => p * (k / q)) (seq 0 (q * m)) ++ map (fun i => p * (m - 1) + 3 * i) (seq 0 f).
Proof.
  intros h m Hh Hm. destruct (fillers_conditions h Hh) as [H1 [H2 [H3 [H4 H5]]]].
  eapply fil_svf; eassumption.
Qed.

(** the same family: triangle k at k, filler j at 3j is feasible (svf.fillers) *)
Theorem fillers_witness_feasible : forall h m, 1 <= h ->
  let q := 6 * h + 4 in let p := 2 * q - 1 in let f := 2 * h + 1 in
  feasible (q * p) (repeat (0, p) (q * m) ++ repeat ((3 * h + 2) * p - 3, 3) f)
    (seq 0 (q * m) ++ map (fun j => 3 * j) (seq 0 f)).
Proof.
  intros h m Hh. destruct (fillers_conditions h Hh) as [H1 [H2 [H3 [H4 H5]]]].
  eapply fil_witness_feasible; eassumption.
Qed.

(** the same family: 2 TEL(SVF) = pqm(m + 1) + 2fp(m - 1) + 3f(f + 1); 2 TEL(S) = N(N - 1) + 2pN + 3f(f + 1), N
    = qm (svf.fillers) *)
Theorem svf_fillers_tel : forall h m, 1 <= h -> 1 <= m ->
  let q := 6 * h + 4 in let p := 2 * q - 1 in let f := 2 * h + 1 in
  let rs := repeat (0, p) (q * m) ++ repeat ((3 * h + 2) * p - 3, 3) f in
  2 * tel rs (svf (q * p) rs) = p * q * m * (m + 1) + 2 * f * (p * (m - 1)) + 3 * f * (f + 1).
Proof.
  intros h m Hh Hm. destruct (fillers_conditions h Hh) as [H1 [H2 [H3 [H4 H5]]]].
  eapply fil_svf_tel; eassumption.
Qed.

(** the same family: 2 TEL(SVF) = pqm(m + 1) + 2fp(m - 1) + 3f(f + 1); 2 TEL(S) = N(N - 1) + 2pN + 3f(f + 1), N
    = qm (svf.fillers) *)
Theorem fillers_witness_tel : forall h m, 1 <= h ->
  let q := 6 * h + 4 in let p := 2 * q - 1 in let f := 2 * h + 1 in
  2 * tel (repeat (0, p) (q * m) ++ repeat ((3 * h + 2) * p - 3, 3) f)
          (seq 0 (q * m) ++ map (fun j => 3 * j) (seq 0 f))
  = q * m * (q * m - 1) + 2 * p * (q * m) + 3 * f * (f + 1).
Proof.
  intros h m Hh. destruct (fillers_conditions h Hh) as [H1 [H2 [H3 [H4 H5]]]].
  eapply fil_witness_tel; eassumption.
Qed.

(** ** Sanity checks: h = 1 (q = 10, p = 19, M = 190, fillers (92, 3)), m = 2 *)

Example fillers_h1_m2_starts :
  svf 190 (repeat (0, 19) 20 ++ repeat (92, 3) 3)
  = repeat 0 10 ++ repeat 19 10 ++ [19; 22; 25].
Proof. vm_compute. reflexivity. Qed.

(** The closed forms of theory/svf_fillers.py at m = 2, h = 1: TEL(SVF) = 645, TEL(S) = 588. *)
Example fillers_h1_m2_tels :
  tel (repeat (0, 19) 20 ++ repeat (92, 3) 3) (svf 190 (repeat (0, 19) 20 ++ repeat (92, 3) 3)) = 645 /\
  tel (repeat (0, 19) 20 ++ repeat (92, 3) 3) (seq 0 20 ++ [0; 3; 6]) = 588.
Proof. split; vm_compute; reflexivity. Qed.
