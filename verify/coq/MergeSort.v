(** * A merge sort for the extracted engine: tail-recursive merge, bottom-up passes.

    [msort leb l] sorts [l] by a total boolean order [leb] in O(n log n) comparisons, and
    every function it runs is tail-recursive (the extracted code's stack depth does not grow
    with the length of the list).  It is used only on lists where [leb] is antisymmetric
    (the engine sorts by (key, position) and by position, positions being distinct), so no
    stability is needed: [sorted_perm_unique] says that such a sorted permutation is unique,
    which is how SvfEngine.v proves it equal to the insertion sorts of Svf.v. *)

From Coq Require Import Arith Lia List Bool Permutation Sorting.
Import ListNotations.

Section Sort.

Variable A : Type.
Variable leb : A -> A -> bool.

(** ** Definitions *)

(** The textbook merge (for the proofs). *)
Fixpoint merge (l1 : list A) : list A -> list A :=
  match l1 with
  | [] => fun l2 => l2
  | a :: l1' =>
      fix inner (l2 : list A) : list A :=
        match l2 with
        | [] => l1
        | b :: l2' => if leb a b then a :: merge l1' l2 else b :: inner l2'
        end
  end.

(** The merge the engine runs: the output so far is kept reversed in [acc]. *)
Fixpoint merge_acc (l1 : list A) : list A -> list A -> list A :=
  match l1 with
  | [] => fun l2 acc => rev_append acc l2
  | a :: l1' =>
      fix inner (l2 acc : list A) : list A :=
        match l2 with
        | [] => rev_append acc l1
        | b :: l2' => if leb a b then merge_acc l1' l2 (a :: acc) else inner l2' (b :: acc)
        end
  end.

(** One pass: merge the runs two by two (the order of the runs is not kept). *)
Fixpoint merge_pass (ls acc : list (list A)) : list (list A) :=
  match ls with
  | l1 :: l2 :: rest => merge_pass rest (merge_acc l1 l2 [] :: acc)
  | [l] => l :: acc
  | [] => acc
  end.

(** Passes until one run is left.  [fuel] (a list as long as the input) is never exhausted
    (each pass halves the runs); if it were, the runs would be merged one by one, which is
    also a sorted permutation. *)
Fixpoint merge_all {B : Type} (fuel : list B) (ls : list (list A)) : list A :=
  match ls with
  | [] => []
  | [l] => l
  | _ =>
      match fuel with
      | [] => fold_left (fun acc l => merge_acc acc l []) ls []
      | _ :: fuel' => merge_all fuel' (merge_pass ls [])
      end
  end.

Fixpoint singletons (l : list A) (acc : list (list A)) : list (list A) :=
  match l with
  | [] => acc
  | a :: l' => singletons l' ([a] :: acc)
  end.

Definition msort (l : list A) : list A := merge_all l (singletons l []).

(** ** Permutation *)

Lemma merge_cons : forall a b l1 l2,
  merge (a :: l1) (b :: l2) = if leb a b then a :: merge l1 (b :: l2) else b :: merge (a :: l1) l2.
Proof. reflexivity. Qed.

Lemma merge_nil_r : forall l, merge l [] = l.
Proof. destruct l; reflexivity. Qed.

Lemma merge_acc_spec : forall l1 l2 acc, merge_acc l1 l2 acc = rev_append acc (merge l1 l2).
Proof.
  induction l1 as [|a l1 IH]; intros l2; [reflexivity|].
  induction l2 as [|b l2 IH2]; intros acc; [reflexivity|].
  rewrite merge_cons. cbn [merge_acc]. destruct (leb a b).
  - rewrite IH. reflexivity.
  - change ((fix inner (l0 acc0 : list A) {struct l0} : list A :=
              match l0 with
              | [] => rev_append acc0 (a :: l1)
              | b0 :: l2' => if leb a b0 then merge_acc l1 l0 (a :: acc0) else inner l2' (b0 :: acc0)
              end) l2 (b :: acc)) with (merge_acc (a :: l1) l2 (b :: acc)).
    rewrite IH2. reflexivity.
Qed.

