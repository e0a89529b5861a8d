(** * Lemma A.2 of Kong et al. for the Coq SVF, all of it: its three items and the summed form.

    Burst, strict head-of-line SVF with the forward-looking check ([svf]), every peak <= P.
    W_j, the wait of request j, is its start x_j (every request arrives at 0); "i before j"
    is the SVF order (volume, ties by position: [svf_order]); alpha = P / M, so
    (1 - alpha) M = M - P.

    - item 1 ([LemmaA2.lemmaA2_peak_mass]): while a request waits, the active peaks sum to
      more than M - P;
    - item 2 ([lemmaA2_active_precede]): every request active while j waits has volume
      <= v_j (it was placed before j);
    - item 3 ([lemmaA2_peak_time]): p o + o <= 2 v;
    - per request: (M - P) W_j <= sum_i p_i n_ij, n_ij the steps before W_j at which i runs
      ([lemmaA2_double_count]), hence (M - P) W_j <= 2 sum_{i : x_i < x_j} v_i ([lemmaA2_wait]);
    - summed, the paper's form ([lemmaA2_summed]):
          (M - P) * sum_j W_j <= 2 * sum_j sum_{i before j} v_i,
      where the right side is [vol_before] of the requests in SVF's order, and
      ([lemmaA2_summed_pairs]) sum_j sum_{i before j} v_i = sum_{i<j} min(v_i, v_j).

    The earlier [Thm32.svf_starts_bound] has 2 * pairmin = 2 (sum_i v_i + sum_{i<j} min) on
    the right: weaker by 2 sum_i v_i. *)

From Coq Require Import Arith Lia List Bool Permutation Sorting.
From GeoSched Require Import Model Svf SvfFacts Prop31 LemmaA2 Thm32 Hol Inversion.
Import ListNotations.

(** sum_j sum_{i before j in l} v_i: each request adds its volume once per later request. *)
Fixpoint vol_before (l : list req) : nat :=
  match l with
  | [] => 0
  | r :: l' => length l' * volume r + vol_before l'
  end.

(** ** Item 3 *)

