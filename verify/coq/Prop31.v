(** * Prop. 3.1 of Kong et al.: every feasible burst schedule has M * TEL >= sum_k P_k.

    P_k is the k-th prefix sum of the volumes sorted ascending.  We use the sort-free form
        sum_k P_k = sum_i v_i + sum_{i<j} min(v_i, v_j)  =: pairmin rs
    (in the sorted order the pair (i<j) contributes v_i to P_j, the diagonal v_i to P_i). *)

From Coq Require Import Arith Lia List Permutation Sorting.
From GeoSched Require Import Model Volume.
Import ListNotations.

Fixpoint pairmin (rs : list req) : nat :=
  match rs with
  | [] => 0
  | r :: rs' => volume r + sumf (fun q => Nat.min (volume r) (volume q)) rs' + pairmin rs'
  end.

Lemma pairmin_perm : forall rs1 rs2, Permutation rs1 rs2 -> pairmin rs1 = pairmin rs2.
Proof.
  intros rs1 rs2 H. induction H; simpl.
  - auto.
  - rewrite (sumf_perm _ _ _ H). lia.
  - rewrite Nat.min_comm. lia.
  - lia.
Qed.

(** ** Double sums over a list and the pairing lemma *)

Definition dsum {A} (f : A -> A -> nat) (l : list A) : nat :=
  sumf (fun a => sumf (fun b => f a b) l) l.

Lemma dsum_cons : forall {A} (f : A -> A -> nat) a l,
  dsum f (a :: l) = f a a + sumf (fun b => f a b + f b a) l + dsum f l.
Proof.
  intros A f a l. unfold dsum. simpl. rewrite sumf_add.
  rewrite (sumf_add (fun b => f a b) (fun b => f b a)). lia.
Qed.

(** If f covers each volume on the diagonal and each pair's minimum, dsum f >= pairmin. *)
Lemma pairmin_le_dsum : forall (f : req * nat -> req * nat -> nat) l,
  (forall a, In a l -> volume (fst a) <= f a a) ->
  (forall a b, In a l -> In b l -> Nat.min (volume (fst a)) (volume (fst b)) <= f a b + f b a) ->
  pairmin (map fst l) <= dsum f l.
Proof.
  intros f l. induction l as [|a l IH]; intros Hd Hp; simpl; [lia|].
  rewrite dsum_cons.
  assert (volume (fst a) <= f a a) by (apply Hd; left; auto).
  assert (pairmin (map fst l) <= dsum f l).
  { apply IH; [intros; apply Hd; right; auto | intros; apply Hp; right; auto]. }
  assert (sumf (fun q => Nat.min (volume (fst a)) (volume q)) (map fst l)
          <= sumf (fun b => f a b + f b a) l).
  { rewrite sumf_map. apply sumf_le. intros b Hb. apply Hp; [left; auto | right; auto]. }
  lia.
Qed.

(** ** The exchange step *)

Lemma usage_window : forall M (l : list (req * nat)) T,
  (forall t, usage_js l t <= M) ->
  sumf (fun b => mem_time (fst b) (snd b) T) l <= M * T.
Proof.
  intros M l T H. unfold mem_time.
  rewrite <- (sum_upto_sumf T (fun b t => req_usage (fst b) (snd b) (S t)) l).
  change (sum_upto T (fun t => usage_js l (S t)) <= M * T).
  rewrite Nat.mul_comm, <- sum_upto_const. apply sum_upto_le. intros; apply H.
Qed.

(** Everything that finishes by c runs inside [1, c]. *)
Lemma finished_by : forall M (l : list (req * nat)) c,
  (forall t, usage_js l t <= M) ->
  sumf (fun b => if Nat.leb (finish b) c then volume (fst b) else 0) l <= M * c.
Proof.
  intros M l c H. eapply Nat.le_trans; [|apply (usage_window M l c H)].
  apply sumf_le. intros b _. destruct (Nat.leb_spec (finish b) c); [|lia].
  rewrite <- (volume_is_memory_time (fst b) (snd b) c) by (unfold finish in *; lia).
  unfold mem_time. lia.
Qed.

Definition fin_le (a b : req * nat) : nat :=
  if Nat.leb (finish b) (finish a) then volume (fst b) else 0.

Lemma prop31_js : forall M (l : list (req * nat)),
  (forall t, usage_js l t <= M) -> pairmin (map fst l) <= M * tel_js l.
Proof.
  intros M l H. apply Nat.le_trans with (dsum fin_le l).
  - apply pairmin_le_dsum.
    + intros a _. unfold fin_le. rewrite Nat.leb_refl. lia.
    + intros a b _ _. unfold fin_le.
      destruct (Nat.leb_spec (finish b) (finish a)), (Nat.leb_spec (finish a) (finish b)); lia.
  - unfold dsum, tel_js. rewrite <- sumf_mul_l. apply sumf_le. intros a _.
    apply finished_by; auto.
Qed.

(** the same with [pairmin rs] *)
Theorem prop31_pairmin : forall M rs xs,
  feasible M rs xs -> pairmin rs <= M * tel rs xs.
Proof.
  intros M rs xs [Hl H]. unfold tel.
  rewrite <- (map_fst_combine rs xs) at 1 by lia. apply prop31_js. exact H.
Qed.

(** ** sum_k P_k with the sort: Q rs = pairmin rs *)

Fixpoint insert_r (r : req) (l : list req) : list req :=
  match l with
  | [] => [r]
  | q :: l' => if Nat.leb (volume r) (volume q) then r :: l else q :: insert_r r l'
  end.

Fixpoint sort_r (l : list req) : list req :=
  match l with
  | [] => []
  | r :: l' => insert_r r (sort_r l')
  end.

