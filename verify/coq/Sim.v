(** * The Coq SVF equals the step-by-step strict head-of-line simulation.

    [sim] is the discrete-time process of reference_impl/simulator.py for a burst: at every
    step t = 0, 1, 2, ... the waiting requests are scanned in the SVF order and started at t
    while the forward check passes; the first misfit ends the scan for that step.
    [svf_sim_eq]: when every peak fits in memory, it gives exactly [svf]'s starts. *)

From Coq Require Import Arith Lia List Bool Permutation Sorting.
From GeoSched Require Import Model Svf SvfFacts.
Import ListNotations.

(** One step: scan the queue at step t.  Returns the requests started at t (with t), the
    updated list of started requests, and the queue that still waits. *)
Fixpoint scan (M : nat) (pl : list (req * nat)) (t : nat) (q : list (nat * req))
  : list ((nat * req) * nat) * list (req * nat) * list (nat * req) :=
  match q with
  | [] => ([], pl, [])
  | a :: q' =>
      if fits M pl (snd a) t then
        let '(s, pl', rest) := scan M ((snd a, t) :: pl) t q' in ((a, t) :: s, pl', rest)
      else ([], pl, q)
  end.

(** Steps t, t + 1, ..., t + fuel - 1. *)
Fixpoint sim (M : nat) (fuel t : nat) (pl : list (req * nat)) (q : list (nat * req))
  : list ((nat * req) * nat) :=
  match fuel with
  | 0 => []
  | S f =>
      match q with
      | [] => []
      | _ => let '(s, pl', rest) := scan M pl t q in s ++ sim M f (S t) pl' rest
      end
  end.

Definition svf_sim (M : nat) (rs : list req) : list nat :=
  let pl := sim M (S (sumf output rs)) 0 [] (svf_order rs) in
  map (fun i => lookup i pl) (seq 0 (length rs)).

(** ** The two kinds of step *)

Lemma sim_start : forall M f t pl a q,
  fits M pl (snd a) t = true ->
  sim M (S f) t pl (a :: q) = (a, t) :: sim M (S f) t ((snd a, t) :: pl) q.
Proof.
  intros M f t pl a q H. cbn [sim scan]. rewrite H.
  destruct q as [|b q].
  - cbn [scan]. simpl. destruct f; reflexivity.
  - destruct (scan M ((snd a, t) :: pl) t (b :: q)) as [[s pl'] rest]. reflexivity.
Qed.

Lemma sim_wait : forall M f t pl a q,
  fits M pl (snd a) t = false -> sim M (S f) t pl (a :: q) = sim M f (S t) pl (a :: q).
Proof. intros M f t pl a q H. cbn [sim scan]. rewrite H. reflexivity. Qed.

Lemma find_start_first : forall M pl r fuel lo t,
  lo <= t <= lo + fuel ->
  (forall u, lo <= u < t -> fits M pl r u = false) -> fits M pl r t = true ->
  find_start M pl r lo fuel = t.
Proof.
  induction fuel; intros lo t Ht Hf Hfit; simpl.
  - replace t with lo in * by lia. auto.
  - destruct (Nat.eq_dec lo t) as [<-|Hne]; [rewrite Hfit; auto|].
    rewrite Hf by lia. apply IHfuel; auto; [lia|]. intros u Hu. apply Hf. lia.
Qed.

Definition sumo (q : list (nat * req)) : nat := sumf (fun a => output (snd a)) q.

Lemma horizon_cons : forall e pl, horizon_js (e :: pl) = Nat.max (finish e) (horizon_js pl).
Proof. reflexivity. Qed.

(** ** The invariant *)

Lemma sim_place : forall M n fuel t pl q lo,
  fuel + length q <= n ->
  (forall a, In a q -> peak (snd a) <= M) ->
  lo <= t ->
  (forall a q', q = a :: q' -> forall u, lo <= u < t -> fits M pl (snd a) u = false) ->
  Nat.max t (horizon_js pl) + sumo q < t + fuel ->
  sim M fuel t pl q = place M pl lo q.
Proof.
  intros M n. induction n; intros fuel t pl q lo Hn Hp Hlo Hf Hb.
  - destruct fuel; [lia|]. destruct q; simpl in Hn; lia.
  - destruct fuel as [|f]; [lia|]. destruct q as [|a q]; [reflexivity|].
    assert (Hpa : peak (snd a) <= M) by (apply Hp; left; auto).
    unfold sumo in Hb; cbn [sumf] in Hb; fold (sumo q) in Hb.
    destruct (fits M pl (snd a) t) eqn:E.
    + rewrite sim_start by auto. cbn [place].
      assert (Hx : find_start M pl (snd a) lo (horizon_js pl - lo) = t).
      { apply find_start_first; auto; [|intros; eapply Hf; eauto].
        split; auto. destruct (Nat.le_gt_cases t (horizon_js pl)); [lia|].
        destruct (Nat.le_gt_cases t lo); [lia|].
        exfalso. assert (Hend : fits M pl (snd a) (Nat.max lo (horizon_js pl)) = true)
          by (apply fits_at_end; auto; lia).
        rewrite (Hf a q eq_refl) in Hend; [discriminate|lia]. }
      rewrite Hx. f_equal. apply (IHn (S f) t ((snd a, t) :: pl) q t).
      * simpl in Hn. lia.
      * intros b Hb'. apply Hp. right; auto.
      * lia.
      * intros b q' _ u Hu. lia.
      * rewrite horizon_cons. unfold finish; simpl. lia.
    + rewrite sim_wait by auto. apply (IHn f (S t) pl (a :: q) lo).
      * simpl in *. lia.
      * auto.
      * lia.
      * intros b q' Hq u Hu. injection Hq as <- <-.
        destruct (Nat.eq_dec u t) as [->|]; auto. apply (Hf a q eq_refl). lia.
      * assert (t < horizon_js pl).
        { destruct (Nat.le_gt_cases (horizon_js pl) t); auto.
          rewrite fits_at_end in E; auto; discriminate. }
        unfold sumo in *; cbn [sumf] in *. lia.
Qed.

(** if every peak <= M, the step-by-step strict head-of-line simulation [svf_sim] gives exactly [svf]'s starts
    *)
Theorem svf_sim_eq : forall M rs,
  (forall r, In r rs -> peak r <= M) -> svf_sim M rs = svf M rs.
Proof.
  intros M rs Hp. unfold svf_sim, svf, svf_placed.
  replace (sim M (S (sumf output rs)) 0 [] (svf_order rs)) with (place M [] 0 (svf_order rs));
    [reflexivity|]. symmetry.
  apply (sim_place M (S (sumf output rs) + length (svf_order rs))); auto.
  - intros a Ha. apply Hp, in_svf_order; auto.
  - intros a q' _ u Hu. lia.
  - assert (sumo (svf_order rs) = sumf output rs).
    { unfold sumo. rewrite (sumf_perm _ _ _ (svf_order_perm rs)).
      rewrite <- sumf_map. rewrite map_snd_combine; auto. rewrite seq_length. lia. }
    simpl. lia.
Qed.

Example svf_sim_paper : svf_sim 12 [(6, 3); (1, 5)] = [5; 0] := eq_refl.