Lemma merge_perm : forall l1 l2, Permutation (merge l1 l2) (l1 ++ l2).
Proof.
  induction l1 as [|a l1 IH]; intros l2; [reflexivity|].
  induction l2 as [|b l2 IH2]; [rewrite merge_nil_r, app_nil_r; reflexivity|].
  rewrite merge_cons. destruct (leb a b).
  - simpl. apply perm_skip, IH.
  - eapply perm_trans; [apply perm_skip, IH2|]. apply (Permutation_middle (a :: l1) l2 b).
Qed.

Lemma merge_acc_perm : forall l1 l2, Permutation (merge_acc l1 l2 []) (l1 ++ l2).
Proof. intros. rewrite merge_acc_spec. apply merge_perm. Qed.

Lemma merge_pass_perm : forall ls acc,
  Permutation (concat (merge_pass ls acc)) (concat ls ++ concat acc).
Proof.
  fix IH 1. intros [|l1 [|l2 rest]] acc; simpl.
  - reflexivity.
  - rewrite app_nil_r. reflexivity.
  - eapply perm_trans; [apply IH|]. simpl.
    eapply perm_trans; [apply Permutation_app_head, Permutation_app_tail, merge_acc_perm|].
    rewrite (app_assoc l1 l2 (concat rest)), app_assoc.
    apply Permutation_app_tail, Permutation_app_comm.
Qed.

Lemma fold_merge_perm : forall ls acc,
  Permutation (fold_left (fun acc l => merge_acc acc l []) ls acc) (acc ++ concat ls).
Proof.
  induction ls as [|l ls IH]; intros acc; simpl; [rewrite app_nil_r; reflexivity|].
  eapply perm_trans; [apply IH|]. rewrite app_assoc. apply Permutation_app_tail, merge_acc_perm.
Qed.

Lemma merge_all_perm : forall {B} (fuel : list B) ls, Permutation (merge_all fuel ls) (concat ls).
Proof.
  induction fuel as [|f fuel IH]; intros ls; destruct ls as [|l1 [|l2 rest]];
    try (simpl; rewrite ?app_nil_r; reflexivity).
  - apply fold_merge_perm.
  - cbn [merge_all]. eapply perm_trans; [apply IH|].
    eapply perm_trans; [apply merge_pass_perm|]. simpl. rewrite !app_nil_r. reflexivity.
Qed.

Lemma singletons_perm : forall l acc, Permutation (concat (singletons l acc)) (l ++ concat acc).
Proof.
  induction l as [|a l IH]; intros acc; simpl; [reflexivity|].
  eapply perm_trans; [apply IH|]. simpl. apply Permutation_sym, Permutation_middle.
Qed.

(** the tail-recursive merge sort returns a sorted permutation (for a total, transitive order) *)
Theorem msort_perm : forall l, Permutation (msort l) l.
Proof.
  intros l. unfold msort. eapply perm_trans; [apply merge_all_perm|].
  eapply perm_trans; [apply singletons_perm|]. simpl. rewrite app_nil_r. reflexivity.
Qed.

(** ** Sortedness, for a total and transitive order *)

Definition R (a b : A) : Prop := leb a b = true.

Hypothesis leb_total : forall a b, leb a b = false -> leb b a = true.
Hypothesis leb_trans : forall a b c, leb a b = true -> leb b c = true -> leb a c = true.

Lemma merge_sorted : forall l1 l2,
  StronglySorted R l1 -> StronglySorted R l2 -> StronglySorted R (merge l1 l2).
Proof.
  induction l1 as [|a l1 IH]; intros l2 H1; [auto|].
  induction l2 as [|b l2 IH2]; intros H2; [rewrite merge_nil_r; auto|].
  apply StronglySorted_inv in H1 as [S1 F1]. pose proof H2 as H2'.
  apply StronglySorted_inv in H2' as [S2 F2].
  rewrite merge_cons. destruct (leb a b) eqn:E.
  - constructor; [apply IH; auto|].
    eapply Permutation_Forall; [apply Permutation_sym, merge_perm|].
    apply Forall_app. split; auto. constructor; [exact E|].
    eapply Forall_impl; [|exact F2]. intros c Hc. eapply leb_trans; eauto.
  - assert (Hba : R b a) by (apply leb_total; auto).
    constructor; [apply IH2; auto; constructor; auto|].
    eapply Permutation_Forall; [apply Permutation_sym, merge_perm|].
    apply Forall_app. split; auto. constructor; [exact Hba|].
    eapply Forall_impl; [|exact F1]. intros c Hc. eapply leb_trans; eauto.