(** Sum of the prefix sums acc + v_1, acc + v_1 + v_2, ... *)
Fixpoint sum_prefix (acc : nat) (vs : list nat) : nat :=
  match vs with
  | [] => 0
  | v :: vs' => (acc + v) + sum_prefix (acc + v) vs'
  end.

(** Q rs = sum_k P_k, P_k the k-th prefix sum of the volumes sorted ascending. *)
Definition Q (rs : list req) : nat := sum_prefix 0 (map volume (sort_r rs)).

Lemma sum_prefix_acc : forall vs acc, sum_prefix acc vs = acc * length vs + sum_prefix 0 vs.
Proof.
  induction vs as [|v vs IH]; intros acc; simpl; [lia|].
  rewrite (IH (acc + v)), (IH v). nia.
Qed.

Definition rle (a b : req) : Prop := volume a <= volume b.

Lemma sort_r_perm : forall l, Permutation (sort_r l) l.
Proof. apply (insertion_sort_perm (fun a b => Nat.leb (volume a) (volume b)) insert_r); reflexivity. Qed.

Lemma sort_r_sorted : forall l, StronglySorted rle (sort_r l).
Proof. apply (key_sort_sorted volume insert_r); reflexivity. Qed.

Lemma pairmin_sorted : forall l,
  StronglySorted rle l -> pairmin l = sum_prefix 0 (map volume l).
Proof.
  induction l as [|r l IH]; intros Hs; simpl; auto.
  inversion Hs as [|? ? Hs' Hf]; subst. rewrite sum_prefix_acc, map_length, <- IH by auto.
  rewrite (sumf_ext _ (fun _ => volume r)).
  - assert (forall c (l : list req), sumf (fun _ => c) l = c * length l) as Hc
      by (intros c l0; induction l0; simpl; lia).
    rewrite Hc. lia.
  - intros q Hq. rewrite Forall_forall in Hf. specialize (Hf q Hq). unfold rle in Hf. lia.
Qed.

(** sum_k P_k of the sorted volumes ([Q]) = sum_i v_i + sum_{i<j} min(v_i, v_j) ([pairmin]) *)
Theorem Q_eq_pairmin : forall rs, Q rs = pairmin rs.
Proof.
  intros rs. unfold Q. rewrite <- pairmin_sorted by apply sort_r_sorted.
  apply pairmin_perm, sort_r_perm.
Qed.

(** every feasible burst schedule xs has Q rs <= M * tel rs xs (kong.prop3.1) *)
Theorem prop31_lower_bound : forall M rs xs,
  feasible M rs xs -> Q rs <= M * tel rs xs.
Proof. intros M rs xs H. rewrite Q_eq_pairmin. apply prop31_pairmin; auto. Qed.

(** The paper's instance: volumes 24 and 20, so sum_k P_k = 20 + 44 = 64. *)
Example Q_paper : Q [(6, 3); (1, 5)] = 64 := eq_refl.
