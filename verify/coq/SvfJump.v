(** * The placement by jumps between events, proved equal to [place].

    [find_start] (Svf.v) tries the steps lo, lo + 1, ... one by one, and [fits] checks every
    step of the candidate's window: the work grows with the outputs' lengths.  Here, as in
    reference_impl/simulator.py ([ForwardCheck.earliest_start]):

    - the batch [pl] is kept sorted by finish, with every start <= lo (the last start) and,
      after [prune], every finish > lo;
    - the check of a start t needs only the window's last step t + o and the steps where a
      member of the batch finishes (the usage only grows between two finishes): [points]
      lists, for each member, (finish, usage at the finish + finish), computed in one pass;
    - a start that fails gives a lower bound on the next one that can pass ([bound]): the
      search jumps to it ([jump]).

    Every function here is tail-recursive except [insert_fin] and [points_spec], which are
    only the specifications of the tail-recursive [insert_fin_acc] and [points].
    [place_jump_eq]: [place_jump] gives the placement of [place], in reverse order. *)

From Coq Require Import Arith Lia List Bool Permutation Sorting.
From GeoSched Require Import Model Svf SvfFacts Sim SvfFast.
Import ListNotations.

(** ** Tail-recursive tools over the batch *)

Fixpoint usage_acc (pl : list (req * nat)) (t acc : nat) : nat :=
  match pl with
  | [] => acc
  | e :: pl' => usage_acc pl' t (acc + req_usage (fst e) (snd e) t)
  end.

Fixpoint horizon_acc (pl : list (req * nat)) (acc : nat) : nat :=
  match pl with
  | [] => acc
  | e :: pl' => horizon_acc pl' (Nat.max acc (finish e))
  end.

Fixpoint prune_acc (lo : nat) (pl acc : list (req * nat)) : list (req * nat) :=
  match pl with
  | [] => rev_append acc []
  | e :: pl' => if Nat.ltb lo (finish e) then prune_acc lo pl' (e :: acc) else prune_acc lo pl' acc
  end.

Fixpoint insert_fin (e : req * nat) (pl : list (req * nat)) : list (req * nat) :=
  match pl with
  | [] => [e]
  | b :: pl' => if Nat.leb (finish e) (finish b) then e :: pl else b :: insert_fin e pl'
  end.

Fixpoint insert_fin_acc (e : req * nat) (pl acc : list (req * nat)) : list (req * nat) :=
  match pl with
  | [] => rev_append acc [e]
  | b :: pl' => if Nat.leb (finish e) (finish b) then rev_append acc (e :: pl)
                else insert_fin_acc e pl' (b :: acc)
  end.

Fixpoint len_acc {A} (l : list A) (acc : nat) : nat :=
  match l with
  | [] => acc
  | _ :: l' => len_acc l' (S acc)
  end.

