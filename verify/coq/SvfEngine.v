(** * The functions the extracted engine runs, each proved equal to the model's.

    - [svf_engine M rs = svf M rs] ([svf_engine_eq]) and [sjf_engine M rs = sjf M rs]
      ([sjf_engine_eq]): the order by a merge sort on (key, position) (MergeSort.v), the
      placement by jumps between events ([place_jump], SvfJump.v), the instance order back by
      a merge sort on the position;
    - [tel_engine rs xs = tel rs xs] ([tel_engine_eq]);
    - [feasibleb_engine M rs xs = feasibleb M rs xs] ([feasibleb_engine_eq]): the usage is
      checked at the members' finishes only (between two finishes it only grows), not at every
      step up to the horizon.

    Every theorem about [svf], [sjf], [tel] and [feasibleb] therefore holds for the engine's
    functions.  Their cost depends on the number of requests n and the batch size k (at most
    n), not on the lengths: O(n log n) for the sorts, O(k) per check of a candidate start,
    at most [jump_fuel] jumps per request; [feasibleb_engine] is O(n^2).  Every recursion of
    the engine's functions is tail-recursive, except [forallb]'s (whose recursive call is the
    second operand of [&&], a tail call in OCaml). *)

From Coq Require Import Arith Lia List Bool Permutation Sorting.
From GeoSched Require Import Model Svf SvfFacts Sim SvfFast SjfFamily MergeSort SvfJump.
Import ListNotations.

(** ** Definitions *)

(** (position, request) pairs, last first (the sort restores the order). *)
Fixpoint enum_acc (k : nat) (rs : list req) (acc : list (nat * req)) : list (nat * req) :=
  match rs with
  | [] => acc
  | r :: rs' => enum_acc (S k) rs' ((k, r) :: acc)
  end.

(** (key, position) in lexicographic order: a total order, antisymmetric on distinct positions. *)
Definition lexb (key : nat * req -> nat) (a b : nat * req) : bool :=
  Nat.ltb (key a) (key b) || (Nat.eqb (key a) (key b) && Nat.leb (fst a) (fst b)).

Definition idxb (a b : (nat * req) * nat) : bool := Nat.leb (fst (fst a)) (fst (fst b)).

Fixpoint rev_map_acc {A B} (f : A -> B) (l : list A) (acc : list B) : list B :=
  match l with
  | [] => acc
  | a :: l' => rev_map_acc f l' (f a :: acc)
  end.

Definition map_tr {A B} (f : A -> B) (l : list A) : list B := rev_append (rev_map_acc f l []) [].

Definition engine_order (key : nat * req -> nat) (rs : list req) : list (nat * req) :=
  msort (lexb key) (enum_acc 0 rs []).

Definition engine_place (M : nat) (key : nat * req -> nat) (rs : list req) : list nat :=
  map_tr snd (msort idxb (place_jump M [] 0 (engine_order key rs) [])).

Definition svf_engine (M : nat) (rs : list req) : list nat := engine_place M vol_of rs.

Definition sjf_engine (M : nat) (rs : list req) : list nat :=
  engine_place M (fun a => output (snd a)) rs.

Fixpoint tel_acc (rs : list req) (xs : list nat) (acc : nat) : nat :=
  match rs, xs with
  | r :: rs', x :: xs' => tel_acc rs' xs' (acc + (x + output r))
  | _, _ => acc
  end.

Definition tel_engine (rs : list req) (xs : list nat) : nat := tel_acc rs xs 0.

(** [combine], last pair first. *)
Fixpoint zip_acc (rs : list req) (xs : list nat) (acc : list (req * nat)) : list (req * nat) :=
  match rs, xs with
  | r :: rs', x :: xs' => zip_acc rs' xs' ((r, x) :: acc)
  | _, _ => acc
  end.

Definition feasibleb_engine (M : nat) (rs : list req) (xs : list nat) : bool :=
  Nat.eqb (len_acc xs 0) (len_acc rs 0) &&
  (let js := zip_acc rs xs [] in forallb (fun e => Nat.leb (usage_acc js (finish e) 0) M) js).

