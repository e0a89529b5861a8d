(** * The exact growing-memory model of Kong et al. (arXiv 2606.22327, Sec. 2), over nat.

    A request is a pair (prompt s, output o).  Started at step x, it holds
    s + (t - x) units of KV memory at every step t with x < t <= x + o,
    and nothing otherwise.  Burst instances: every request arrives at 0. *)

From Coq Require Import Arith Lia List Bool Permutation Sorted.
Import ListNotations.

(** ** Generic finite sums *)

(** [sumf f l] = sum of [f a] over the list [l]. *)
Fixpoint sumf {A : Type} (f : A -> nat) (l : list A) : nat :=
  match l with
  | [] => 0
  | a :: l' => f a + sumf f l'
  end.

(** [sum_upto n f] = f 0 + ... + f (n - 1). *)
Fixpoint sum_upto (n : nat) (f : nat -> nat) : nat :=
  match n with
  | 0 => 0
  | S n' => sum_upto n' f + f n'
  end.

(** ** Requests *)

Definition req : Type := (nat * nat)%type.
Definition prompt (r : req) : nat := fst r.
Definition output (r : req) : nat := snd r.
Definition peak (r : req) : nat := prompt r + output r.
Definition volume (r : req) : nat :=
  prompt r * output r + (output r * output r + output r) / 2.
(** Twice the volume, division-free. *)
Definition volume2 (r : req) : nat :=
  2 * prompt r * output r + output r * output r + output r.

Lemma oo_even : forall o, exists k, o * o + o = 2 * k.
Proof.
  induction o as [|o [k Hk]].
  - exists 0; reflexivity.
  - exists (k + o + 1); nia.
Qed.

(** twice the volume, computed without division: [volume2 r = 2 * volume r] *)
Theorem volume2_eq : forall r, volume2 r = 2 * volume r.
Proof.
  intros r. unfold volume2, volume.
  destruct (oo_even (output r)) as [k Hk]. rewrite Hk.
  rewrite (Nat.mul_comm 2 k), Nat.div_mul by lia. lia.
Qed.

(** ** Usage *)

(** Memory held by request [r], started at [x], at step [t]. *)
Definition req_usage (r : req) (x t : nat) : nat :=
  if Nat.ltb x t && Nat.leb t (x + output r)
  then prompt r + (t - x) (* MUT: growth *)
  else 0.

(** A schedule as a list of (request, start) pairs. *)
Definition usage_js (js : list (req * nat)) (t : nat) : nat :=
  sumf (fun e => req_usage (fst e) (snd e) t) js.

Definition finish (e : req * nat) : nat := snd e + output (fst e). (* MUT: tel *)

Definition tel_js (js : list (req * nat)) : nat := sumf finish js.

(** Instance-order versions: [xs] is aligned with [rs]. *)
Definition usage (rs : list req) (xs : list nat) (t : nat) : nat :=
  usage_js (combine rs xs) t.

Definition feasible (M : nat) (rs : list req) (xs : list nat) : Prop :=
  length xs = length rs /\ forall t, usage rs xs t <= M.

(** Total end-to-end latency of a burst: sum of the finishing steps x_i + o_i. *)
Definition tel (rs : list req) (xs : list nat) : nat := tel_js (combine rs xs).

(** [tel [] [] = 0] and [tel ((s, o) :: rs) (x :: xs) = x + o + tel rs xs]: TEL is the sum of the finishing
    steps (a TEL shifted per request breaks this theorem, not only an [Example]) *)
Theorem tel_finish_times : tel [] [] = 0 /\
  forall s o x rs xs, tel ((s, o) :: rs) (x :: xs) = x + o + tel rs xs.
Proof. split; [reflexivity | intros; reflexivity]. Qed.

(** Request [e] is active (running, holding memory at step t + 1) at step [t]. *)
Definition activeb (e : req * nat) (t : nat) : bool :=
  Nat.leb (snd e) t && Nat.ltb t (finish e).

