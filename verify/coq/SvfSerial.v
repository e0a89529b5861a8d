(** * The svf-alternating family: SVF serialises a chain of conflicting requests.

    A list of requests whose volumes are all equal, whose peaks fit M, whose outputs are >= 1,
    and in which every two neighbours conflict at their first steps
    (M < prompt r1 + prompt r2 + 2: started at once, or one while the other runs, their first
    common step already exceeds M), is served by SVF (Svf.v) one request at a time, in the
    instance order: request k starts when request k - 1 finishes ([svf_serial_starts]).

    The family svf-alternating (theory/svf_alternating.py): narrow requests (a, c) and wide
    ones (b, 1) alternating, with equal volumes and a + b + 2 > M; SVF starts pair j at
    j (c + 1) and j (c + 1) + c ([svf_alternating_starts]).  The witness schedule of n = c m
    pairs (narrow i at c (i / c), wide i at c m + i) is feasible when c (a + c) <= M and
    b + 1 <= M ([alternating_witness_feasible]): at every step it runs one batch of at most c
    narrow requests or one wide request. *)

From Coq Require Import Arith Lia List Bool.
From GeoSched Require Import Model Svf SvfFacts SvfTriangles.
Import ListNotations.

(** Every two neighbours conflict. *)
Fixpoint chain (M : nat) (rs : list req) : Prop :=
  match rs with
  | r1 :: ((r2 :: _) as rest) => M < prompt r1 + prompt r2 + 2 /\ chain M rest
  | _ => True
  end.

(** The serial starts from t: each request when the previous one finishes. *)
Fixpoint serial (t : nat) (rs : list req) : list nat :=
  match rs with
  | [] => []
  | r :: rest => t :: serial (t + output r) rest
  end.

Lemma serial_length : forall rs t, length (serial t rs) = length rs.
Proof. induction rs; intros; simpl; auto. Qed.