Example svf_engine_paper : svf_engine 12 [(6, 3); (1, 5)] = [5; 0] := eq_refl.
Example svf_engine_ties : svf_engine 16 [(0, 8); (0, 8); (0, 8)] = [0; 0; 8] := eq_refl.

(** * Proofs *)

(** ** List tools *)

Lemma enum_acc_perm : forall rs k acc,
  Permutation (enum_acc k rs acc) (combine (seq k (length rs)) rs ++ acc).
Proof.
  induction rs as [|r rs IH]; intros k acc; simpl; [reflexivity|].
  eapply perm_trans; [apply IH|]. apply Permutation_sym, Permutation_middle.
Qed.

Lemma rev_map_acc_spec : forall {A B} (f : A -> B) l acc, rev_map_acc f l acc = rev (map f l) ++ acc.
Proof.
  intros A B f l. induction l as [|a l IH]; intros acc; simpl; auto.
  rewrite IH, <- app_assoc. reflexivity.
Qed.

Lemma map_tr_spec : forall {A B} (f : A -> B) l, map_tr f l = map f l.
Proof.
  intros. unfold map_tr. rewrite rev_map_acc_spec, app_nil_r, <- rev_alt, rev_involutive. auto.
Qed.

Lemma zip_acc_spec : forall rs xs acc, zip_acc rs xs acc = rev (combine rs xs) ++ acc.
Proof.
  induction rs as [|r rs IH]; intros [|x xs] acc; simpl; auto.
  rewrite IH, <- app_assoc. reflexivity.
Qed.