(** Sum of the peaks of the requests active at step [t]. *)
Definition active_peaks_js (js : list (req * nat)) (t : nat) : nat :=
  sumf (fun e => if activeb e t then peak (fst e) else 0) js.

Definition active_peaks (rs : list req) (xs : list nat) (t : nat) : nat :=
  active_peaks_js (combine rs xs) t.

(** ** A boolean feasibility checker *)

Definition horizon_js (js : list (req * nat)) : nat :=
  fold_right (fun e acc => Nat.max (finish e) acc) 0 js.

Definition feasibleb (M : nat) (rs : list req) (xs : list nat) : bool :=
  Nat.eqb (length xs) (length rs) &&
  forallb (fun t => Nat.leb (usage rs xs t) M) (seq 1 (horizon_js (combine rs xs))).

(** ** Basic lemmas about sums *)

Lemma sumf_ext : forall {A} (f g : A -> nat) l,
  (forall a, In a l -> f a = g a) -> sumf f l = sumf g l.
Proof.
  intros A f g l H. induction l as [|a l IH]; simpl; auto.
  rewrite H by (left; auto). rewrite IH; auto. intros b Hb; apply H; right; auto.
Qed.

Lemma sumf_le : forall {A} (f g : A -> nat) l,
  (forall a, In a l -> f a <= g a) -> sumf f l <= sumf g l.
Proof.
  intros A f g l H. induction l as [|a l IH]; simpl; auto.
  assert (f a <= g a) by (apply H; left; auto).
  assert (sumf f l <= sumf g l) by (apply IH; intros b Hb; apply H; right; auto). lia.
Qed.

Lemma sumf_add : forall {A} (f g : A -> nat) l,
  sumf (fun a => f a + g a) l = sumf f l + sumf g l.
Proof. intros A f g l. induction l; simpl; lia. Qed.

Lemma sumf_mul_l : forall {A} c (f : A -> nat) l,
  sumf (fun a => c * f a) l = c * sumf f l.
Proof. intros A c f l. induction l; simpl; nia. Qed.

Lemma sumf_zero : forall {A} (f : A -> nat) l,
  (forall a, In a l -> f a = 0) -> sumf f l = 0.
Proof.
  intros A f l H. induction l as [|a l IH]; simpl; auto.
  rewrite H by (left; auto). rewrite IH; auto. intros b Hb; apply H; right; auto.
Qed.

Lemma sumf_app : forall {A} (f : A -> nat) l1 l2,
  sumf f (l1 ++ l2) = sumf f l1 + sumf f l2.
Proof. intros A f l1 l2. induction l1; simpl; lia. Qed.

Lemma sumf_map : forall {A B} (f : B -> nat) (g : A -> B) l,
  sumf f (map g l) = sumf (fun a => f (g a)) l.
Proof. intros A B f g l. induction l; simpl; auto. Qed.

Lemma sumf_perm : forall {A} (f : A -> nat) l1 l2,
  Permutation.Permutation l1 l2 -> sumf f l1 = sumf f l2.
Proof.
  intros A f l1 l2 H. induction H; simpl; lia.
Qed.

Lemma sum_upto_ext : forall n f g,
  (forall t, t < n -> f t = g t) -> sum_upto n f = sum_upto n g.
Proof.
  induction n; intros f g H; simpl; auto.
  rewrite (IHn f g) by (intros; apply H; lia). rewrite H by lia. auto.
Qed.

Lemma sum_upto_le : forall n f g,
  (forall t, t < n -> f t <= g t) -> sum_upto n f <= sum_upto n g.
Proof.
  induction n; intros f g H; simpl; auto.
  specialize (IHn f g (fun t Ht => H t ltac:(lia))). specialize (H n ltac:(lia)). lia.
Qed.

Lemma sum_upto_const : forall n c, sum_upto n (fun _ => c) = n * c.
Proof. induction n; intros; simpl; [auto|rewrite IHn; lia]. Qed.

