(** * A faster SVF for extraction, proved equal to [svf].

    [place] keeps every placed request in the list the forward check sums over.  A request
    that finished by the current lower bound [lo] holds no memory at any step the check
    looks at (all > lo), so [place_fast] drops those first.  The check then sums over the
    running batch instead of every earlier request.  [svf_fast_eq]: svf_fast M rs = svf M rs. *)

From Coq Require Import Arith Lia List Bool Permutation.
From GeoSched Require Import Model Svf SvfFacts.
Import ListNotations.

Definition prune (lo : nat) (pl : list (req * nat)) : list (req * nat) :=
  filter (fun e => Nat.ltb lo (finish e)) pl.

Fixpoint place_fast (M : nat) (pl : list (req * nat)) (lo : nat) (todo : list (nat * req))
  : list ((nat * req) * nat) :=
  match todo with
  | [] => []
  | a :: rest =>
      let pl' := prune lo pl in
      let x := find_start M pl' (snd a) lo (horizon_js pl' - lo) in
      (a, x) :: place_fast M ((snd a, x) :: pl') x rest
  end.

Definition svf_fast (M : nat) (rs : list req) : list nat :=
  let pl := place_fast M [] 0 (svf_order rs) in
  map (fun i => lookup i pl) (seq 0 (length rs)).

(** Two lists of placed requests that look the same to every check made at a step >= lo. *)
Definition agree (lo : nat) (pl1 pl2 : list (req * nat)) : Prop :=
  (forall t, lo < t -> usage_js pl1 t = usage_js pl2 t) /\
  (horizon_js pl1 = horizon_js pl2 \/ (horizon_js pl1 <= lo /\ horizon_js pl2 <= lo)).

Lemma horizon_attained : forall pl, pl = [] \/ exists e, In e pl /\ finish e = horizon_js pl.
Proof.
  induction pl as [|a pl IH]; [left; auto|right]. simpl.
  destruct (Nat.le_gt_cases (horizon_js pl) (finish a)).
  - exists a. split; [left; auto|lia].
  - destruct IH as [->|[e [He Hf]]]; [simpl in *; lia|].
    exists e. split; [right; auto|lia].
Qed.

Lemma horizon_cons' : forall e pl, horizon_js (e :: pl) = Nat.max (finish e) (horizon_js pl).
Proof. reflexivity. Qed.

Lemma horizon_le_all : forall pl h, (forall e, In e pl -> finish e <= h) -> horizon_js pl <= h.
Proof.
  induction pl as [|a pl IH]; intros h H; simpl; [lia|].
  pose proof (H a (or_introl eq_refl)).
  assert (horizon_js pl <= h) by (apply IH; intros; apply H; right; auto). lia.
Qed.

Lemma agree_prune : forall lo pl, agree lo pl (prune lo pl).
Proof.
  intros lo pl. split.
  - intros t Ht. unfold usage_js, prune. induction pl as [|e pl IH]; simpl; auto.
    destruct (Nat.ltb_spec lo (finish e)); simpl; rewrite IH; auto.
    rewrite req_usage_zero_after; auto. unfold finish in *. lia.
  - assert (Hsub : forall e, In e (prune lo pl) -> In e pl /\ lo < finish e).
    { intros e He. unfold prune in He. apply filter_In in He.
      destruct He as [He Hl]. apply Nat.ltb_lt in Hl. auto. }
    assert (Hle : horizon_js (prune lo pl) <= horizon_js pl).
    { apply horizon_le_all. intros e He. apply horizon_ge. apply Hsub; auto. }
    destruct (Nat.le_gt_cases (horizon_js pl) lo); [right; lia|left].
    destruct (horizon_attained pl) as [->|[e [He Hf]]]; [simpl in *; lia|].
    assert (In e (prune lo pl)) by (unfold prune; apply filter_In; split; auto;
                                    apply Nat.ltb_lt; lia).
    pose proof (horizon_ge _ _ H0). lia.
Qed.

Lemma agree_trans : forall lo pl1 pl2 pl3, agree lo pl1 pl2 -> agree lo pl2 pl3 -> agree lo pl1 pl3.
Proof.
  intros lo pl1 pl2 pl3 [U1 H1] [U2 H2]. split.
  - intros t Ht. rewrite U1, U2; auto.
  - destruct H1, H2; lia.
Qed.

Lemma forallb_ext_in' : forall {A} (f g : A -> bool) l,
  (forall a, In a l -> f a = g a) -> forallb f l = forallb g l.
Proof.
  intros A f g l H. induction l as [|a l IH]; simpl; auto.
  rewrite H by (left; auto). rewrite IH; auto. intros b Hb; apply H; right; auto.
Qed.

Lemma fits_agree : forall M lo pl1 pl2 r t,
  agree lo pl1 pl2 -> lo <= t -> fits M pl1 r t = fits M pl2 r t.
Proof.
  intros M lo pl1 pl2 r t [U _] Ht. unfold fits. apply forallb_ext_in'.
  intros t' Hin. apply in_seq in Hin. rewrite U by lia. auto.
Qed.

Lemma find_start_agree : forall M lo pl1 pl2 r fuel t,
  agree lo pl1 pl2 -> lo <= t -> find_start M pl1 r t fuel = find_start M pl2 r t fuel.
Proof.
  induction fuel; intros t Ha Ht; simpl; auto.
  rewrite (fits_agree M lo pl1 pl2 r t Ha Ht). rewrite IHfuel by (auto; lia). auto.
Qed.

Lemma agree_cons : forall lo x e pl1 pl2,
  lo <= x -> agree lo pl1 pl2 -> agree x (e :: pl1) (e :: pl2).
Proof.
  intros lo x e pl1 pl2 Hx [U H]. split.
  - intros t Ht. rewrite !usage_js_cons, U by lia. auto.
  - rewrite !horizon_cons'. destruct H as [H|[H1 H2]].
    + left. rewrite H. auto.
    + destruct (Nat.le_gt_cases (finish e) x); [right|left]; lia.
Qed.

Lemma place_fast_eq : forall M todo lo pl1 pl2,
  agree lo pl1 pl2 -> place_fast M pl2 lo todo = place M pl1 lo todo.
Proof.
  intros M todo. induction todo as [|a rest IH]; intros lo pl1 pl2 Ha; [reflexivity|].
  cbn [place_fast place].
  assert (Ha' : agree lo pl1 (prune lo pl2)) by (eapply agree_trans; [exact Ha|apply agree_prune]).
  assert (Hf : horizon_js (prune lo pl2) - lo = horizon_js pl1 - lo)
    by (destruct Ha' as [_ [H|H]]; lia).
  rewrite Hf, (find_start_agree M lo pl1 (prune lo pl2)) by auto.
  f_equal. apply IH. eapply agree_cons; [apply find_start_ge|exact Ha'].
Qed.

(** the faster placement (finished requests dropped from the check) gives exactly [svf] *)
Theorem svf_fast_eq : forall M rs, svf_fast M rs = svf M rs.
Proof.
  intros M rs. unfold svf_fast, svf, svf_placed.
  rewrite (place_fast_eq M (svf_order rs) 0 [] []); auto.
  split; auto.
Qed.

Example svf_fast_paper : svf_fast 12 [(6, 3); (1, 5)] = [5; 0] := eq_refl.
