(** * Strict head-of-line placement in any priority order, for a burst.

    [Svf.v]'s placement ([place]) takes the requests in a given order; nothing in it is
    specific to the volume order.  Here it is named for every order:

      [hol M todo n]   the start of each of the requests 0 .. n-1, placed in the order [todo]
                       (a list of (position, request) pairs), each at the earliest step, not
                       before the previous start, at which the forward-looking check passes.

    A priority order of an instance [rs] is any permutation of its (position, request) pairs
    ([order_of]).  SVF is the instance for the volume order ([svf_hol], by definition), the
    1-bit SVF of OneBit.v the instance for the proxy-volume order.  Proved here once, for
    every order:
    - [hol_perm], [hol_feasible]: the schedule is a reordering of the placement and is
      feasible when every peak fits;
    - [hol_sim_eq]: it is the step-by-step strict head-of-line process of Sim.v in that order;
    - [hol_js_sorted]: in placement order the starts never decrease, and any relation the
      order has between its elements holds between the placed requests;
    - [hol_starts_bound]: Lemma A.2's certificate, summed (the order-free part):
        (M - P) * sum_j x_j <= 2 * sum_j sum_{i started before j} v_i. *)

From Coq Require Import Arith Lia List Bool Permutation Sorting.
From GeoSched Require Import Model Svf SvfFacts Sim Prop31 LemmaA2 Thm32.
Import ListNotations.

(** ** The placement in a given order *)

Definition hol (M : nat) (todo : list (nat * req)) (n : nat) : list nat :=
  let pl := place M [] 0 todo in
  map (fun i => lookup i pl) (seq 0 n).

(** The placed requests with their starts, in placement order. *)
Definition hol_js (M : nat) (todo : list (nat * req)) : list (req * nat) :=
  map strip (place M [] 0 todo).

(** A priority order of [rs]: its (position, request) pairs in some order. *)
Definition order_of (rs : list req) (todo : list (nat * req)) : Prop :=
  Permutation todo (combine (seq 0 (length rs)) rs).

(** SVF is the placement in the volume order. *)
Lemma svf_hol : forall M rs, svf M rs = hol M (svf_order rs) (length rs).
Proof. reflexivity. Qed.

Lemma svf_order_is_order : forall rs, order_of rs (svf_order rs).
Proof. intros; apply svf_order_perm. Qed.

Lemma in_order : forall rs todo a, order_of rs todo -> In a todo -> In (snd a) rs.
Proof.
  intros rs todo [i r] Ho H. apply (Permutation_in _ Ho) in H. apply in_combine_r in H. auto.
Qed.

Lemma hol_length : forall M todo n, length (hol M todo n) = n.
Proof. intros; unfold hol; rewrite map_length, seq_length; auto. Qed.

Lemma hol_nodup : forall M rs todo, order_of rs todo ->
  NoDup (map (fun e => fst (fst e)) (place M [] 0 todo)).
Proof.
  intros M rs todo Ho. rewrite <- (map_map fst fst), place_fst.
  apply (Permutation_NoDup (l := seq 0 (length rs))); [|apply seq_NoDup].
  rewrite <- (map_fst_combine (seq 0 (length rs)) rs) at 1 by (rewrite seq_length; lia).
  apply Permutation_map, Permutation_sym, Ho.
Qed.

(** The instance-order schedule is a reordering of the placement. *)
Lemma hol_perm : forall M rs todo, order_of rs todo ->
  Permutation (combine rs (hol M todo (length rs))) (hol_js M todo).
Proof.
  intros M rs todo Ho. unfold hol, hol_js. rewrite combine_map_seq.
  set (out := place M [] 0 todo).
  set (h := fun p : nat * req => (snd p, lookup (fst p) out)).
  apply perm_trans with (map h todo).
  - apply Permutation_map, Permutation_sym, Ho.
  - replace todo with (map fst out) at 1 by (apply place_fst).
    rewrite map_map. apply Permutation_refl'. apply map_ext_in. intros e He.
    unfold h, strip. f_equal. apply lookup_in; auto. apply (hol_nodup M rs todo Ho).