Lemma sum_upto_mul : forall n c f, sum_upto n (fun t => c * f t) = c * sum_upto n f.
Proof. induction n; intros; simpl; [lia|rewrite IHn; lia]. Qed.

(** Exchange of a finite sum over steps with a sum over a list. *)
Lemma sum_upto_sumf : forall {A} n (g : A -> nat -> nat) l,
  sum_upto n (fun t => sumf (fun a => g a t) l) = sumf (fun a => sum_upto n (g a)) l.
Proof.
  intros A n g l. induction n; simpl.
  - rewrite sumf_zero; auto.
  - rewrite IHn. rewrite <- sumf_add. apply sumf_ext. intros; reflexivity.
Qed.

(** [combine] stops at the shorter list: one induction gives both projections. *)
Lemma map_combine_firstn : forall {A B} (l1 : list A) (l2 : list B),
  map fst (combine l1 l2) = firstn (length l2) l1 /\ map snd (combine l1 l2) = firstn (length l1) l2.
Proof.
  intros A B l1. induction l1 as [|a l1 IH]; intros [|b l2]; simpl; auto.
  destruct (IH l2) as [-> ->]. auto.
Qed.

Lemma map_fst_combine : forall {A B} (l1 : list A) (l2 : list B),
  length l1 <= length l2 -> map fst (combine l1 l2) = l1.
Proof. intros A B l1 l2 H. rewrite (proj1 (map_combine_firstn l1 l2)). apply firstn_all2. lia. Qed.

Lemma map_snd_combine : forall {A B} (l1 : list A) (l2 : list B),
  length l2 <= length l1 -> map snd (combine l1 l2) = l2.
Proof. intros A B l1 l2 H. rewrite (proj2 (map_combine_firstn l1 l2)). apply firstn_all2. lia. Qed.

(** ** Insertion sorts

    The development's insertion sorts ([insert_dec], [insert_key], [insert_fin], [insert_e], ...) insert
    [a] before the first [b] for which a boolean test [c a b] holds.  That such an insertion permutes, and
    keeps a list sorted by a transitive [R] that [c] decides, is proved here once, for every function with
    those two equations (each sort gives them by [reflexivity]). *)
Section Insertion.
  Context {A : Type} (c : A -> A -> bool) (ins : A -> list A -> list A).
  Hypothesis ins_nil : forall a, ins a [] = [a].
  Hypothesis ins_cons : forall a b l, ins a (b :: l) = if c a b then a :: b :: l else b :: ins a l.

  Lemma insertion_perm : forall a l, Permutation (ins a l) (a :: l).
  Proof.
    intros a l. induction l as [|b l IH]; rewrite ?ins_nil, ?ins_cons; auto.
    destruct (c a b); auto. eapply perm_trans; [apply perm_skip, IH|apply perm_swap].
  Qed.

  Variable R : A -> A -> Prop.
  Hypothesis c_true : forall a b, c a b = true -> R a b.
  Hypothesis c_false : forall a b, c a b = false -> R b a.
  Hypothesis R_trans : forall a b d, R a b -> R b d -> R a d.

  Lemma insertion_sorted : forall a l, StronglySorted R l -> StronglySorted R (ins a l).
  Proof.
    intros a l. induction l as [|b l IH]; intros H; rewrite ?ins_nil, ?ins_cons.
    - repeat constructor.
    - inversion H as [|? ? Hs Hf]; subst. destruct (c a b) eqn:E.
      + constructor; auto. constructor; [apply c_true; auto|].
        eapply Forall_impl; [|exact Hf]. intros z Hz. eapply R_trans; [apply c_true, E|exact Hz].
      + constructor; [apply IH; auto|]. apply Forall_forall. intros z Hz.
        apply (Permutation_in _ (insertion_perm a l)) in Hz. destruct Hz as [<-|Hz].
        * apply c_false; auto.
        * rewrite Forall_forall in Hf. apply Hf; auto.
  Qed.

  (** The sort that inserts every element, from the last, into the sorted rest. *)
  Variable sort : list A -> list A.
  Hypothesis sort_nil : sort [] = [].
  Hypothesis sort_cons : forall a l, sort (a :: l) = ins a (sort l).

  Lemma insertion_sort_perm : forall l, Permutation (sort l) l.
  Proof.
    induction l as [|a l IH]; rewrite ?sort_nil, ?sort_cons; auto.
    eapply perm_trans; [apply insertion_perm|apply perm_skip, IH].
  Qed.

  Lemma insertion_sort_sorted : forall l, StronglySorted R (sort l).
  Proof.
    induction l as [|a l IH]; rewrite ?sort_nil, ?sort_cons; [constructor|apply insertion_sorted, IH].
  Qed.