Lemma sorted_map : forall {A B} (R : A -> A -> Prop) (R' : B -> B -> Prop) (f : A -> B) l,
  (forall a b, R a b -> R' (f a) (f b)) -> StronglySorted R l -> StronglySorted R' (map f l).
Proof.
  intros A B R R' f l HR. induction l as [|a l IH]; intros H; simpl; [constructor|].
  apply StronglySorted_inv in H as [Hs Hf]. constructor; auto.
  apply Forall_map. eapply Forall_impl; [|exact Hf]. auto.
Qed.

Lemma seq_sorted : forall k n, StronglySorted lt (seq k n).
Proof.
  intros k n. revert k. induction n as [|n IH]; intros k; simpl; constructor; auto.
  apply Forall_forall. intros x Hx. apply in_seq in Hx. lia.
Qed.

(** ** The order *)

Fixpoint insert_by (key : nat * req -> nat) (a : nat * req) (l : list (nat * req)) : list (nat * req) :=
  match l with
  | [] => [a]
  | b :: l' => if Nat.leb (key a) (key b) then a :: l else b :: insert_by key a l'
  end.

Fixpoint isort_by (key : nat * req -> nat) (l : list (nat * req)) : list (nat * req) :=
  match l with
  | [] => []
  | a :: l' => insert_by key a (isort_by key l')
  end.

Lemma isort_v_by : forall l, isort_v l = isort_by vol_of l.
Proof.
  induction l as [|a l IH]; simpl; auto. rewrite IH. generalize (isort_by vol_of l).
  induction l0 as [|b l0 IH0]; simpl; auto. rewrite IH0. auto.
Qed.

Lemma isort_o_by : forall l, isort_o l = isort_by (fun a => output (snd a)) l.
Proof.
  induction l as [|a l IH]; simpl; auto. rewrite IH. generalize (isort_by (fun a => output (snd a)) l).
  induction l0 as [|b l0 IH0]; simpl; auto. rewrite IH0. auto.
Qed.

Lemma insert_by_perm : forall key a l, Permutation (insert_by key a l) (a :: l).
Proof. intros key. apply (insertion_perm (fun a b => Nat.leb (key a) (key b))); reflexivity. Qed.

Lemma isort_by_perm : forall key l, Permutation (isort_by key l) l.
Proof.
  intros key. apply (insertion_sort_perm (fun a b => Nat.leb (key a) (key b)) (insert_by key)); reflexivity.
Qed.

Definition lexR (key : nat * req -> nat) (a b : nat * req) : Prop := lexb key a b = true.

Lemma lexR_iff : forall key a b,
  lexR key a b <-> key a < key b \/ (key a = key b /\ fst a <= fst b).
Proof.
  intros key a b. unfold lexR, lexb. rewrite orb_true_iff, andb_true_iff, Nat.ltb_lt, Nat.eqb_eq, Nat.leb_le.
  tauto.
Qed.

Lemma lexb_total : forall key a b, lexb key a b = false -> lexb key b a = true.
Proof.
  intros key a b H. apply lexR_iff. destruct (lexb key a b) eqn:E; [discriminate|].
  assert (~ lexR key a b) by (unfold lexR; congruence). rewrite lexR_iff in H0. lia.
Qed.

Lemma lexb_trans : forall key a b c, lexb key a b = true -> lexb key b c = true -> lexb key a c = true.
Proof.
  intros key a b c H1 H2. apply lexR_iff. apply lexR_iff in H1. apply lexR_iff in H2. lia.
Qed.

Lemma insert_by_lex : forall key a l,
  StronglySorted (lexR key) l -> (forall b, In b l -> fst a < fst b) ->
  StronglySorted (lexR key) (insert_by key a l).
Proof.
  intros key a l. induction l as [|b l IH]; intros Hs Hp; simpl; [repeat constructor|].
  apply StronglySorted_inv in Hs as [Hs Hf]. rewrite Forall_forall in Hf.
  destruct (Nat.leb_spec (key a) (key b)).
  - constructor; [constructor; auto; rewrite Forall_forall; auto|].
    rewrite Forall_forall. intros c [<-|Hc]; apply lexR_iff.
    + specialize (Hp b (or_introl eq_refl)). lia.
    + specialize (Hf c Hc). apply lexR_iff in Hf. specialize (Hp c (or_intror Hc)). lia.
  - constructor; [apply IH; auto; intros; apply Hp; right; auto|]. rewrite Forall_forall. intros c Hc.
    apply (Permutation_in _ (insert_by_perm key a l)) in Hc. destruct Hc as [<-|Hc].
    + apply lexR_iff. lia.
    + apply Hf; auto.
Qed.

Lemma isort_by_lex : forall key l,
  StronglySorted (fun a b => fst a < fst b) l -> StronglySorted (lexR key) (isort_by key l).
Proof.
  intros key l. induction l as [|a l IH]; intros H; simpl; [constructor|].
  apply StronglySorted_inv in H as [Hs Hf]. rewrite Forall_forall in Hf.
  apply insert_by_lex; auto. intros b Hb. apply Hf.
  eapply Permutation_in; [apply isort_by_perm|exact Hb].
Qed.

Lemma combine_seq_sorted : forall rs k,
  StronglySorted (fun a b : nat * req => fst a < fst b) (combine (seq k (length rs)) rs).
Proof.
  induction rs as [|r rs IH]; intros k; simpl; constructor; auto.
  apply Forall_forall. intros [i q] H. apply in_combine_l, in_seq in H. cbn [fst]. lia.
Qed.

Lemma combine_seq_fst : forall rs k (a b : nat * req),
  In a (combine (seq k (length rs)) rs) -> In b (combine (seq k (length rs)) rs) -> fst a = fst b -> a = b.
Proof.
  induction rs as [|r rs IH]; intros k [i p] [j q] Ha Hb E; simpl in *; [contradiction|].
  subst j. destruct Ha as [Ha|Ha], Hb as [Hb|Hb].
  - congruence.
  - injection Ha as <- <-. apply in_combine_l, in_seq in Hb. lia.
  - injection Hb as <- <-. apply in_combine_l, in_seq in Ha. lia.
  - eapply IH; eauto.
Qed.

(** the engine's merge-sorted order by key equals the insertion-sorted order [isort_by] *)
Theorem engine_order_eq : forall key rs,
  engine_order key rs = isort_by key (combine (seq 0 (length rs)) rs).
Proof.
  intros key rs. unfold engine_order.
  set (l := combine (seq 0 (length rs)) rs).
  assert (Hp : Permutation (msort (lexb key) (enum_acc 0 rs [])) l).
  { eapply perm_trans; [apply msort_perm|]. eapply perm_trans; [apply enum_acc_perm|].
    rewrite app_nil_r. reflexivity. }
  apply (sorted_perm_unique (lexR key)).
  - intros a b Ha Hb H1 H2. apply (Permutation_in _ Hp) in Ha. apply (Permutation_in _ Hp) in Hb.
    apply (combine_seq_fst rs 0); auto. apply lexR_iff in H1. apply lexR_iff in H2. lia.
  - apply msort_sorted; [apply lexb_total|apply lexb_trans].
  - apply isort_by_lex, combine_seq_sorted.
  - eapply perm_trans; [exact Hp|]. apply Permutation_sym, isort_by_perm.
Qed.

(** ** Back to the instance order *)

Lemma idxb_total : forall a b, idxb a b = false -> idxb b a = true.
Proof. intros a b. unfold idxb. rewrite Nat.leb_gt, Nat.leb_le. lia. Qed.

Lemma idxb_trans : forall a b c, idxb a b = true -> idxb b c = true -> idxb a c = true.
Proof. intros a b c. unfold idxb. rewrite !Nat.leb_le. lia. Qed.

(** the engine's placement by jumps, sorted back by position, gives [place]'s starts in instance order *)
Theorem engine_restore : forall M ord rs,
  Permutation ord (combine (seq 0 (length rs)) rs) ->
  map_tr snd (msort idxb (place_jump M [] 0 ord [])) =
  map (fun i => lookup i (place M [] 0 ord)) (seq 0 (length rs)).
Proof.
  intros M ord rs Hord.
  rewrite (place_jump_eq M ord 0 [] []); [|split; auto|constructor|intros; contradiction].
  rewrite app_nil_r, map_tr_spec.
  set (P := place M [] 0 ord). set (S := msort idxb (rev P)).
  set (idx := fun e : (nat * req) * nat => fst (fst e)).
  assert (HPidx : Permutation (map idx P) (seq 0 (length rs))).
  { unfold idx, P. rewrite <- (map_map fst fst), place_fst.
    rewrite <- (map_fst_combine (seq 0 (length rs)) rs) at 1 by (rewrite seq_length; lia).
    apply Permutation_map, Hord. }
  assert (HSP : Permutation S P).
  { eapply perm_trans; [apply msort_perm|]. apply Permutation_sym, Permutation_rev. }
  assert (HSidx : map idx S = seq 0 (length rs)).
  { apply (sorted_perm_unique le).
    - intros a b _ _ H1 H2. lia.
    - apply (sorted_map (R _ idxb)); [intros a b H; apply Nat.leb_le, H|].
      apply msort_sorted; [apply idxb_total|apply idxb_trans].
    - rewrite <- (map_id (seq 0 (length rs))). apply (sorted_map lt le id); [intros; unfold id; lia|].
      apply seq_sorted.
    - eapply perm_trans; [apply Permutation_map, HSP|exact HPidx]. }
  assert (Hnd : NoDup (map idx P)) by (eapply Permutation_NoDup; [apply Permutation_sym, HPidx|apply seq_NoDup]).
  rewrite <- HSidx, map_map. apply map_ext_in. intros e He.
  symmetry. apply lookup_in; auto. eapply Permutation_in; [exact HSP|exact He].
Qed.

(** ** The engine's SVF and SJF *)

(** The engine under any key is [place] in the order sorted by that key, restored to the instance order. *)
Lemma engine_place_eq : forall M key rs, engine_place M key rs =
  map (fun i => lookup i (place M [] 0 (isort_by key (combine (seq 0 (length rs)) rs)))) (seq 0 (length rs)).
Proof.
  intros M key rs. unfold engine_place. rewrite engine_order_eq. apply engine_restore, isort_by_perm.
Qed.

(** the engine's SVF and SJF equal [svf] and [sjf] on every input *)
Theorem svf_engine_eq : forall M rs, svf_engine M rs = svf M rs.
Proof. intros M rs. unfold svf_engine. rewrite engine_place_eq, <- isort_v_by. reflexivity. Qed.

(** the engine's SVF and SJF equal [svf] and [sjf] on every input *)
Theorem sjf_engine_eq : forall M rs, sjf_engine M rs = sjf M rs.
Proof. intros M rs. unfold sjf_engine. rewrite engine_place_eq, <- isort_o_by. reflexivity. Qed.

(** ** TEL *)

Lemma tel_acc_spec : forall rs xs acc, tel_acc rs xs acc = acc + tel rs xs.
Proof.
  induction rs as [|r rs IH]; intros [|x xs] acc; simpl; try (unfold tel, tel_js; simpl; lia).
  rewrite IH. unfold tel, tel_js, finish. simpl. lia.
Qed.

(** the engine's TEL and feasibility check equal [tel] and [feasibleb] on every input *)
Theorem tel_engine_eq : forall rs xs, tel_engine rs xs = tel rs xs.
Proof. intros. unfold tel_engine. rewrite tel_acc_spec. lia. Qed.

(** ** Feasibility at the finishes *)

(** The usage only grows from t to t + 1 unless somebody finishes at t. *)
Lemma usage_step : forall js t, (forall e, In e js -> finish e <> t) -> usage_js js t <= usage_js js (S t).
Proof.
  intros js t H. unfold usage_js. apply sumf_le. intros e He. specialize (H e He).
  unfold req_usage, finish in *.
  destruct (Nat.ltb_spec (snd e) t), (Nat.leb_spec t (snd e + output (fst e))),
           (Nat.ltb_spec (snd e) (S t)), (Nat.leb_spec (S t) (snd e + output (fst e)));
    cbn [andb]; lia.
Qed.

Lemma usage_le_finishes : forall M js,
  (forall e, In e js -> usage_js js (finish e) <= M) -> forall t, usage_js js t <= M.
Proof.
  intros M js H.
  assert (Hd : forall d t, horizon_js js < t + d -> usage_js js t <= M).
  { induction d as [|d IH]; intros t Ht.
    - rewrite usage_js_after_horizon by lia. lia.
    - destruct (existsb (fun e => Nat.eqb (finish e) t) js) eqn:Ex.
      + apply existsb_exists in Ex as [e [He Hf]]. apply Nat.eqb_eq in Hf. rewrite <- Hf. auto.
      + pose proof (IH (S t) ltac:(lia)). assert (usage_js js t <= usage_js js (S t)); [|lia].
        apply usage_step. intros e He Hf. assert (existsb (fun e => Nat.eqb (finish e) t) js = true); [|congruence].
        apply existsb_exists. exists e. split; auto. apply Nat.eqb_eq; auto. }
  intros t. apply (Hd (S (horizon_js js))). lia.
Qed.

Lemma feasibleb_engine_correct : forall M rs xs, feasibleb_engine M rs xs = true <-> feasible M rs xs.
Proof.
  intros M rs xs. unfold feasibleb_engine, feasible, usage. rewrite andb_true_iff, Nat.eqb_eq, !len_acc_spec.
  rewrite forallb_forall, zip_acc_spec, app_nil_r.
  assert (Hu : forall t, usage_js (rev (combine rs xs)) t = usage_js (combine rs xs) t).
  { intros t. unfold usage_js. apply sumf_perm, Permutation_sym, Permutation_rev. }
  split; intros [Hl H]; split; try lia.
  - apply usage_le_finishes. intros e He. rewrite <- Hu.
    specialize (H e ltac:(apply in_rev; rewrite rev_involutive; auto)).
    rewrite usage_acc_spec in H. apply Nat.leb_le in H. lia.
  - intros e He. rewrite usage_acc_spec. apply Nat.leb_le. rewrite Hu. apply H.
Qed.

(** the engine's TEL and feasibility check equal [tel] and [feasibleb] on every input *)
Theorem feasibleb_engine_eq : forall M rs xs, feasibleb_engine M rs xs = feasibleb M rs xs.
Proof.
  intros M rs xs. destruct (feasibleb M rs xs) eqn:E.
  - apply feasibleb_engine_correct, feasibleb_correct, E.
  - destruct (feasibleb_engine M rs xs) eqn:E'; auto.
    apply feasibleb_engine_correct, feasibleb_correct in E'. congruence.
Qed.