Qed.

(** [hol M todo n], the strict head-of-line placement in any priority order [todo] (a permutation of the
    (position, request) pairs; [svf] is the volume-order instance, [svf_hol]), is feasible when every peak fits,
    and is the step-by-step process in that order *)
Theorem hol_feasible : forall M rs todo, order_of rs todo ->
  (forall r, In r rs -> peak r <= M) -> feasible M rs (hol M todo (length rs)).
Proof.
  intros M rs todo Ho Hp. split; [apply hol_length|]. intros t. unfold usage, usage_js.
  rewrite (sumf_perm _ _ _ (hol_perm M rs todo Ho)). fold (usage_js (hol_js M todo) t).
  pose proof (place_feasible M todo [] 0) as H.
  unfold usage_js at 1 in H. simpl in H. apply H.
  - intros; unfold usage_js; simpl; lia.
  - intros a Ha. apply Hp, (in_order rs todo); auto.
Qed.

(** ** The step-by-step process in the same order *)

Definition hol_sim (M : nat) (todo : list (nat * req)) (n : nat) : list nat :=
  let pl := sim M (S (sumo todo)) 0 [] todo in
  map (fun i => lookup i pl) (seq 0 n).

(** [hol M todo n], the strict head-of-line placement in any priority order [todo] (a permutation of the
    (position, request) pairs; [svf] is the volume-order instance, [svf_hol]), is feasible when every peak fits,
    and is the step-by-step process in that order *)
Theorem hol_sim_eq : forall M todo n,
  (forall a, In a todo -> peak (snd a) <= M) -> hol_sim M todo n = hol M todo n.
Proof.
  intros M todo n Hp. unfold hol_sim, hol.
  replace (sim M (S (sumo todo)) 0 [] todo) with (place M [] 0 todo); [reflexivity|].
  symmetry. apply (sim_place M (S (sumo todo) + length todo)); auto; simpl; lia.
Qed.