End Insertion.

(** The common case: ascending by a [nat] key compared with [Nat.leb] (equal keys keep their order). *)
Lemma key_sort_sorted : forall {A} (key : A -> nat) ins sort,
  (forall a, ins a [] = [a]) ->
  (forall a b l, ins a (b :: l) = if Nat.leb (key a) (key b) then a :: b :: l else b :: ins a l) ->
  sort [] = [] -> (forall a l, sort (a :: l) = ins a (sort l)) ->
  forall l, StronglySorted (fun a b => key a <= key b) (sort l).
Proof.
  intros A key ins sort Hn Hc Sn Sc. apply (insertion_sort_sorted (fun a b => Nat.leb (key a) (key b)) ins); auto;
    intros a b; [intros E; apply Nat.leb_le in E|intros E; apply Nat.leb_gt in E|intros d]; lia.
Qed.

(** ** The checker is correct *)

Lemma req_usage_zero_before : forall r x t, t <= x -> req_usage r x t = 0.
Proof.
  intros r x t H. unfold req_usage.
  destruct (Nat.ltb_spec x t); simpl; auto; lia.
Qed.

Lemma req_usage_zero_after : forall r x t, x + output r < t -> req_usage r x t = 0.
Proof.
  intros r x t H. unfold req_usage.
  destruct (Nat.leb_spec t (x + output r)); rewrite ?andb_false_r; simpl; auto; lia.
Qed.

Lemma horizon_ge : forall js e, In e js -> finish e <= horizon_js js.
Proof.
  induction js as [|a js IH]; intros e H; simpl in *; [contradiction|].
  destruct H as [->|H]; [lia|]. specialize (IH e H). lia.
Qed.

Lemma usage_js_after_horizon : forall js t, horizon_js js < t -> usage_js js t = 0.
Proof.
  intros js t H. unfold usage_js. apply sumf_zero. intros e He.
  apply req_usage_zero_after. pose proof (horizon_ge js e He). unfold finish in *. lia.
Qed.

Lemma usage_js_zero : forall js, usage_js js 0 = 0.
Proof.
  intros js. unfold usage_js. apply sumf_zero. intros e _. apply req_usage_zero_before. lia.
Qed.

(** the boolean checker is true exactly on feasible schedules: [feasibleb M rs xs = true <-> feasible M rs xs]
    *)
Theorem feasibleb_correct : forall M rs xs, feasibleb M rs xs = true <-> feasible M rs xs.
Proof.
  intros M rs xs. unfold feasibleb, feasible. rewrite andb_true_iff, Nat.eqb_eq, forallb_forall.
  split; intros [Hl H]; split; auto.
  - intros t. unfold usage in *.
    destruct (Nat.eq_dec t 0) as [->|Ht0]; [rewrite usage_js_zero; lia|].
    destruct (Nat.le_gt_cases t (horizon_js (combine rs xs))) as [Ht|Ht].
    + apply Nat.leb_le, H, in_seq. lia.
    + rewrite usage_js_after_horizon by lia. lia.
  - intros t _. apply Nat.leb_le, H.
Qed.