(** Lemma A.2's items 2 (a request active while j waits has v_i <= v_j) and 3 (p o + o <= 2v) *)
Theorem lemmaA2_peak_time : forall r, peak r * output r + output r <= 2 * volume r.
Proof.
  intros r. rewrite <- volume2_eq. unfold peak, volume2.
  generalize (prompt r) (output r); intros s o.
  replace ((s + o) * o) with (s * o + o * o) by ring. lia.
Qed.

(** ** Item 2 *)

Lemma sorted_ordpairs : forall {A} (R : A -> A -> Prop) l,
  StronglySorted R l -> ForallOrdPairs R l.
Proof. intros A R l H. induction H; constructor; auto. Qed.

Lemma in_svf_js : forall M rs k, k < length rs ->
  In (nth k rs (0, 0), nth k (svf M rs) 0) (svf_js M rs).
Proof.
  intros M rs k Hk. apply (Permutation_in _ (svf_js_perm M rs)).
  rewrite <- combine_nth by (rewrite svf_length; auto). apply nth_In.
  rewrite combine_length, svf_length, Nat.min_id. exact Hk.
Qed.

(** Lemma A.2's items 2 (a request active while j waits has v_i <= v_j) and 3 (p o + o <= 2v) *)
Theorem lemmaA2_active_precede : forall M (rs : list req) t i j,
  i < length rs -> j < length rs ->
  activeb (nth i rs (0, 0), nth i (svf M rs) 0) t = true -> t < nth j (svf M rs) 0 ->
  volume (nth i rs (0, 0)) <= volume (nth j rs (0, 0)).
Proof.
  intros M rs t i j Hi Hj Ha Hw. unfold activeb in Ha; simpl in Ha.
  apply andb_true_iff in Ha. destruct Ha as [Ha _]. apply Nat.leb_le in Ha.
  pose proof (ForallOrdPairs_In (sorted_ordpairs _ _ (svf_js_sorted M rs))
                _ _ (in_svf_js M rs i Hi) (in_svf_js M rs j Hj)) as H.
  unfold start_vol_le in H; simpl in H. destruct H as [H|[[_ H]|[H _]]].
  - injection H as _ H. lia.
  - auto.
  - lia.
Qed.

(** ** Per request, and summed *)

(** per request: (M - P) W_j <= sum_i p_i n_ij (n_ij the steps before W_j at which i runs) <= 2 sum_{i: x_i <
    x_j} v_i *)
Theorem lemmaA2_wait : forall M P rs k, k < length rs ->
  (forall r, In r rs -> peak r <= P) ->
  (M - P) * nth k (svf M rs) 0 <=
  2 * sumf (fun e => if snd e <? nth k (svf M rs) 0 then volume (fst e) else 0) (combine rs (svf M rs)).
Proof.
  intros M P rs k Hk HP.
  rewrite (sumf_perm _ _ _ (svf_js_perm M rs)).
  apply (wait_bound M P rs (nth k rs (0, 0), nth k (svf M rs) 0) HP), in_svf_js; auto.
Qed.

Lemma vol_before_sorted : forall l, StronglySorted (fun a b => volume a <= volume b) l ->
  vol_before l = psum Nat.min (map volume l).
Proof.
  induction l as [|r l IH]; intros Hs; [reflexivity|].
  inversion Hs as [|? ? Hs' Hf]; subst. cbn [vol_before map psum]. rewrite IH by auto.
  f_equal. rewrite sumf_map. rewrite (sumf_ext _ (fun _ => volume r)).
  - clear. induction l; simpl; lia.
  - intros q Hq. rewrite Forall_forall in Hf. apply Nat.min_l, Hf; auto.
Qed.

Lemma svf_sorted_requests : forall rs,
  StronglySorted (fun a b => volume a <= volume b) (map snd (svf_order rs)).
Proof.
  intros rs. pose proof (isort_v_sorted (combine (seq 0 (length rs)) rs)) as Hs.
  fold (svf_order rs) in Hs. induction Hs as [|a l Hs IH Hf]; constructor; auto.
  apply Forall_forall. intros b Hb. apply in_map_iff in Hb. destruct Hb as [b0 [<- Hb0]].
  rewrite Forall_forall in Hf. specialize (Hf b0 Hb0). unfold vle, vol_of in Hf.
  rewrite !volume2_eq in Hf. lia.
Qed.

Lemma svf_order_requests_perm : forall rs, Permutation (map snd (svf_order rs)) rs.
Proof.
  intros rs. rewrite <- (map_snd_combine (seq 0 (length rs)) rs) at 2 by (rewrite seq_length; lia).
  apply Permutation_map, svf_order_perm.
Qed.

(** per request: (M - P) W_j <= sum_i p_i n_ij (n_ij the steps before W_j at which i runs) <= 2 sum_{i: x_i <
    x_j} v_i *)
Theorem lemmaA2_double_count : forall M P rs k, k < length rs ->
  (forall r, In r rs -> peak r <= P) ->
  (M - P) * nth k (svf M rs) 0 <=
  sumf (fun e => peak (fst e) * sum_upto (nth k (svf M rs) 0) (fun t => if activeb e t then 1 else 0))
       (combine rs (svf M rs)).
Proof.
  intros M P rs k Hk HP.
  rewrite (sumf_perm _ _ _ (svf_js_perm M rs)).
  apply (hol_double_count M P rs (svf_order rs) (nth k rs (0, 0), nth k (svf M rs) 0));
    auto using svf_order_is_order.
  apply in_svf_js; auto.
Qed.

(** that double sum is sum_{i<j} min(v_i, v_j) (so the form is stronger than [svf_starts_bound] by 2 sum_i v_i)
    *)
Theorem lemmaA2_summed_pairs : forall rs,
  vol_before (map snd (svf_order rs)) = psum Nat.min (map volume rs).
Proof.
  intros rs. rewrite vol_before_sorted by apply svf_sorted_requests.
  apply psum_perm; [apply Nat.min_comm|]. apply Permutation_map, svf_order_requests_perm.
Qed.

(** the paper's summed form: (M - P) * sum_j W_j <= 2 * sum_j sum_{i before j} v_i, W_j = x_j, "before" = SVF's
    order (kong.lemmaA.2) *)
Theorem lemmaA2_summed : forall M P rs,
  (forall r, In r rs -> peak r <= P) ->
  (M - P) * sumf (fun x => x) (svf M rs) <= 2 * vol_before (map snd (svf_order rs)).
Proof.
  intros M P rs HP.
  replace (sumf (fun x => x) (svf M rs)) with (sumf snd (svf_js M rs)).
  2:{ rewrite <- (sumf_perm _ _ _ (svf_js_perm M rs)). rewrite <- (sumf_map (fun x => x) snd).
      rewrite map_snd_combine; auto. rewrite svf_length; lia. }
  eapply Nat.le_trans; [apply (hol_starts_bound M P rs (svf_order rs)); auto using svf_order_is_order|].
  apply Nat.mul_le_mono_l. change (hol_js M (svf_order rs)) with (svf_js M rs).
  rewrite vol_before_sorted by apply svf_sorted_requests.
  replace (map volume (map snd (svf_order rs))) with (map (fun e => volume (fst e)) (svf_js M rs)).
  - apply dsum_before_psum. apply (ss_impl start_vol_le); [|apply svf_js_sorted].
    intros a b [H1 H2]. split; auto. rewrite Nat.min_l; auto.
  - unfold svf_js, svf_placed. pose proof (place_fst M (svf_order rs) [] 0) as Hf.
    set (pl := place M [] 0 (svf_order rs)) in *. rewrite <- Hf, !map_map. reflexivity.
Qed.

(** The paper's instance (M = 12, (6, 3) and (1, 5)): W = (5, 0); in SVF's order (1, 5)
    (volume 20) comes first, so sum_j sum_{i before j} v_i = 20 and (M - P) sum W =
    (12 - 9) * 5 = 15 <= 40. *)
Example lemmaA2_summed_paper :
  (12 - 9) * sumf (fun x => x) (svf 12 [(6, 3); (1, 5)]) = 15 /\
  vol_before (map snd (svf_order [(6, 3); (1, 5)])) = 20.
Proof. split; reflexivity. Qed.