(** ** The check's points *)

(** For each member e of a batch sorted by finish, with [suf] the members from e on:
    (finish e, usage of suf at finish e, plus finish e). *)
Fixpoint points_spec (pl : list (req * nat)) : list (nat * nat) :=
  match pl with
  | [] => []
  | e :: pl' => (finish e, usage_js pl (finish e) + finish e) :: points_spec pl'
  end.

(** The same from the last member to the first, with running sums: with every start <= lo
    < every finish, a member j holds s_j + (lo - x_j) + (t - lo) at a step t <= its finish. *)
Fixpoint points_acc (lo : nat) (rpl : list (req * nat)) (c a : nat) (acc : list (nat * nat))
  : list (nat * nat) :=
  match rpl with
  | [] => acc
  | e :: rpl' =>
      let a' := a + (prompt (fst e) + (lo - snd e)) in
      let f := finish e in
      points_acc lo rpl' (S c) a' ((f, a' + S c * (f - lo) + f) :: acc)
  end.

Definition points (lo : nat) (pl : list (req * nat)) : list (nat * nat) :=
  points_acc lo (rev_append pl []) 0 0 [].

(** ** The bound and the jumps *)

(** Point p = (E, W) is in the window (t, t + o) and violated by a start at t. *)
Definition violated (M s o t : nat) (p : nat * nat) : bool :=
  Nat.ltb t (fst p) && Nat.ltb (fst p) (t + o) && Nat.ltb (M + t) (snd p + s).

Fixpoint wbound (M s o t : nat) (D : list (nat * nat)) (b : nat) : nat :=
  match D with
  | [] => b
  | p :: D' => wbound M s o t D'
                 (if violated M s o t p then Nat.max b (Nat.min (snd p + s - M) (fst p)) else b)
  end.

(** The smallest E >= c of the points. *)
Fixpoint next_end (c : nat) (D : list (nat * nat)) (best : option nat) : option nat :=
  match D with
  | [] => best
  | p :: D' =>
      next_end c D'
        (if Nat.leb c (fst p)
         then match best with None => Some (fst p) | Some b => Some (Nat.min b (fst p)) end
         else best)
  end.

(** No start in [t, bound) passes the check (window points violated until min(W + s - M, E);
    the last step of the window until it passes the next finish). *)
Definition bound (M s o hi t : nat) (pl : list (req * nat)) (D : list (nat * nat)) : nat :=
  let b := wbound M s o t D t in
  if Nat.ltb M (usage_acc pl (t + o) 0 + s + o) then
    match next_end (t + o) D None with
    | Some E => Nat.max b (E + 1 - o)
    | None => Nat.max b hi
    end
  else b.

Fixpoint jump (M s o hi : nat) (pl : list (req * nat)) (D : list (nat * nat)) (fuel t : nat)
  : nat :=
  match fuel with
  | 0 => t
  | S f =>
      if Nat.leb hi t then t
      else
        let b := bound M s o hi t pl D in
        if Nat.leb b t then t else jump M s o hi pl D f (Nat.min b hi)
  end.

(** The earliest start >= lo of [r] against the batch [pl] (sorted by finish, starts <= lo <
    finishes).  Each jump passes a finish or satisfies a window point for good, so for a batch of
    k members [jump_fuel k] = 2k + 1 steps are enough ([jump_eq], [jumps_decrease]). *)
Definition jump_fuel (k : nat) : nat := S (k + k).

Definition earliest (M : nat) (pl : list (req * nat)) (r : req) (lo : nat) : nat :=
  if Nat.eqb (output r) 0 then lo
  else
    let hi := horizon_acc pl 0 in
    jump M (prompt r) (output r) hi pl (points lo pl) (jump_fuel (len_acc pl 0)) lo.

(** ** The placement *)

(** Places [todo] in order; returns the placed requests with their starts, last first. *)
Fixpoint place_jump (M : nat) (pl : list (req * nat)) (lo : nat) (todo : list (nat * req))
  (acc : list ((nat * req) * nat)) : list ((nat * req) * nat) :=
  match todo with
  | [] => acc
  | a :: rest =>
      let pl' := prune_acc lo pl [] in
      let x := earliest M pl' (snd a) lo in
      place_jump M (insert_fin_acc (snd a, x) pl' []) x rest ((a, x) :: acc)
  end.

(** * Proofs *)

(** ** The tools *)

Lemma usage_acc_spec : forall pl t acc, usage_acc pl t acc = acc + usage_js pl t.
Proof.
  induction pl as [|e pl IH]; intros t acc; simpl; [unfold usage_js; simpl; lia|].
  rewrite IH, usage_js_cons. lia.
Qed.

Lemma len_acc_spec : forall {A} (l : list A) acc, len_acc l acc = acc + length l.
Proof. intros A l. induction l as [|a l IH]; intros acc; simpl; [lia|rewrite IH; lia]. Qed.

Lemma horizon_acc_spec : forall pl acc, horizon_acc pl acc = Nat.max acc (horizon_js pl).
Proof.
  induction pl as [|e pl IH]; intros acc; simpl; [lia|]. rewrite IH. lia.
Qed.

Lemma prune_acc_spec : forall lo pl acc, prune_acc lo pl acc = rev_append acc (prune lo pl).
Proof.
  induction pl as [|e pl IH]; intros acc; simpl; [reflexivity|].
  unfold prune in *. simpl. destruct (Nat.ltb lo (finish e)); rewrite IH; reflexivity.
Qed.

Lemma insert_fin_acc_spec : forall e pl acc, insert_fin_acc e pl acc = rev_append acc (insert_fin e pl).
Proof.
  induction pl as [|b pl IH]; intros acc; simpl; [reflexivity|].
  destruct (Nat.leb (finish e) (finish b)); [reflexivity|]. rewrite IH. reflexivity.
Qed.

Lemma insert_fin_perm : forall e pl, Permutation (insert_fin e pl) (e :: pl).
Proof. apply (insertion_perm (fun e b => Nat.leb (finish e) (finish b))); reflexivity. Qed.

Definition fle (a b : req * nat) : Prop := finish a <= finish b.

Lemma insert_fin_sorted : forall e pl, StronglySorted fle pl -> StronglySorted fle (insert_fin e pl).
Proof.
  intros e pl. induction pl as [|b pl IH]; intros H; simpl; [repeat constructor|].
  apply StronglySorted_inv in H as [Hs Hf]. rewrite Forall_forall in Hf.
  destruct (Nat.leb_spec (finish e) (finish b)).
  - constructor; [constructor; auto; rewrite Forall_forall; auto|].
    constructor; [unfold fle; lia|]. rewrite Forall_forall. intros c Hc.
    specialize (Hf c Hc). unfold fle in *. lia.
  - constructor; [apply IH; auto|]. rewrite Forall_forall. intros c Hc.
    apply (Permutation_in _ (insert_fin_perm e pl)) in Hc. destruct Hc as [<-|Hc]; [unfold fle; lia|].
    apply Hf; auto.
Qed.

Lemma filter_sorted : forall {A} (R : A -> A -> Prop) f l,
  StronglySorted R l -> StronglySorted R (filter f l).
Proof.
  intros A R f l. induction l as [|a l IH]; intros H; simpl; [constructor|].
  apply StronglySorted_inv in H as [Hs Hf]. destruct (f a); auto.
  constructor; auto. rewrite Forall_forall in *. intros b Hb. apply filter_In in Hb. apply Hf, Hb.
Qed.

Lemma horizon_perm : forall pl1 pl2, Permutation pl1 pl2 -> horizon_js pl1 = horizon_js pl2.
Proof.
  intros pl1 pl2 H. apply Nat.le_antisymm; apply horizon_le_all; intros e He; apply horizon_ge.
  - eapply Permutation_in; eauto.
  - eapply Permutation_in; [apply Permutation_sym|]; eauto.
Qed.

Lemma agree_perm : forall lo pl1 pl2, Permutation pl1 pl2 -> agree lo pl1 pl2.
Proof.
  intros lo pl1 pl2 H. split; [|left; apply horizon_perm; auto].
  intros t _. unfold usage_js. apply sumf_perm; auto.
Qed.

(** ** The points *)

Definition held_from (lo : nat) (l : list (req * nat)) : nat :=
  sumf (fun j => prompt (fst j) + (lo - snd j)) l.

Lemma usage_points : forall lo l t,
  (forall j, In j l -> snd j <= lo < t /\ t <= finish j) ->
  usage_js l t = held_from lo l + length l * (t - lo).
Proof.
  intros lo l t. induction l as [|j l IH]; intros H; [reflexivity|].
  rewrite usage_js_cons. unfold held_from in *. cbn [sumf length]. rewrite IH by (intros; apply H; right; auto).
  destruct (H j (or_introl eq_refl)) as [[H1 H2] H3].
  rewrite req_usage_on by (unfold finish in H3; lia). unfold finish in *. nia.
Qed.

Lemma sorted_app_r : forall {A} (R : A -> A -> Prop) l1 l2,
  StronglySorted R (l1 ++ l2) -> StronglySorted R l2.
Proof.
  intros A R l1 l2. induction l1 as [|a l1 IH]; simpl; auto.
  intros H. apply StronglySorted_inv in H as [H _]. auto.
Qed.

Lemma points_acc_app : forall lo pre suf,
  StronglySorted fle (pre ++ suf) ->
  (forall j, In j (pre ++ suf) -> snd j <= lo < finish j) ->
  points_acc lo (rev pre) (length suf) (held_from lo suf) (points_spec suf) = points_spec (pre ++ suf).
Proof.
  intros lo pre. induction pre as [|p pre IH] using rev_ind; intros suf Hs Hi; [reflexivity|].
  rewrite rev_app_distr. simpl rev. cbn [app points_acc].
  rewrite <- app_assoc in *. simpl app in *.
  rewrite <- IH; auto.
  replace (held_from lo suf + (prompt (fst p) + (lo - snd p))) with (held_from lo (p :: suf))
    by (unfold held_from; simpl; lia).
  replace (S (length suf)) with (length (p :: suf)) by reflexivity.
  cbn [points_spec].
  rewrite (usage_points lo (p :: suf) (finish p)); [reflexivity|].
  intros j Hj. assert (Hin : In j (pre ++ p :: suf)) by (apply in_or_app; right; auto).
  destruct (Hi j Hin) as [H1 H2]. destruct (Hi p ltac:(apply in_or_app; right; left; auto)) as [H3 H4].
  repeat split; auto.
  destruct Hj as [<-|Hj]; [lia|].
  apply sorted_app_r in Hs. apply StronglySorted_inv in Hs as [_ Hf].
  rewrite Forall_forall in Hf. apply Hf in Hj. unfold fle in Hj. lia.
Qed.

Lemma points_eq : forall lo pl,
  StronglySorted fle pl -> (forall j, In j pl -> snd j <= lo < finish j) ->
  points lo pl = points_spec pl.
Proof.
  intros lo pl Hs Hi. unfold points. rewrite <- rev_alt.
  pose proof (points_acc_app lo pl []) as H. rewrite app_nil_r in H. apply H; auto.
Qed.

Lemma points_sound : forall pl E W, In (E, W) (points_spec pl) ->
  (exists e, In e pl /\ E = finish e) /\ W <= usage_js pl E + E.
Proof.
  induction pl as [|e pl IH]; intros E W H; simpl in H; [contradiction|].
  destruct H as [H|H].
  - injection H as <- <-. split; [exists e; split; [left|]; auto|lia].
  - destruct (IH E W H) as [[e' [He' HE]] HW]. split; [exists e'; split; [right|]; auto|].
    rewrite usage_js_cons. lia.
Qed.

Lemma points_complete : forall pl e, StronglySorted fle pl -> In e pl ->
  In (finish e, usage_js pl (finish e) + finish e) (points_spec pl).
Proof.
  induction pl as [|a pl IH]; intros e Hs He; [contradiction|].
  apply StronglySorted_inv in Hs as [Hs Hf]. rewrite Forall_forall in Hf.
  destruct He as [<-|He]; [left; auto|].
  pose proof (Hf e He) as Hae. unfold fle in Hae.
  destruct (Nat.eq_dec (finish a) (finish e)) as [E|E]; [left; rewrite E; auto|right].
  rewrite usage_js_cons, req_usage_zero_after by (unfold finish in *; lia). apply IH; auto.
Qed.

(** ** The usage between finishes *)

(** If nobody running at c has finished by c', the usage only grew from c to c'. *)
Lemma usage_grows : forall pl c c',
  c <= c' -> (forall e, In e pl -> snd e < c /\ (c <= finish e -> c' <= finish e)) ->
  usage_js pl c <= usage_js pl c'.
Proof.
  intros pl c c' Hc H. unfold usage_js. apply sumf_le. intros e He.
  destruct (H e He) as [H1 H2]. unfold req_usage, finish in *.
  destruct (Nat.leb_spec c (snd e + output (fst e))).
  - specialize (H2 ltac:(lia)).
    destruct (Nat.ltb_spec (snd e) c'), (Nat.leb_spec c' (snd e + output (fst e))),
             (Nat.ltb_spec (snd e) c); simpl; lia.
  - rewrite andb_false_r. lia.
Qed.

Section Search.

Variables (M lo hi : nat) (pl : list (req * nat)) (r : req).
Hypothesis Hsorted : StronglySorted fle pl.
Hypothesis Hinv : forall e, In e pl -> snd e <= lo < finish e.
Hypothesis Hhi : hi = horizon_js pl.
Hypothesis Hout : 0 < output r.
Let s := prompt r.
Let o := output r.
Let D := points_spec pl.

Lemma fits_false_at : forall u c, u < c <= u + o ->
  M < usage_js pl c + s + (c - u) -> fits M pl r u = false.
Proof.
  intros u c Hc Hv. destruct (fits M pl r u) eqn:E; auto.
  rewrite fits_spec in E. specialize (E c Hc). fold s in E. lia.
Qed.

Lemma wbound_ge : forall t D' b, b <= wbound M s o t D' b.
Proof.
  intros t D'. induction D' as [|p D' IH]; intros b; simpl; [lia|].
  destruct (violated M s o t p); rewrite <- IH; lia.
Qed.

Lemma wbound_violated : forall t D' b p, In p D' -> violated M s o t p = true ->
  Nat.min (snd p + s - M) (fst p) <= wbound M s o t D' b.
Proof.
  intros t D'. induction D' as [|q D' IH]; intros b p Hp Hv; [contradiction|].
  destruct Hp as [<-|Hp]; simpl.
  - rewrite Hv. rewrite <- wbound_ge. lia.
  - apply IH; auto.
Qed.

Lemma wbound_cases : forall t D' b u, u < wbound M s o t D' b ->
  u < b \/ exists p, In p D' /\ violated M s o t p = true /\ u < Nat.min (snd p + s - M) (fst p).
Proof.
  intros t D'. induction D' as [|p D' IH]; intros b u Hu; simpl in Hu; [left; auto|].
  destruct (IH _ u Hu) as [H|[q [Hq [Hv Hlt]]]].
  - destruct (violated M s o t p) eqn:E; [|left; auto].
    destruct (Nat.lt_ge_cases u b); [left; auto|]. right. exists p. split; [left; auto|].
    split; auto. lia.
  - right. exists q. split; [right|]; auto.
Qed.

Lemma next_end_some : forall c D' b, exists E, next_end c D' (Some b) = Some E /\ E <= b.
Proof.
  intros c D'. induction D' as [|p D' IH]; intros b; simpl; [exists b; auto|].
  destruct (Nat.leb c (fst p)); [|apply IH].
  destruct (IH (Nat.min b (fst p))) as [E [HE Hle]]. exists E. split; auto; lia.
Qed.

Lemma next_end_le : forall c D' best E, next_end c D' best = Some E ->
  (forall b, best = Some b -> E <= b) /\ (forall p, In p D' -> c <= fst p -> E <= fst p).
Proof.
  intros c D'. induction D' as [|p D' IH]; intros best E H; simpl in H.
  - split; [intros b Hb; rewrite Hb in H; injection H as ->; lia|intros; contradiction].
  - destruct (IH _ _ H) as [IH1 IH2]. split.
    + intros b Hb. subst best. destruct (Nat.leb c (fst p)); specialize (IH1 _ eq_refl); lia.
    + intros q [<-|Hq] Hcq; [|apply IH2; auto].
      apply Nat.leb_le in Hcq. rewrite Hcq in IH1.
      destruct best as [b|]; specialize (IH1 _ eq_refl); lia.
Qed.

Lemma next_end_none : forall c D' best, next_end c D' best = None ->
  best = None /\ forall p, In p D' -> fst p < c.
Proof.
  intros c D'. induction D' as [|p D' IH]; intros best H; simpl in H; [split; auto; contradiction|].
  destruct (IH _ H) as [H1 H2]. destruct (Nat.leb_spec c (fst p)); [destruct best; discriminate|].
  split; auto. intros q [<-|Hq]; auto.
Qed.

Lemma next_end_ge : forall c D' best E, next_end c D' best = Some E ->
  (forall b, best = Some b -> c <= b) -> c <= E.
Proof.
  intros c D'. induction D' as [|p D' IH]; intros best E H Hb; simpl in H; [apply Hb; auto|].
  apply (IH _ _ H). intros b Hb'. destruct (Nat.leb_spec c (fst p)).
  - destruct best as [b0|]; injection Hb' as <-; [specialize (Hb _ eq_refl)|]; lia.
  - apply Hb; auto.
Qed.

(** Every start in [t, bound) fails. *)
Lemma bound_fails : forall t u, lo <= t -> t <= u < bound M s o hi t pl D -> fits M pl r u = false.
Proof.
  intros t u Hlo [Htu Hu]. unfold bound in Hu. rewrite usage_acc_spec in Hu.
  assert (Hw : u < wbound M s o t D t -> fits M pl r u = false).
  { intros Hw. destruct (wbound_cases t D t u Hw) as [H|[[E W] [Hp [Hv Hlt]]]]; [lia|].
    unfold violated in Hv; simpl in *. rewrite !andb_true_iff, !Nat.ltb_lt in Hv.
    destruct (points_sound pl E W Hp) as [_ HW].
    apply (fits_false_at u E); [lia|]. lia. }
  destruct (Nat.ltb_spec M (0 + usage_js pl (t + o) + s + o)) as [Hv|Hv]; [|auto].
  destruct (next_end (t + o) D None) as [E|] eqn:Hn.
  - apply next_end_le in Hn as [_ Hn].
    destruct (Nat.lt_ge_cases u (wbound M s o t D t)) as [H|H]; [auto|].
    assert (Hu' : u + o <= E) by lia.
    apply (fits_false_at u (u + o)); [lia|].
    assert (usage_js pl (t + o) <= usage_js pl (u + o)); [|lia].
    apply usage_grows; [lia|]. intros e He. destruct (Hinv e He) as [H1 H2]. split; [lia|].
    intros Hce.
    specialize (Hn _ (points_complete pl e Hsorted He)). simpl in Hn. lia.
  - apply next_end_none in Hn as [_ Hn].
    destruct (Nat.lt_ge_cases u (wbound M s o t D t)) as [H|H]; [auto|].
    apply (fits_false_at u (u + o)); [lia|].
    rewrite (usage_js_after_horizon pl (t + o)) in Hv.
    + lia.
    + destruct (Nat.lt_ge_cases (horizon_js pl) (t + o)) as [Hh|Hh]; [auto|].
      destruct (horizon_attained pl) as [->|[e [He Hf]]]; [simpl in *; lia|].
      specialize (Hn _ (points_complete pl e Hsorted He)). simpl in Hn. lia.
Qed.

Lemma bound_ge : forall t, t <= bound M s o hi t pl D.
Proof.
  intros t. unfold bound. pose proof (wbound_ge t D t).
  destruct (Nat.ltb M _); [destruct (next_end _ _ _)|]; lia.
Qed.

(** A start at which the bound does not move passes the check. *)
Lemma bound_fits : forall t, lo <= t -> t < hi -> bound M s o hi t pl D <= t -> fits M pl r t = true.
Proof.
  intros t Hlo Hhi' Hb.
  assert (Hw : forall p, In p D -> violated M s o t p = false).
  { intros p Hp. destruct (violated M s o t p) eqn:E; auto. exfalso.
    pose proof (wbound_violated t D t p Hp E) as H. unfold violated in E.
    rewrite !andb_true_iff, !Nat.ltb_lt in E.
    assert (wbound M s o t D t <= bound M s o hi t pl D)
      by (unfold bound; destruct (Nat.ltb M _); [destruct (next_end _ _ _)|]; lia).
    lia. }
  assert (Hend : usage_js pl (t + o) + s + o <= M).
  { destruct (Nat.le_gt_cases (usage_js pl (t + o) + s + o) M) as [H|H]; auto. exfalso.
    unfold bound in Hb. rewrite usage_acc_spec in Hb.
    replace (Nat.ltb M (0 + usage_js pl (t + o) + s + o)) with true in Hb
      by (symmetry; apply Nat.ltb_lt; lia).
    destruct (next_end (t + o) D None) as [E|] eqn:Hn; [|lia].
    pose proof (next_end_ge _ _ _ _ Hn ltac:(discriminate)). lia. }
  apply fits_spec. fold s o.
  assert (Hall : forall d t', t' + d = t + o -> t < t' -> usage_js pl t' + s + (t' - t) <= M).
  { induction d as [|d IH]; intros t' Hd Ht'.
    - replace t' with (t + o) by lia. lia.
    - destruct (existsb (fun e => Nat.eqb (finish e) t') pl) eqn:Ex.
      + apply existsb_exists in Ex as [e [He Hfe]]. apply Nat.eqb_eq in Hfe.
        pose proof (points_complete pl e Hsorted He) as Hp. rewrite Hfe in Hp.
        specialize (Hw _ Hp). unfold violated in Hw. simpl in Hw.
        rewrite !andb_false_iff, !Nat.ltb_ge in Hw. lia.
      + assert (usage_js pl t' <= usage_js pl (S t')).
        { apply usage_grows; [lia|]. intros e He. destruct (Hinv e He). split; [lia|].
          intros Hle. destruct (Nat.eq_dec (finish e) t') as [E|E]; [|lia].
          exfalso. assert (existsb (fun e => Nat.eqb (finish e) t') pl = true); [|congruence].
          apply existsb_exists. exists e. split; auto. apply Nat.eqb_eq; auto. }
        specialize (IH (S t') ltac:(lia) ltac:(lia)). lia. }
  intros t' Ht'. apply (Hall (t + o - t')); lia.
Qed.

Lemma find_start_none : forall fuel t,
  (forall u, t <= u < t + fuel -> fits M pl r u = false) -> find_start M pl r t fuel = t + fuel.
Proof.
  induction fuel as [|f IH]; intros t H; simpl; [lia|].
  rewrite H by lia. rewrite IH; [lia|]. intros u Hu. apply H. lia.
Qed.

(** The jumps' measure: window points still violated or ahead, and finishes not yet passed by
    the window's last step.  It never grows, and every jump that does not reach hi lowers it. *)
Definition pending (t : nat) : nat :=
  length (filter (fun p => Nat.ltb t (fst p) && Nat.ltb (M + t) (snd p + s)) D) +
  length (filter (fun p => Nat.leb (t + o) (fst p)) D).

Lemma filter_length_le : forall {A} (f g : A -> bool) l,
  (forall x, In x l -> g x = true -> f x = true) -> length (filter g l) <= length (filter f l).
Proof.
  intros A f g l. induction l as [|x l IH]; intros H; simpl; [lia|].
  specialize (IH (fun y Hy => H y (or_intror Hy))).
  destruct (g x) eqn:Eg; [rewrite (H x (or_introl eq_refl) Eg); simpl; lia|].
  destruct (f x); simpl; lia.
Qed.

Lemma filter_length_lt : forall {A} (f g : A -> bool) l y,
  (forall x, In x l -> g x = true -> f x = true) -> In y l -> f y = true -> g y = false ->
  length (filter g l) < length (filter f l).
Proof.
  intros A f g l. induction l as [|x l IH]; intros y H Hy Hf Hg; [contradiction|].
  pose proof (filter_length_le f g l (fun z Hz => H z (or_intror Hz))) as Hle.
  destruct Hy as [<-|Hy]; simpl.
  - rewrite Hf, Hg. simpl. lia.
  - specialize (IH y (fun z Hz => H z (or_intror Hz)) Hy Hf Hg).
    destruct (g x) eqn:Eg; [rewrite (H x (or_introl eq_refl) Eg)|destruct (f x)]; simpl; lia.
Qed.

Lemma pending_le : pending lo <= length pl + length pl.
Proof.
  assert (HD : length D = length pl) by (unfold D; clear; induction pl; simpl; auto).
  unfold pending. rewrite <- HD.
  assert (H0 : forall f, length (filter f D) <= length D).
  { intros f. generalize D. intros l. induction l as [|p l IH]; simpl; [lia|]. destruct (f p); simpl; lia. }
  pose proof (H0 (fun p => Nat.ltb lo (fst p) && Nat.ltb (M + lo) (snd p + s))).
  pose proof (H0 (fun p => Nat.leb (lo + o) (fst p))). lia.
Qed.

Lemma next_end_in : forall c D' best E, next_end c D' best = Some E ->
  best = Some E \/ exists p, In p D' /\ fst p = E /\ c <= E.
Proof.
  intros c D'. induction D' as [|p D' IH]; intros best E H; simpl in H; [left; auto|].
  destruct (IH _ _ H) as [H1|[q [Hq [Hq1 Hq2]]]]; [|right; exists q; split; [right|]; auto].
  destruct (Nat.leb_spec c (fst p)); [|left; auto].
  destruct best as [b|]; injection H1 as H1.
  - destruct (Nat.le_ge_cases b (fst p)).
    + left. f_equal. lia.
    + right. exists p. split; [left; auto|]. lia.
  - right. exists p. split; [left; auto|]. lia.
Qed.

(** a jump that does not reach the horizon lowers the count of pending window points and finishes: at most 2k +
    1 jumps for a batch of k *)
Theorem jumps_decrease : forall t, t < bound M s o hi t pl D -> bound M s o hi t pl D < hi ->
  pending (bound M s o hi t pl D) < pending t.
Proof.
  intros t Hb Hhi'. set (b := bound M s o hi t pl D) in *.
  assert (Hmono1 : forall x, In x D ->
            Nat.ltb b (fst x) && Nat.ltb (M + b) (snd x + s) = true ->
            Nat.ltb t (fst x) && Nat.ltb (M + t) (snd x + s) = true).
  { intros x _. rewrite !andb_true_iff, !Nat.ltb_lt. lia. }
  assert (Hmono2 : forall x, In x D -> Nat.leb (b + o) (fst x) = true -> Nat.leb (t + o) (fst x) = true).
  { intros x _. rewrite !Nat.leb_le. lia. }
  pose proof (filter_length_le _ _ D Hmono1) as L1. pose proof (filter_length_le _ _ D Hmono2) as L2.
  unfold pending.
  destruct (Nat.lt_ge_cases t (wbound M s o t D t)) as [Hw|Hw].
  - destruct (wbound_cases t D t t Hw) as [Hc|[p [Hp [Hv Hlt]]]]; [lia|].
    pose proof (wbound_violated t D t p Hp Hv).
    assert (wbound M s o t D t <= b)
      by (unfold b, bound; destruct (Nat.ltb M _); [destruct (next_end _ _ _)|]; lia).
    unfold violated in Hv. rewrite !andb_true_iff, !Nat.ltb_lt in Hv.
    assert (length (filter (fun p => Nat.ltb b (fst p) && Nat.ltb (M + b) (snd p + s)) D) <
            length (filter (fun p => Nat.ltb t (fst p) && Nat.ltb (M + t) (snd p + s)) D)); [|lia].
    apply (filter_length_lt _ _ D p Hmono1 Hp).
    + rewrite andb_true_iff, !Nat.ltb_lt. lia.
    + rewrite andb_false_iff, !Nat.ltb_ge. lia.
  - pose proof (wbound_ge t D t).
    unfold b, bound in Hb, Hhi'. fold b in Hb, Hhi'.
    destruct (Nat.ltb M _) eqn:Ev; [|lia].
    destruct (next_end (t + o) D None) as [E|] eqn:Hn; [|lia].
    assert (HbE : b = Nat.max (wbound M s o t D t) (E + 1 - o))
      by (unfold b, bound; rewrite Ev, Hn; reflexivity).
    destruct (next_end_in _ _ _ _ Hn) as [H1|[p [Hp [Hp1 Hp2]]]]; [discriminate|].
    assert (length (filter (fun p => Nat.leb (b + o) (fst p)) D) <
            length (filter (fun p => Nat.leb (t + o) (fst p)) D)); [|lia].
    apply (filter_length_lt _ _ D p Hmono2 Hp).
    + apply Nat.leb_le. lia.
    + apply Nat.leb_gt. lia.
Qed.

Lemma jump_eq : forall fuel t, lo <= t -> t <= Nat.max lo hi -> pending t < fuel \/ hi <= t ->
  (forall u, lo <= u < t -> fits M pl r u = false) ->
  jump M s o hi pl D fuel t = find_start M pl r lo (hi - lo).
Proof.
  assert (Hend : forall t, lo <= t -> t <= Nat.max lo hi -> hi <= t ->
            (forall u, lo <= u < t -> fits M pl r u = false) -> t = find_start M pl r lo (hi - lo)).
  { intros t Hlo Hmax Hhi' Hu. destruct (Nat.le_gt_cases hi lo).
    - replace (hi - lo) with 0 by lia. simpl. lia.
    - rewrite find_start_none; [lia|]. intros u Hu'. apply Hu. lia. }
  induction fuel as [|f IH]; intros t Hlo Hmax Hf Hu; cbn [jump].
  - destruct Hf as [Hf|Hf]; [lia|]. apply Hend; auto.
  - destruct (Nat.leb_spec hi t); [apply Hend; auto|].
    destruct Hf as [Hf|Hf]; [|lia].
    destruct (Nat.leb_spec (bound M s o hi t pl D) t).
    + symmetry. apply find_start_first; [lia|auto|]. apply bound_fits; auto.
    + apply IH; [lia|lia| |].
      * destruct (Nat.lt_ge_cases (bound M s o hi t pl D) hi).
        -- left. rewrite Nat.min_l by lia. pose proof (jumps_decrease t ltac:(lia) H1). lia.
        -- right. lia.
      * intros u Hu'. destruct (Nat.lt_ge_cases u t); [apply Hu; lia|]. apply (bound_fails t u); lia.
Qed.

End Search.

(** on a batch sorted by finish (starts <= lo < finishes), the search by jumps gives [find_start]'s start *)
Theorem earliest_eq : forall M pl r lo,
  StronglySorted fle pl -> (forall e, In e pl -> snd e <= lo < finish e) ->
  earliest M pl r lo = find_start M pl r lo (horizon_js pl - lo).
Proof.
  intros M pl r lo Hs Hi. unfold earliest.
  destruct (Nat.eqb_spec (output r) 0) as [Ho|Ho].
  - destruct (horizon_js pl - lo); simpl; auto.
    replace (fits M pl r lo) with true; auto. symmetry. apply fits_spec. intros t'. lia.
  - rewrite horizon_acc_spec, (points_eq lo pl Hs Hi). replace (Nat.max 0 (horizon_js pl)) with (horizon_js pl) by lia.
    rewrite len_acc_spec. apply jump_eq; auto; try lia. left.
    pose proof (pending_le M lo (horizon_js pl) pl r) as HP. unfold jump_fuel. lia.
Qed.

(** ** The placement *)

(** the placement by jumps gives [place]'s starts (in reverse order) *)
Theorem place_jump_eq : forall M todo lo pl0 pl acc,
  agree lo pl0 pl -> StronglySorted fle pl -> (forall e, In e pl -> snd e <= lo) ->
  place_jump M pl lo todo acc = rev (place M pl0 lo todo) ++ acc.
Proof.
  intros M todo. induction todo as [|a rest IH]; intros lo pl0 pl acc Ha Hs Hi; [reflexivity|].
  cbn [place_jump place]. rewrite prune_acc_spec. cbn [rev_append].
  set (pl' := prune lo pl).
  assert (Ha' : agree lo pl0 pl') by (eapply agree_trans; [exact Ha|apply agree_prune]).
  assert (Hs' : StronglySorted fle pl') by (apply filter_sorted; auto).
  assert (Hi' : forall e, In e pl' -> snd e <= lo < finish e).
  { intros e He. unfold pl', prune in He. apply filter_In in He as [He Hf].
    apply Nat.ltb_lt in Hf. split; auto. }
  rewrite earliest_eq by auto.
  assert (Hf : horizon_js pl' - lo = horizon_js pl0 - lo) by (destruct Ha' as [_ [H|H]]; lia).
  rewrite Hf, <- (find_start_agree M lo pl0 pl') by auto.
  set (x := find_start M pl0 (snd a) lo (horizon_js pl0 - lo)).
  rewrite insert_fin_acc_spec. cbn [rev_append].
  rewrite (IH x ((snd a, x) :: pl0)).
  - simpl. rewrite <- app_assoc. reflexivity.
  - eapply agree_trans; [eapply agree_cons; [apply find_start_ge|exact Ha']|].
    apply agree_perm, Permutation_sym, insert_fin_perm.
  - apply insert_fin_sorted; auto.
  - intros e He. apply (Permutation_in _ (insert_fin_perm _ _)) in He. destruct He as [<-|He]; [simpl; lia|].
    pose proof (find_start_ge M pl0 (snd a) (horizon_js pl0 - lo) lo). specialize (Hi' e He). fold x in H. lia.
Qed.
