(** * Chebyshev's sum inequality, weighted, for every n, over every commutative ordered ring.

    For a list of entries (w, a, b) with weights w >= 0 whose a and b are similarly ordered
    ((a_i - a_j)(b_i - b_j) >= 0 for every two entries):

        (sum w a) (sum w b) <= (sum w) (sum w a b)          [chebyshev_sum]

    and, with a <= c and b >= 0 entrywise,

        (sum w a) (sum w b) <= (sum w) (sum w c b)          [chebyshev_dominated]

    The carrier is any commutative ring with a relation [le] that is translation-invariant
    ([x <= y] iff [0 <= y - x]) and whose nonnegative elements are closed under + and *: the
    reals are one (the row svf.poisson applies it to real class shares and wait bounds), and
    stating it for all of them keeps the theorem closed (Coq's own reals would bring their
    axioms). The row svf.poisson applies it with w = the class shares, a = a minorant of the
    work p o that is non-decreasing in the queue order, b = the per-class wait bounds of Cobham's
    recursion (non-decreasing in the queue order) and c = p o. Similarly ordered is the weakest
    hypothesis: ties in b (a priority level of several types) leave a free inside the level. *)

From Coq Require Import List Ring.
Import ListNotations.

Section Chebyshev.

Variable K : Type.
Variables (zero one : K) (add mul sub : K -> K -> K) (opp : K -> K) (le : K -> K -> Prop).
Hypothesis Kring : ring_theory zero one add mul sub opp (@eq K).
Add Ring KRing : Kring.
Hypothesis le_sub : forall x y, le x y <-> le zero (sub y x).
Hypothesis nonneg_zero : le zero zero.
Hypothesis nonneg_add : forall x y, le zero x -> le zero y -> le zero (add x y).
Hypothesis nonneg_mul : forall x y, le zero x -> le zero y -> le zero (mul x y).

Local Notation "x + y" := (add x y).
Local Notation "x * y" := (mul x y).
Local Notation "x - y" := (sub x y).

(** ** Entries and sums *)

(** An entry: (weight, a, b). *)
Definition ew (e : K * K * K) : K := fst (fst e).
Definition ea (e : K * K * K) : K := snd (fst e).
Definition eb (e : K * K * K) : K := snd e.

(** [ksum f l] = sum of [f e] over the list [l]. *)
Fixpoint ksum (f : K * K * K -> K) (l : list (K * K * K)) : K :=
  match l with
  | [] => zero
  | e :: l' => f e + ksum f l'
  end.

(** Two entries are similarly ordered: their a and b differ in the same direction. *)
Definition similar (x y : K * K * K) : Prop := le zero ((ea x - ea y) * (eb x - eb y)).

Lemma nonneg_eq : forall x y, x = y -> le zero x -> le zero y.
Proof. intros x y -> H; exact H. Qed.

(** ** The cross term of one entry against the others *)

Lemma cross_eq : forall x l,
  ksum (fun e => ew e * ((ea e - ea x) * (eb e - eb x))) l =
  ksum (fun e => ew e * ea e * eb e) l - ea x * ksum (fun e => ew e * eb e) l
  - eb x * ksum (fun e => ew e * ea e) l + ea x * eb x * ksum ew l.
Proof. intros x l. induction l as [|e l IH]; simpl; [ring|rewrite IH; ring]. Qed.

Lemma cross_nonneg : forall x l,
  Forall (fun e => le zero (ew e)) l -> Forall (similar x) l ->
  le zero (ksum (fun e => ew e * ((ea e - ea x) * (eb e - eb x))) l).
Proof.
  intros x l Hw Hs. induction l as [|e l IH]; simpl; [exact nonneg_zero|].
  inversion Hw as [|? ? Hwe Hwl]; inversion Hs as [|? ? Hse Hsl]; subst.
  apply nonneg_add; [|apply IH; auto].
  apply nonneg_mul; auto. unfold similar in Hse.
  apply (nonneg_eq _ _ (ltac:(ring) : (ea x - ea e) * (eb x - eb e) = (ea e - ea x) * (eb e - eb x))). exact Hse.
Qed.

Lemma ksum_nonneg : forall f l, Forall (fun e => le zero (f e)) l -> le zero (ksum f l).
Proof.
  intros f l H. induction l as [|e l IH]; simpl; [exact nonneg_zero|].
  inversion H; subst. apply nonneg_add; auto.
Qed.

Lemma ksum_sub : forall f g l, ksum g l - ksum f l = ksum (fun e => g e - f e) l.
Proof. intros f g l. induction l as [|e l IH]; simpl; [ring|rewrite <- IH; ring]. Qed.

(** ** The theorems *)

(** Chebyshev's sum inequality with nonnegative weights, for every list of similarly ordered entries. *)
Theorem chebyshev_sum : forall l : list (K * K * K),
  Forall (fun e => le zero (ew e)) l -> ForallOrdPairs similar l ->
  le (ksum (fun e => ew e * ea e) l * ksum (fun e => ew e * eb e) l)
     (ksum ew l * ksum (fun e => ew e * ea e * eb e) l).
Proof.
  intros l Hw Hs. apply le_sub. induction l as [|x l IH]; simpl.
  - apply (nonneg_eq zero); [ring|exact nonneg_zero].
  - inversion Hw as [|? ? Hwx Hwl]; inversion Hs as [|? ? Hsx Hsl]; subst.
    pose proof (IH Hwl Hsl) as Hih.
    pose proof (cross_nonneg x l Hwl Hsx) as Hc. rewrite cross_eq in Hc.
    pose proof (nonneg_add _ _ Hih (nonneg_mul _ _ Hwx Hc)) as Hsum.
    revert Hsum. apply nonneg_eq. ring.
Qed.

(** The same with a dominated by c entrywise and b nonnegative: with weights summing to 1,
    E[a] E_w[b] <= E_w[c b]. *)
Theorem chebyshev_dominated : forall (l : list (K * K * K)) (c : K * K * K -> K),
  Forall (fun e => le zero (ew e)) l -> ForallOrdPairs similar l ->
  Forall (fun e => le (ea e) (c e) /\ le zero (eb e)) l ->
  le (ksum (fun e => ew e * ea e) l * ksum (fun e => ew e * eb e) l)
     (ksum ew l * ksum (fun e => ew e * c e * eb e) l).
Proof.
  intros l c Hw Hs Hc. pose proof (chebyshev_sum l Hw Hs) as Hcheb. apply le_sub in Hcheb.
  assert (Hdom : le zero (ksum ew l * (ksum (fun e => ew e * c e * eb e) l - ksum (fun e => ew e * ea e * eb e) l))).
  { apply nonneg_mul; [apply ksum_nonneg; auto|]. rewrite ksum_sub. apply ksum_nonneg; auto.
    apply Forall_forall. intros e He. rewrite Forall_forall in Hw, Hc. destruct (Hc e He) as [Hac Hb].
    apply le_sub in Hac. pose proof (nonneg_mul _ _ (nonneg_mul _ _ (Hw e He) Hac) Hb) as H.
    revert H. apply nonneg_eq. ring. }
  apply le_sub. pose proof (nonneg_add _ _ Hcheb Hdom) as H. revert H. apply nonneg_eq. ring.
Qed.

End Chebyshev.