Qed.

Lemma merge_acc_sorted : forall l1 l2,
  StronglySorted R l1 -> StronglySorted R l2 -> StronglySorted R (merge_acc l1 l2 []).
Proof. intros. rewrite merge_acc_spec. apply merge_sorted; auto. Qed.

Lemma merge_pass_sorted : forall ls acc,
  Forall (StronglySorted R) ls -> Forall (StronglySorted R) acc ->
  Forall (StronglySorted R) (merge_pass ls acc).
Proof.
  fix IH 1. intros [|l1 [|l2 rest]] acc Hls Hacc; simpl; auto.
  - inversion Hls; subst. constructor; auto.
  - inversion Hls as [|? ? H1 Hls']; subst. inversion Hls' as [|? ? H2 Hrest]; subst.
    apply IH; auto. constructor; auto. apply merge_acc_sorted; auto.
Qed.

Lemma fold_merge_sorted : forall ls acc,
  Forall (StronglySorted R) ls -> StronglySorted R acc ->
  StronglySorted R (fold_left (fun acc l => merge_acc acc l []) ls acc).
Proof.
  induction ls as [|l ls IH]; intros acc Hls Hacc; simpl; auto.
  inversion Hls; subst. apply IH; auto. apply merge_acc_sorted; auto.
Qed.

Lemma merge_all_sorted : forall {B} (fuel : list B) ls,
  Forall (StronglySorted R) ls -> StronglySorted R (merge_all fuel ls).
Proof.
  induction fuel as [|f fuel IH]; intros ls Hls; destruct ls as [|l1 [|l2 rest]];
    try (simpl; constructor); try (inversion Hls; auto; fail).
  - apply fold_merge_sorted; auto. constructor.
  - cbn [merge_all]. apply IH. apply merge_pass_sorted; auto.
Qed.

Lemma singletons_sorted : forall l acc,
  Forall (StronglySorted R) acc -> Forall (StronglySorted R) (singletons l acc).
Proof.
  induction l as [|a l IH]; intros acc H; simpl; auto.
  apply IH. constructor; auto. repeat constructor.
Qed.

(** the tail-recursive merge sort returns a sorted permutation (for a total, transitive order) *)
Theorem msort_sorted : forall l, StronglySorted R (msort l).
Proof. intros l. apply merge_all_sorted, singletons_sorted. constructor. Qed.

End Sort.

Arguments msort {A} leb l.
Arguments merge_acc {A} leb l1 _ _.

(** ** A sorted permutation is unique when the order is antisymmetric on its elements *)

(** two sorted permutations of a list are equal when the order is antisymmetric on its elements *)
Theorem sorted_perm_unique : forall {A} (R : A -> A -> Prop) l1 l2,
  (forall a b, In a l1 -> In b l1 -> R a b -> R b a -> a = b) ->
  StronglySorted R l1 -> StronglySorted R l2 -> Permutation l1 l2 -> l1 = l2.
Proof.
  intros A R l1. induction l1 as [|a l1 IH]; intros l2 Hanti H1 H2 Hp.
  - apply Permutation_nil in Hp. auto.
  - destruct l2 as [|b l2]; [apply Permutation_sym, Permutation_nil in Hp; discriminate|].
    apply StronglySorted_inv in H1 as [S1 F1]. apply StronglySorted_inv in H2 as [S2 F2].
    assert (Hab : a = b).
    { assert (Ha : In a (b :: l2)) by (eapply Permutation_in; [exact Hp|left; auto]).
      assert (Hb : In b (a :: l1)) by (eapply Permutation_in; [apply Permutation_sym, Hp|left; auto]).
      destruct Ha as [->|Ha]; auto. destruct Hb as [->|Hb]; auto.
      apply Hanti; [left; auto|right; auto| |].
      - rewrite Forall_forall in F1. apply F1, Hb.
      - rewrite Forall_forall in F2. apply F2, Ha. }
    subst b. f_equal. apply IH; auto.
    + intros x y Hx Hy. apply Hanti; right; auto.
    + eapply Permutation_cons_inv; eauto.
Qed.
