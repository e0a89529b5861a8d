(** * Facts about the Coq SVF: the order is a sorted permutation, the placement keeps it,
      starts never decrease, every start passes the forward check, and the schedule is
      feasible (svf_feasible). *)

From Coq Require Import Arith Lia List Bool Permutation Sorting.
From GeoSched Require Import Model Svf.
Import ListNotations.

(** ** The order *)

Lemma isort_v_perm : forall l, Permutation (isort_v l) l.
Proof. apply (insertion_sort_perm (fun a b => Nat.leb (vol_of a) (vol_of b)) insert_v); reflexivity. Qed.

Definition vle (a b : nat * req) : Prop := vol_of a <= vol_of b.

Lemma isort_v_sorted : forall l, StronglySorted vle (isort_v l).
Proof. apply (key_sort_sorted vol_of insert_v); reflexivity. Qed.

Lemma svf_order_perm : forall rs,
  Permutation (svf_order rs) (combine (seq 0 (length rs)) rs).
Proof. intros; apply isort_v_perm. Qed.

(** ** The forward check and the search *)

Lemma fits_spec : forall M pl r t,
  fits M pl r t = true <->
  (forall t', t < t' <= t + output r -> usage_js pl t' + prompt r + (t' - t) <= M).
Proof.
  intros M pl r t. unfold fits. rewrite forallb_forall. split.
  - intros H t' Ht'. apply Nat.leb_le, H, in_seq. lia.
  - intros H t' Ht'. apply in_seq in Ht'. apply Nat.leb_le, H. lia.
Qed.

Lemma fits_at_end : forall M pl r t,
  peak r <= M -> horizon_js pl <= t -> fits M pl r t = true.
Proof.
  intros M pl r t Hp Ht. apply fits_spec. intros t' Ht'.
  rewrite usage_js_after_horizon by lia. unfold peak in Hp. lia.
Qed.

Lemma find_start_ge : forall M pl r fuel t, t <= find_start M pl r t fuel.
Proof.
  induction fuel; intros t; simpl; auto.
  destruct (fits M pl r t); auto. specialize (IHfuel (S t)). lia.
Qed.

Lemma find_start_fail : forall M pl r fuel t u,
  t <= u -> u < find_start M pl r t fuel -> fits M pl r u = false.
Proof.
  induction fuel; intros t u H1 H2; simpl in *; [lia|].
  destruct (fits M pl r t) eqn:E; [lia|].
  destruct (Nat.eq_dec t u) as [<-|]; auto.
  apply (IHfuel (S t)); auto; lia.
Qed.

Lemma find_start_cases : forall M pl r fuel t,
  fits M pl r (find_start M pl r t fuel) = true \/ find_start M pl r t fuel = t + fuel.
Proof.
  induction fuel; intros t; simpl; [right; lia|].
  destruct (fits M pl r t) eqn:E; [left; auto|].
  destruct (IHfuel (S t)) as [H|H]; [left; auto|right; lia].
Qed.

(** The start chosen by [place] passes the check (when peak <= M). *)
Lemma place_start_fits : forall M pl r lo,
  peak r <= M ->
  fits M pl r (find_start M pl r lo (horizon_js pl - lo)) = true.
Proof.
  intros M pl r lo Hp.
  destruct (find_start_cases M pl r (horizon_js pl - lo) lo) as [H|H]; auto.
  apply fits_at_end; auto. rewrite H. lia.
Qed.

(** ** The placement *)

Lemma place_fst : forall M todo pl lo, map fst (place M pl lo todo) = todo.
Proof.
  induction todo as [|a todo IH]; intros pl lo; simpl; auto. rewrite IH; auto.
Qed.

Lemma place_ge : forall M todo pl lo, Forall (fun e => lo <= snd e) (place M pl lo todo).
Proof.
  induction todo as [|a todo IH]; intros pl lo; simpl; constructor.
  - apply find_start_ge.
  - eapply Forall_impl; [|apply IH]. intros e He. simpl in He.
    pose proof (find_start_ge M pl (snd a) (horizon_js pl - lo) lo). lia.