Lemma usage_js_ge_member : forall pl e t, In e pl -> req_usage (fst e) (snd e) t <= usage_js pl t.
Proof.
  induction pl as [|e' pl IH]; intros e t H; [destruct H|].
  rewrite usage_js_cons. destruct H as [<-|H]; [lia|]. specialize (IH e t H). lia.
Qed.

Definition ok_req (M : nat) (r : req) : Prop := peak r <= M /\ 1 <= output r.

(** Placing the rest of a chain after [prev], started at [lo], when every placed request has
    finished by prev's end. *)
Lemma place_serial : forall M rest i pl lo prev,
  In (prev, lo) pl -> (forall e, In e pl -> finish e <= lo + output prev) ->
  Forall (ok_req M) rest -> chain M (prev :: rest) ->
  place M pl lo (combine (seq i (length rest)) rest)
  = combine (combine (seq i (length rest)) rest) (serial (lo + output prev) rest).
Proof.
  induction rest as [|r rest IH]; intros i pl lo prev Hin Hfin Hok Hch; [reflexivity|].
  inversion Hok as [|? ? [Hpk Ho] Hok']; subst.
  destruct Hch as [Hconf Hch].
  cbn [length seq combine place serial snd].
  assert (Hx : find_start M pl r lo (horizon_js pl - lo) = lo + output prev).
  { pose proof (horizon_ge pl (prev, lo) Hin) as Hh. unfold finish in Hh; cbn [fst snd] in Hh.
    apply tri_find_start_exact; [lia| |].
    - intros u Hu. apply (fits_false _ _ _ _ (S u)); [lia|].
      pose proof (usage_js_ge_member pl (prev, lo) (S u) Hin) as Hge. cbn [fst snd] in Hge.
      rewrite req_usage_on in Hge by lia. lia.
    - apply fits_spec. intros t' Ht'.
      rewrite usage_js_finished by (intros e He; specialize (Hfin e He); lia).
      unfold peak in Hpk. lia. }
  rewrite Hx. f_equal. apply IH; auto.
  - left; auto.
  - intros e [<-|He]; [unfold finish; simpl; lia|]. specialize (Hfin e He). lia.
Qed.

Lemma lookup_combine_seq : forall rs xs i k, length xs = length rs -> i <= k < i + length rs ->
  lookup k (combine (combine (seq i (length rs)) rs) xs) = nth (k - i) xs 0.
Proof.
  induction rs as [|r rs IH]; intros xs i k Hl Hk; [simpl in Hk; lia|].
  destruct xs as [|x xs]; [discriminate|]. cbn [length seq combine lookup fst].
  destruct (Nat.eqb_spec i k) as [<-|Hne].
  - rewrite Nat.sub_diag. reflexivity.
  - rewrite IH by (simpl in *; lia). replace (k - i) with (S (k - S i)) by lia. reflexivity.
Qed.

Lemma nth_map_seq : forall (f : nat -> nat) n s k, k < n -> nth k (map f (seq s n)) 0 = f (s + k).
Proof.
  induction n; intros s k Hk; [lia|]. cbn [seq map].
  destruct k; simpl; [f_equal; lia|]. rewrite IHn by lia. f_equal; lia.
Qed.

Lemma map_nth_seq0 : forall (l : list nat), map (fun k => nth k l 0) (seq 0 (length l)) = l.
Proof.
  intros l. apply (nth_ext _ _ 0 0); rewrite ?map_length, ?seq_length; auto.
  intros k Hk. rewrite nth_map_seq by auto. reflexivity.
Qed.

(** equal volumes, peaks <= M, outputs >= 1, every two neighbours conflict at their first steps (M < s_1 + s_2 +
    2): SVF starts each request when the previous one finishes *)
Theorem svf_serial_starts : forall M v rs,
  Forall (ok_req M) rs -> Forall (fun r => volume2 r = v) rs -> chain M rs ->
  svf M rs = serial 0 rs.
Proof.
  intros M v rs Hok Hv Hch. unfold svf, svf_placed, svf_order.
  rewrite (isort_v_const v).
  2: { intros [i rq] Ha. apply in_combine_r in Ha. unfold vol_of. cbn [snd].
       rewrite Forall_forall in Hv. apply Hv; auto. }
  destruct rs as [|r rest]; [reflexivity|].
  inversion Hok as [|? ? [Hpk Ho] Hok']; subst.
  cbn [length seq combine place].
  change (find_start M [] (snd (0, r)) 0 (horizon_js [] - 0)) with 0. cbn [snd].
  rewrite (place_serial M rest 1 [(r, 0)] 0 r) by (simpl; auto; intros e [<-|[]]; unfold finish; simpl; lia).
  transitivity (map (fun k => nth k (serial 0 (r :: rest)) 0) (seq 0 (length (r :: rest)))).
  - apply map_ext_in. intros k Hk. apply in_seq in Hk.
    change ((0, r, 0) :: combine (combine (seq 1 (length rest)) rest) (serial (0 + output r) rest))
      with (combine (combine (seq 0 (length (r :: rest))) (r :: rest)) (serial 0 (r :: rest))).
    rewrite lookup_combine_seq by (rewrite ?serial_length; lia). rewrite Nat.sub_0_r. reflexivity.
  - rewrite <- (serial_length (r :: rest) 0). apply map_nth_seq0.
Qed.

(** ** The family *)

Fixpoint alternate (x y : req) (n : nat) : list req :=
  match n with
  | 0 => []
  | S n' => x :: y :: alternate x y n'
  end.

(** Pair j (of narrow (a, c), wide (b, 1)) starts at t + j (c + 1) and t + j (c + 1) + c. *)
Fixpoint alternating_starts (c t n : nat) : list nat :=
  match n with
  | 0 => []
  | S n' => t :: (t + c) :: alternating_starts c (t + c + 1) n'
  end.

Lemma serial_alternate : forall a b c n t,
  serial t (alternate (a, c) (b, 1) n) = alternating_starts c t n.
Proof.
  induction n; intros t; simpl; auto. unfold output; simpl. rewrite IHn. repeat f_equal; lia.
Qed.

Lemma chain_alternate : forall M a b c n, M < a + b + 2 -> chain M (alternate (a, c) (b, 1) n).
Proof.
  intros M a b c n H. induction n as [|n IH]; [exact I|].
  destruct n as [|n].
  - simpl. unfold prompt; simpl. split; [lia|exact I].
  - change (M < prompt (a, c) + prompt (b, 1) + 2 /\ M < prompt (b, 1) + prompt (a, c) + 2 /\
            chain M (alternate (a, c) (b, 1) (S n))).
    split; [unfold prompt; simpl; lia|]. split; [unfold prompt; simpl; lia|exact IH].
Qed.

(** svf-alternating: n pairs (a, c), (b, 1) of equal volume with a + b + 2 > M: SVF starts pair j at j (c + 1)
    and j (c + 1) + c (svf.alternating) *)
Theorem svf_alternating_starts : forall M a b c n,
  1 <= c -> a + c <= M -> b + 1 <= M -> M < a + b + 2 -> volume2 (a, c) = volume2 (b, 1) ->
  svf M (alternate (a, c) (b, 1) n) = alternating_starts c 0 n.
Proof.
  intros M a b c n Hc Ha Hb Hconf Hv.
  rewrite (svf_serial_starts M (volume2 (b, 1))).
  - apply serial_alternate.
  - induction n; simpl; constructor; [|constructor]; auto;
      unfold ok_req, peak, prompt, output; simpl; lia.
  - induction n; simpl; constructor; [|constructor]; auto.
  - apply chain_alternate; auto.
Qed.

(** ** The witness schedule *)

Definition alternating_witness (c m : nat) : list nat :=
  flat_map (fun i => [c * (i / c); c * m + i]) (seq 0 (c * m)).

Lemma usage_alt_split : forall x y (f g : nat -> nat) n s t,
  usage_js (combine (alternate x y n) (flat_map (fun i => [f i; g i]) (seq s n))) t
  = sumf (fun i => req_usage x (f i) t + req_usage y (g i) t) (seq s n).
Proof.
  induction n; intros s t; [reflexivity|].
  cbn [alternate seq flat_map app combine]. rewrite !usage_js_cons, IHn. cbn [fst snd sumf]. lia.
Qed.

Lemma sumf_le_pointwise : forall (F G : nat -> nat) l, (forall i, In i l -> F i <= G i) -> sumf F l <= sumf G l.
Proof.
  induction l as [|x l IH]; intros H; simpl; [lia|].
  assert (sumf F l <= sumf G l) by (apply IH; intros i Hi; apply H; right; auto).
  specialize (H x (or_introl eq_refl)). lia.
Qed.

Lemma sumf_window : forall K lo w n s,
  sumf (fun i => if (lo <=? i) && (i <? lo + w) then K else 0) (seq s n)
  = K * (Nat.min (s + n) (lo + w) - Nat.max s lo).
Proof.
  induction n; intros s.
  - simpl. replace (Nat.min (s + 0) (lo + w) - Nat.max s lo) with 0 by lia. lia.
  - rewrite seq_S, sumf_app, IHn. cbn [sumf].
    destruct (Nat.leb_spec lo (s + n)), (Nat.ltb_spec (s + n) (lo + w)); simpl;
      rewrite <- ?Nat.mul_sub_distr_l; nia.
Qed.

Lemma alternate_length : forall x y n, length (alternate x y n) = 2 * n.
Proof. induction n; simpl; [auto|]. rewrite IHn. lia. Qed.

Lemma flat_pair_length : forall (f g : nat -> nat) n s,
  length (flat_map (fun i => [f i; g i]) (seq s n)) = 2 * n.
Proof. induction n; intros s; simpl; [auto|]. rewrite IHn. lia. Qed.

(** the same family, n = c m pairs: narrow i at c (i / c), wide i at c m + i is feasible when c (a + c) <= M and
    b + 1 <= M (svf.alternating) *)
Theorem alternating_witness_feasible : forall M a b c m,
  1 <= c -> c * (a + c) <= M -> b + 1 <= M ->
  feasible M (alternate (a, c) (b, 1) (c * m)) (alternating_witness c m).
Proof.
  intros M a b c m Hc Ha Hb. split.
  { unfold alternating_witness. rewrite alternate_length, flat_pair_length. auto. }
  intros t. unfold usage, alternating_witness. rewrite usage_alt_split.
  destruct (Nat.le_gt_cases t (c * m)) as [Ht|Ht].
  - set (g := (t - 1) / c).
    eapply Nat.le_trans.
    { apply (sumf_le_pointwise _ (fun i => if (g * c <=? i) && (i <? g * c + c) then a + c else 0)).
      intros i Hi. apply in_seq in Hi.
      rewrite (req_usage_zero_before (b, 1)) by lia. rewrite Nat.add_0_r.
      pose proof (Nat.div_mod i c ltac:(lia)) as Hi1. pose proof (Nat.mod_upper_bound i c ltac:(lia)) as Hi2.
      unfold req_usage, output, prompt; cbn [fst snd].
      destruct (Nat.ltb_spec (c * (i / c)) t), (Nat.leb_spec t (c * (i / c) + c)); simpl; [|lia..].
      assert (Hg : g = i / c).
      { unfold g. symmetry. apply (Nat.div_unique (t - 1) c (i / c) (t - 1 - c * (i / c))); lia. }
      rewrite Hg. destruct (Nat.leb_spec (i / c * c) i), (Nat.ltb_spec i (i / c * c + c)); simpl; lia. }
    rewrite sumf_window.
    assert (Nat.min (0 + c * m) (g * c + c) - Nat.max 0 (g * c) <= c) by lia. nia.
  - eapply Nat.le_trans.
    { apply (sumf_le_pointwise _ (fun i => if (t - c * m - 1 <=? i) && (i <? t - c * m - 1 + 1) then b + 1 else 0)).
      intros i Hi. apply in_seq in Hi.
      assert (Hq : i / c < m) by (apply Nat.div_lt_upper_bound; lia).
      rewrite (req_usage_zero_after (a, c)) by (unfold output; simpl; nia).
      unfold req_usage, output, prompt; cbn [fst snd].
      destruct (Nat.ltb_spec (c * m + i) t), (Nat.leb_spec t (c * m + i + 1)); simpl; [|lia..].
      destruct (Nat.leb_spec (t - c * m - 1) i), (Nat.ltb_spec i (t - c * m - 1 + 1)); simpl; lia. }
    rewrite sumf_window.
    assert (Nat.min (0 + c * m) (t - c * m - 1 + 1) - Nat.max 0 (t - c * m - 1) <= 1) by lia. nia.
Qed.