(** ** The placement keeps the order's relations, and its starts never decrease (`place_sorted_by`, Thm32.v) *)

Lemma hol_js_sorted : forall (Rel : req -> req -> Prop) M todo,
  StronglySorted (fun a b => Rel (snd a) (snd b)) todo ->
  StronglySorted (start_rel Rel) (hol_js M todo).
Proof. intros; apply place_sorted_by; auto. Qed.

(** Every list is sorted for the relation that always holds: the starts alone. *)
Lemma strongly_sorted_true : forall {A} (l : list A), StronglySorted (fun _ _ => True) l.
Proof.
  intros A l. induction l; constructor; auto. apply Forall_forall; auto.
Qed.

(** [ForallOrdPairs] and [StronglySorted] are the same property. *)
Lemma ordpairs_sorted : forall {A} (Rel : A -> A -> Prop) l,
  ForallOrdPairs Rel l -> StronglySorted Rel l.
Proof. intros A Rel l H. induction H; constructor; auto. Qed.

(** ** Lemma A.2's certificate in any order *)

(** Request [e] of the placement waits [snd e] steps; at each of them the requests running
    have peak mass > M - P (Lemma A.2, LemmaA2.place_a2, any order). *)
Lemma hol_waiting_mass : forall M P rs todo e t, order_of rs todo ->
  (forall r, In r rs -> peak r <= P) -> In e (hol_js M todo) -> t < snd e ->
  M - P <= active_peaks_js (hol_js M todo) t.
Proof.
  intros M P rs todo e t Ho HP He Ht. unfold hol_js in He. apply in_map_iff in He.
  destruct He as [e0 [<- He0]].
  destruct (place_a2 M todo [] 0 t) as [h [Hh [_ Hm]]]; [intros ? []|lia|exists e0; auto|].
  assert (In (snd (fst h)) rs).
  { apply (in_order rs todo (fst h) Ho). rewrite <- (place_fst M todo [] 0). apply in_map; auto. }
  specialize (HP _ H). change ([] ++ map strip (place M [] 0 todo)) with (hol_js M todo) in Hm. lia.
Qed.

(** Summed over the waiting steps: (M - P) x_e <= sum_b p_b n_b, n_b the number of steps
    before x_e at which b runs (Lemma A.2's double counting, step 8 of kong.lemmaA.2). *)
Lemma hol_double_count : forall M P rs todo e, order_of rs todo ->
  (forall r, In r rs -> peak r <= P) -> In e (hol_js M todo) ->
  (M - P) * snd e <=
  sumf (fun b => peak (fst b) * sum_upto (snd e) (fun t => if activeb b t then 1 else 0)) (hol_js M todo).
Proof.
  intros M P rs todo e Ho HP He. rewrite Nat.mul_comm, <- sum_upto_const.
  eapply Nat.le_trans; [apply sum_upto_le; intros t Ht; exact (hol_waiting_mass M P rs todo e t Ho HP He Ht)|].
  unfold active_peaks_js. rewrite sum_upto_sumf. apply Nat.eq_le_incl, sumf_ext. intros b _.
  rewrite <- sum_upto_mul. apply sum_upto_ext. intros t _. destruct (activeb b t); lia.
Qed.

(** Each b runs on at most o_b of those steps, and p_b o_b <= 2 v_b:
    (M - P) x_e <= 2 sum_{b started before e} v_b. *)
Lemma hol_wait_bound : forall M P rs todo e, order_of rs todo ->
  (forall r, In r rs -> peak r <= P) -> In e (hol_js M todo) ->
  (M - P) * snd e <= 2 * sumf (before e) (hol_js M todo).
Proof.
  intros M P rs todo e Ho HP He.
  eapply Nat.le_trans; [exact (hol_double_count M P rs todo e Ho HP He)|].
  rewrite <- sumf_mul_l. apply sumf_le. intros b _.
  rewrite <- sum_upto_mul.
  rewrite (sum_upto_ext _ _ (fun t => if activeb b t then peak (fst b) else 0))
    by (intros t _; destruct (activeb b t); lia).
  eapply Nat.le_trans; [apply active_time_bound|].
  unfold before. destruct (Nat.ltb (snd b) (snd e)); [rewrite volume2_eq|]; lia.
Qed.

(** any order, peaks <= P: (M - P) * sum_j x_j <= 2 * sum_{(i, j): x_i < x_j} v_i (Lemma A.2's certificate does
    not use the order) *)
Theorem hol_starts_bound : forall M P rs todo, order_of rs todo ->
  (forall r, In r rs -> peak r <= P) ->
  (M - P) * sumf snd (hol_js M todo) <= 2 * dsum before (hol_js M todo).
Proof.
  intros M P rs todo Ho HP. unfold dsum. rewrite <- !sumf_mul_l. apply sumf_le. intros e He.
  apply (hol_wait_bound M P rs todo e Ho HP He).
Qed.

(** ** TEL of the placement *)

Lemma tel_hol : forall M rs todo, order_of rs todo ->
  tel rs (hol M todo (length rs)) = sumf snd (hol_js M todo) + sumf output rs.
Proof.
  intros M rs todo Ho. unfold tel, tel_js.
  rewrite (sumf_perm finish _ _ (hol_perm M rs todo Ho)).
  fold (tel_js (hol_js M todo)). rewrite tel_js_split. f_equal.
  rewrite <- (sumf_perm (fun e => output (fst e)) _ _ (hol_perm M rs todo Ho)).
  apply outputs_combine. rewrite hol_length; lia.
Qed.

Example hol_paper_svf : hol 12 (svf_order [(6, 3); (1, 5)]) 2 = [5; 0] := eq_refl.
(** The instance's own order (FCFS on a burst): (6, 3) first, then (1, 5) when it fits. *)
Example hol_paper_fcfs : hol 12 [(0, (6, 3)); (1, (1, 5))] 2 = [0; 1] := eq_refl.