Qed.

Lemma usage_js_cons : forall e l t,
  usage_js (e :: l) t = req_usage (fst e) (snd e) t + usage_js l t.
Proof. reflexivity. Qed.

Lemma fits_usage : forall M pl r x,
  fits M pl r x = true -> (forall t, usage_js pl t <= M) ->
  forall t, usage_js ((r, x) :: pl) t <= M.
Proof.
  intros M pl r x Hf Hpl t. rewrite usage_js_cons. simpl fst; simpl snd.
  unfold req_usage.
  destruct (Nat.ltb_spec x t), (Nat.leb_spec t (x + output r)); cbn [andb];
    try (specialize (Hpl t); lia).
  rewrite fits_spec in Hf. specialize (Hf t ltac:(lia)). lia.
Qed.

Lemma place_feasible : forall M todo pl lo,
  (forall t, usage_js pl t <= M) -> (forall a, In a todo -> peak (snd a) <= M) ->
  forall t, usage_js pl t + usage_js (map strip (place M pl lo todo)) t <= M.
Proof.
  intros M todo. induction todo as [|a todo IH]; intros pl lo Hpl Hp t.
  - simpl. unfold usage_js at 2. simpl. rewrite Nat.add_0_r. auto.
  - cbn [place map]. rewrite usage_js_cons.
    set (x := find_start M pl (snd a) lo (horizon_js pl - lo)).
    assert (Hf : fits M pl (snd a) x = true) by (apply place_start_fits, Hp; left; auto).
    pose proof (fits_usage M pl (snd a) x Hf Hpl) as Hpl'.
    pose proof (IH ((snd a, x) :: pl) x Hpl' (fun b Hb => Hp b (or_intror Hb)) t) as H.
    rewrite usage_js_cons in H. simpl in *. lia.
Qed.

(** ** From the placement back to the instance order *)

Lemma combine_map_seq : forall (rs : list req) k (g : nat -> nat),
  combine rs (map g (seq k (length rs))) =
  map (fun p => (snd p, g (fst p))) (combine (seq k (length rs)) rs).
Proof.
  induction rs as [|r rs IH]; intros k g; simpl; auto. rewrite IH; auto.
Qed.

Lemma lookup_in : forall l e,
  NoDup (map (fun e => fst (fst e)) l) -> In e l -> lookup (fst (fst e)) l = snd e.
Proof.
  induction l as [|b l IH]; intros e Hn He; simpl in *; [contradiction|].
  inversion Hn; subst. destruct He as [->|He].
  - rewrite Nat.eqb_refl; auto.
  - destruct (Nat.eqb_spec (fst (fst b)) (fst (fst e))) as [E|E]; auto.
    exfalso. apply H1. rewrite E. apply (in_map (fun e => fst (fst e))); auto.
Qed.

Lemma svf_placed_nodup : forall M rs,
  NoDup (map (fun e => fst (fst e)) (svf_placed M rs)).
Proof.
  intros M rs. rewrite <- (map_map fst fst). unfold svf_placed. rewrite place_fst.
  apply (Permutation_NoDup (l := seq 0 (length rs))); [|apply seq_NoDup].
  rewrite <- (map_fst_combine (seq 0 (length rs)) rs) at 1 by (rewrite seq_length; lia).
  apply Permutation_map, Permutation_sym, svf_order_perm.
Qed.

Lemma svf_length : forall M rs, length (svf M rs) = length rs.
Proof. intros; unfold svf; rewrite map_length, seq_length; auto. Qed.

(** The instance-order schedule is a reordering of the placement. *)
Lemma svf_perm : forall M rs,
  Permutation (combine rs (svf M rs)) (map strip (svf_placed M rs)).
Proof.
  intros M rs. unfold svf. rewrite combine_map_seq.
  set (out := svf_placed M rs).
  set (h := fun p : nat * req => (snd p, lookup (fst p) out)).
  apply perm_trans with (map h (svf_order rs)).
  - apply Permutation_map, Permutation_sym, svf_order_perm.
  - replace (svf_order rs) with (map fst out) by (apply place_fst).
    rewrite map_map. apply Permutation_refl'. apply map_ext_in. intros e He.
    unfold h, strip. f_equal. apply lookup_in; auto. apply svf_placed_nodup.
Qed.

Lemma in_svf_order : forall rs a, In a (svf_order rs) -> In (snd a) rs.
Proof.
  intros rs [i r] H. apply (Permutation_in _ (svf_order_perm rs)) in H.
  apply in_combine_r in H. auto.
Qed.

(** if every peak <= M, the Coq SVF schedule is feasible *)
Theorem svf_feasible : forall M rs,
  (forall r, In r rs -> peak r <= M) -> feasible M rs (svf M rs).
Proof.
  intros M rs Hp. split; [apply svf_length|]. intros t. unfold usage, usage_js.
  rewrite (sumf_perm _ _ _ (svf_perm M rs)). fold (usage_js (map strip (svf_placed M rs)) t).
  pose proof (place_feasible M (svf_order rs) [] 0) as H.
  unfold usage_js at 1 in H. simpl in H. apply H.
  - intros; unfold usage_js; simpl; lia.
  - intros a Ha. apply Hp, in_svf_order; auto.
Qed.

(** ** Tools for computing placements (SjfFamily.v, SvfGroup.v, SvfTriangles.v) *)

Lemma find_start_now : forall M pl r t fuel,
  fits M pl r t = true -> find_start M pl r t fuel = t.
Proof. intros M pl r t [|f] H; simpl; rewrite ?H; auto. Qed.

Lemma fits_false : forall M pl r t t',
  t < t' <= t + output r -> M < usage_js pl t' + prompt r + (t' - t) -> fits M pl r t = false.
Proof.
  intros M pl r t t' Ht H. destruct (fits M pl r t) eqn:E; auto.
  rewrite fits_spec in E. specialize (E t' Ht). lia.
Qed.

Lemma usage_js_app : forall l1 l2 t, usage_js (l1 ++ l2) t = usage_js l1 t + usage_js l2 t.
Proof. intros; apply sumf_app. Qed.

Lemma usage_js_repeat : forall e k t,
  usage_js (repeat e k) t = k * req_usage (fst e) (snd e) t.
Proof. intros e k t. induction k; simpl; auto. unfold usage_js in *; simpl. lia. Qed.

Lemma usage_js_finished : forall l t, (forall e, In e l -> finish e < t) -> usage_js l t = 0.
Proof.
  intros l t H. apply sumf_zero. intros e He. apply req_usage_zero_after.
  specialize (H e He). unfold finish in H. lia.
Qed.

Lemma req_usage_on : forall r x t,
  x < t <= x + output r -> req_usage r x t = prompt r + (t - x).
Proof.
  intros r x t H. unfold req_usage.
  destruct (Nat.ltb_spec x t), (Nat.leb_spec t (x + output r)); simpl; lia.
Qed.

(** Equal volumes: the stable insertion sort keeps the instance order. *)
Lemma isort_v_const : forall v l, (forall a, In a l -> vol_of a = v) -> isort_v l = l.
Proof.
  intros v l H. induction l as [|a l IH]; cbn [isort_v]; auto.
  rewrite IH by (intros; apply H; right; auto).
  destruct l as [|b l]; cbn [insert_v]; auto.
  rewrite (H a), (H b) by (simpl; auto). rewrite Nat.leb_refl. auto.
Qed.

Lemma lookup_map_seq : forall (g : nat -> nat) (rq : req) m s i, s <= i < s + m ->
  lookup i (map (fun k => ((k, rq), g k)) (seq s m)) = g i.
Proof.
  induction m; intros s i H; [lia|]. cbn [seq map lookup fst snd].
  destruct (Nat.eqb_spec s i) as [<-|Hne]; auto. apply IHm; lia.
Qed.

