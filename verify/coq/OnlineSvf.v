(** * Strict head-of-line priority scheduling with arrivals, step by step (the online SVF).

    Request i (position i of the instance) has a prompt and an output ([nth i rs]), an
    arrival step a_i ([nth i ars 0]) and a priority key k_i ([nth i ks 0]); the queue order
    is (key, arrival, position), lexicographic.  [osvf M ks ars rs] is the start step of
    each request, in the instance's order, of the process of reference_impl/simulator.py:
    at every step t = 0, 1, 2, ... the arrived requests that have not started are scanned
    in the queue order and started at t while the forward-looking check passes
    ([fits], Svf.v: usage of the started requests + s + (t' - t) <= M for t < t' <= t + o);
    the first misfit ends the scan for that step.  With [ks = map volume2 rs] this is the
    strict head-of-line SVF with arrivals ([osvf_volume]); any other key gives another
    strict head-of-line policy (1-bit SVF's proxy volume, FCFS with a constant key).

    Proved here, for every instance: every request starts, at or after its arrival
    ([osvf_after_arrival]); the schedule is feasible ([osvf_feasible]); and the facts
    about the trace that OnlineA2.v turns into the online Lemma A.2. *)

From Coq Require Import Arith Lia List Bool Permutation.
From GeoSched Require Import Model Svf SvfFacts LemmaA2.
Import ListNotations.

(** ** Items of the queue: ((key, arrival, position), request) *)

Definition item : Type := ((nat * nat * nat) * req)%type.
Definition ikey (a : item) : nat := fst (fst (fst a)).
Definition iarr (a : item) : nat := snd (fst (fst a)).
Definition ipos (a : item) : nat := snd (fst a).
Definition ireq (a : item) : req := snd a.

(** [a] comes no later than [b] in the queue order (key, arrival, position). *)
Definition ileb (a b : item) : bool :=
  Nat.ltb (ikey a) (ikey b) ||
  (Nat.eqb (ikey a) (ikey b) &&
   (Nat.ltb (iarr a) (iarr b) || (Nat.eqb (iarr a) (iarr b) && Nat.leb (ipos a) (ipos b)))).

Definition prio_le (a b : item) : Prop :=
  ikey a < ikey b \/ (ikey a = ikey b /\ (iarr a < iarr b \/ (iarr a = iarr b /\ ipos a <= ipos b))).

Lemma ileb_spec : forall a b, ileb a b = true <-> prio_le a b.
Proof.
  intros a b. unfold ileb, prio_le. rewrite orb_true_iff, andb_true_iff, orb_true_iff, andb_true_iff.
  rewrite Nat.ltb_lt, Nat.eqb_eq, Nat.ltb_lt, Nat.eqb_eq, Nat.leb_le. tauto.
Qed.

Lemma prio_le_trans : forall a b c, prio_le a b -> prio_le b c -> prio_le a c.
Proof. unfold prio_le. intros a b c H1 H2. lia. Qed.

Lemma prio_le_total : forall a b, prio_le a b \/ prio_le b a.
Proof. unfold prio_le. intros a b. lia. Qed.

(** ** One pick: the first arrived request in the queue order *)

Fixpoint pick (t : nat) (q : list item) : option item :=
  match q with
  | [] => None
  | a :: q' =>
      match pick t q' with
      | None => if Nat.leb (iarr a) t then Some a else None
      | Some b => if Nat.leb (iarr a) t && ileb a b then Some a else Some b
      end
  end.

Lemma pick_some : forall t q b, pick t q = Some b ->
  In b q /\ iarr b <= t /\ forall a, In a q -> iarr a <= t -> prio_le b a.
Proof.
  intros t q. induction q as [|a q IH]; intros b H; simpl in H; [discriminate|].
  destruct (pick t q) as [c|] eqn:Hp.
  - destruct (IH c eq_refl) as [Hc [Htc Hmin]].
    destruct (Nat.leb_spec (iarr a) t) as [Ha|Ha]; [destruct (ileb a c) eqn:Hac|];
      simpl in H; injection H as <-; (split; [simpl; auto|split; auto]).
    + rewrite ileb_spec in Hac. intros d [<-|Hd] Hdt; [unfold prio_le; lia|].
      eapply prio_le_trans; eauto.
    + intros d [<-|Hd] Hdt; [|auto]. destruct (prio_le_total c a) as [|Hca]; auto.
      rewrite <- ileb_spec in Hca. congruence.
    + intros d [<-|Hd] Hdt; [lia|auto].
  - destruct (Nat.leb_spec (iarr a) t); [|discriminate]. injection H as <-.
    split; [left; auto|split; auto]. intros d [<-|Hd] Hdt; [unfold prio_le; lia|].
    exfalso. clear IH. induction q as [|e q IHq]; simpl in *; [contradiction|].
    destruct (pick t q) as [g|] eqn:Hg.
    + destruct (Nat.leb (iarr e) t && ileb e g); discriminate.
    + destruct (Nat.leb_spec (iarr e) t); [discriminate|].
      destruct Hd as [<-|Hd]; [lia|]. apply IHq; auto.
Qed.

Lemma pick_none : forall t q, pick t q = None -> forall a, In a q -> t < iarr a.
Proof.
  intros t q. induction q as [|a q IH]; intros H d Hd; simpl in *; [contradiction|].
  destruct (pick t q) as [c|].
  - destruct (Nat.leb (iarr a) t && ileb a c); discriminate.
  - destruct (Nat.leb_spec (iarr a) t); [discriminate|].
    destruct Hd as [<-|Hd]; auto.
Qed.

(** ** Removing the picked item (positions are unique) *)

Definition drop (p : nat) (q : list item) : list item := filter (fun a => negb (Nat.eqb (ipos a) p)) q.

Lemma drop_absent : forall p q, (forall a, In a q -> ipos a <> p) -> drop p q = q.
Proof.
  intros p q H. induction q as [|a q IH]; simpl; auto.
  destruct (Nat.eqb_spec (ipos a) p) as [E|E]; [exfalso; apply (H a); simpl; auto|].
  simpl. rewrite IH; auto. intros b Hb; apply H; simpl; auto.
Qed.

Lemma drop_perm : forall q a, NoDup (map ipos q) -> In a q -> Permutation q (a :: drop (ipos a) q).
Proof.
  induction q as [|b q IH]; intros a Hn Ha; simpl in *; [contradiction|].
  inversion Hn as [|? ? Hb Hn']; subst.
  unfold drop; simpl; fold (drop (ipos a) q).
  destruct Ha as [<-|Ha].
  - rewrite Nat.eqb_refl. simpl. rewrite drop_absent; auto.
    intros c Hc E. apply Hb. rewrite <- E. apply in_map; auto.
  - destruct (Nat.eqb_spec (ipos b) (ipos a)) as [E|E].
    + exfalso. apply Hb. rewrite E. apply in_map; auto.
    + simpl. apply perm_trans with (b :: a :: drop (ipos a) q); [apply perm_skip, IH; auto|apply perm_swap].
Qed.

Lemma NoDup_app_r : forall {A} (l l' : list A), NoDup (l ++ l') -> NoDup l'.
Proof.
  intros A l. induction l as [|a l IH]; intros l' H; simpl in *; auto.
  apply IH. inversion H; auto.
Qed.

(** ** The scan of one step and the process *)

Definition ostrip (e : item * nat) : req * nat := (ireq (fst e), snd e).

Fixpoint oscan (M t : nat) (pl : list (req * nat)) (q : list item) (fuel : nat)
  : list (item * nat) * list (req * nat) * list item :=
  match fuel with
  | 0 => ([], pl, q)
  | S f =>
      match pick t q with
      | None => ([], pl, q)
      | Some a =>
          if fits M pl (ireq a) t then
            let '(s, pl', q') := oscan M t ((ireq a, t) :: pl) (drop (ipos a) q) f in
            ((a, t) :: s, pl', q')
          else ([], pl, q)
      end
  end.

(** Steps t, t + 1, ..., t + fuel - 1; [pl] holds the started requests with their starts. *)
Fixpoint osim (M fuel t : nat) (pl : list (req * nat)) (q : list item) : list (item * nat) :=
  match fuel with
  | 0 => []
  | S f =>
      match q with
      | [] => []
      | _ => let '(s, pl', q') := oscan M t pl q (length q) in s ++ osim M f (S t) pl' q'
      end
  end.

Definition oitem (ks ars : list nat) (rs : list req) (i : nat) : item :=
  ((nth i ks 0, nth i ars 0, i), nth i rs (0, 0)).

Definition oitems (ks ars : list nat) (rs : list req) : list item :=
  map (oitem ks ars rs) (seq 0 (length rs)).

Definition last_arrival (ars : list nat) : nat := fold_right Nat.max 0 ars.

(** Every request has started after [last_arrival ars + sum of outputs] steps ([osim_spec]). *)
Definition osvf_placed (M : nat) (ks ars : list nat) (rs : list req) : list (item * nat) :=
  osim M (S (last_arrival ars + sumf output rs)) 0 [] (oitems ks ars rs).

Fixpoint olookup (i : nat) (l : list (item * nat)) : nat :=
  match l with
  | [] => 0
  | e :: l' => if Nat.eqb (ipos (fst e)) i then snd e else olookup i l'
  end.

Definition osvf (M : nat) (ks ars : list nat) (rs : list req) : list nat :=
  let pl := osvf_placed M ks ars rs in
  map (fun i => olookup i pl) (seq 0 (length rs)).

(** The strict head-of-line SVF with arrivals: the key is twice the volume. *)
Definition osvf_volume (M : nat) (ars : list nat) (rs : list req) : list nat :=
  osvf M (map volume2 rs) ars rs.

(** The paper's instance as a burst, and the same requests arriving one step apart. *)
Example osvf_paper : osvf_volume 12 [0; 0] [(6, 3); (1, 5)] = [5; 0] := eq_refl.
Example osvf_staggered : osvf_volume 12 [0; 1] [(6, 3); (1, 5)] = [0; 1] := eq_refl.

(** ** The scan *)

Definition osumo (q : list item) : nat := sumf (fun a => output (ireq a)) q.

Lemma oscan_spec : forall M t fuel pl q s pl' q',
  oscan M t pl q fuel = (s, pl', q') ->
  NoDup (map ipos q) -> length q <= fuel ->
  Permutation q (map fst s ++ q') /\
  Permutation pl' (map ostrip s ++ pl) /\
  (forall e, In e s -> snd e = t /\ iarr (fst e) <= t) /\
  (forall e j, In e s -> In j q' -> iarr j <= t -> prio_le (fst e) j) /\
  (pick t q' = None \/ exists h, pick t q' = Some h /\ fits M pl' (ireq h) t = false) /\
  ((forall u, usage_js pl u <= M) -> forall u, usage_js pl' u <= M).
Proof.
  intros M t fuel. induction fuel as [|f IH]; intros pl q s pl' q' H Hn Hl; simpl in H.
  - injection H as <- <- <-. destruct q; simpl in Hl; [|lia].
    repeat split; simpl; auto; intros; contradiction.
  - destruct (pick t q) as [a|] eqn:Hp.
    + destruct (fits M pl (ireq a) t) eqn:Hf.
      * destruct (oscan M t ((ireq a, t) :: pl) (drop (ipos a) q) f) as [[s0 pl0] q0] eqn:Hs.
        injection H as <- <- <-.
        destruct (pick_some t q a Hp) as [Ha [Hat Hmin]].
        pose proof (drop_perm q a Hn Ha) as Hperm.
        assert (Hn' : NoDup (map ipos (drop (ipos a) q))).
        { apply (Permutation_map ipos), Permutation_NoDup in Hperm; auto. inversion Hperm; auto. }
        assert (Hl' : length (drop (ipos a) q) <= f).
        { apply Permutation_length in Hperm. simpl in Hperm. lia. }
        destruct (IH _ _ _ _ _ Hs Hn' Hl') as [P1 [P2 [P3 [P4 [P5 P6]]]]].
        split; [|split; [|split; [|split; [|split]]]].
        -- eapply perm_trans; [exact Hperm|]. simpl. apply perm_skip; auto.
        -- eapply perm_trans; [exact P2|]. simpl. apply Permutation_sym, Permutation_middle.
        -- intros e [<-|He]; simpl; auto.
        -- intros e j [<-|He] Hj Hjt; [|apply P4; auto].
           apply Hmin; auto. apply (Permutation_in _ (Permutation_sym Hperm)). right.
           apply (Permutation_in _ (Permutation_sym P1)), in_or_app. right; auto.
        -- auto.
        -- intros Hu. apply P6. apply (fits_usage M pl (ireq a) t Hf Hu).
      * injection H as <- <- <-. repeat split; simpl; auto; try (intros; contradiction).
        right. exists a; auto.
    + injection H as <- <- <-. repeat split; simpl; auto; intros; contradiction.
Qed.

(** ** The process *)

Lemma osim_nil : forall M fuel t pl, osim M fuel t pl [] = [].
Proof. intros M [|f] t pl; reflexivity. Qed.

Lemma horizon_le : forall l B, (forall e, In e l -> finish e <= B) -> horizon_js l <= B.
Proof.
  induction l as [|e l IH]; intros B H; simpl; [lia|].
  pose proof (H e (or_introl eq_refl)). pose proof (IH B (fun x Hx => H x (or_intror Hx))). lia.
Qed.

Lemma sumf_elem_le : forall {A} (f : A -> nat) l a, In a l -> f a <= sumf f l.
Proof.
  intros A f l a H. induction l as [|b l IH]; simpl in *; [contradiction|].
  destruct H as [<-|H]; [lia|]. specialize (IH H). lia.
Qed.

Lemma active_peaks_js_perm : forall l1 l2 t,
  Permutation l1 l2 -> active_peaks_js l1 t = active_peaks_js l2 t.
Proof. intros; apply sumf_perm; auto. Qed.

Lemma usage_js_perm : forall l1 l2 t, Permutation l1 l2 -> usage_js l1 t = usage_js l2 t.
Proof. intros; apply sumf_perm; auto. Qed.

Lemma in_fst_out : forall q (out : list (item * nat)) a,
  Permutation q (map fst out) -> In a q -> exists e, In e out /\ fst e = a.
Proof.
  intros q out a Hp Ha. apply (Permutation_in _ Hp), in_map_iff in Ha.
  destruct Ha as [e [He Hin]]. exists e; auto.
Qed.

Lemma in_out_fst : forall q (out : list (item * nat)) e,
  Permutation q (map fst out) -> In e out -> In (fst e) q.
Proof.
  intros q out e Hp He. apply (Permutation_in _ (Permutation_sym Hp)), in_map; auto.
Qed.

(** The invariant: every request of [q] starts, at or after its arrival and at or after t;
    the schedule stays feasible; a request started while another arrived one waits comes
    no later in the queue order; and at every step at which an arrived request waits, the
    first waiting request in the queue order failed the check. *)
Lemma osim_spec : forall M A fuel t pl q,
  NoDup (map ipos q) ->
  (forall a, In a q -> iarr a <= A /\ peak (ireq a) <= M) ->
  (forall e, In e pl -> snd e < t) ->
  Nat.max A (Nat.max t (horizon_js pl)) + osumo q < t + fuel ->
  let out := osim M fuel t pl q in
  Permutation q (map fst out) /\
  (forall e, In e out -> t <= snd e /\ iarr (fst e) <= snd e) /\
  ((forall u, usage_js pl u <= M) -> forall u, usage_js (pl ++ map ostrip out) u <= M) /\
  (forall e g, In e out -> In g out -> iarr (fst g) <= snd e < snd g -> prio_le (fst e) (fst g)) /\
  (forall u, t <= u -> (exists g, In g out /\ iarr (fst g) <= u < snd g) ->
     exists h, In h out /\ iarr (fst h) <= u < snd h /\
       M < active_peaks_js (pl ++ map ostrip out) u + peak (ireq (fst h)) /\
       forall g, In g out -> iarr (fst g) <= u < snd g -> prio_le (fst h) (fst g)).
Proof.
  intros M A fuel. induction fuel as [|f IH]; intros t pl q Hn Hq Hpl Hinv out.
  - exfalso. lia.
  - destruct q as [|a0 q0].
    + subst out. rewrite osim_nil. simpl. rewrite app_nil_r.
      repeat split; auto; try (intros; contradiction).
      intros u _ [g [[] _]].
    + unfold out; clear out. cbn [osim].
      set (q := a0 :: q0) in *.
      destruct (oscan M t pl q (length q)) as [[s pl'] q'] eqn:Hs.
      destruct (oscan_spec M t (length q) pl q s pl' q' Hs Hn (le_n _))
        as [S1 [S2 [S3 [S4 [S5 S6]]]]].
      assert (Hq' : forall a, In a q' -> In a q).
      { intros a Ha. apply (Permutation_in _ (Permutation_sym S1)), in_or_app; auto. }
      assert (Hn' : NoDup (map ipos q')).
      { apply (Permutation_map ipos), Permutation_NoDup in S1; auto.
        rewrite map_app in S1. apply NoDup_app_r in S1; auto. }
      assert (Hpl' : forall e, In e pl' -> snd e < S t).
      { intros e He. apply (Permutation_in _ S2), in_app_or in He. destruct He as [He|He].
        - apply in_map_iff in He. destruct He as [e0 [<- He0]]. unfold ostrip; simpl.
          destruct (S3 e0 He0). lia.
        - specialize (Hpl e He). lia. }
      assert (Hsum : osumo q = osumo (map fst s) + osumo q').
      { unfold osumo. rewrite (sumf_perm _ _ _ S1), sumf_app. reflexivity. }
      set (out' := osim M f (S t) pl' q').
      assert (IHo : Permutation q' (map fst out') /\
        (forall e, In e out' -> S t <= snd e /\ iarr (fst e) <= snd e) /\
        ((forall u, usage_js pl' u <= M) -> forall u, usage_js (pl' ++ map ostrip out') u <= M) /\
        (forall e g, In e out' -> In g out' -> iarr (fst g) <= snd e < snd g -> prio_le (fst e) (fst g)) /\
        (forall u, S t <= u -> (exists g, In g out' /\ iarr (fst g) <= u < snd g) ->
           exists h, In h out' /\ iarr (fst h) <= u < snd h /\
             M < active_peaks_js (pl' ++ map ostrip out') u + peak (ireq (fst h)) /\
             forall g, In g out' -> iarr (fst g) <= u < snd g -> prio_le (fst h) (fst g))).
      { destruct q' as [|b q''].
        - unfold out'. rewrite osim_nil. simpl. rewrite app_nil_r.
          repeat split; auto; try (intros; contradiction). intros u _ [g [[] _]].
        - apply IH; [auto|intros a Ha; apply Hq, Hq'; auto|auto|].
            (* the process moves on: t < A (nothing has arrived) or t < the horizon (a misfit) *)
            assert (Hbl : t < Nat.max A (horizon_js pl')).
            { destruct S5 as [Hnone|[h [Hh Hfit]]].
              - pose proof (pick_none t _ Hnone b (or_introl eq_refl)).
                destruct (Hq b (Hq' b (or_introl eq_refl))). lia.
              - destruct (pick_some t _ h Hh) as [Hin _].
                destruct (Hq h (Hq' h Hin)) as [_ Hph].
                destruct (Nat.le_gt_cases (horizon_js pl') t) as [Hle|]; [|lia].
                rewrite fits_at_end in Hfit; auto; discriminate. }
            assert (Hhor : horizon_js pl' <= Nat.max (horizon_js pl) (t + osumo (map fst s))).
            { apply horizon_le. intros e He. apply (Permutation_in _ S2), in_app_or in He.
              destruct He as [He|He].
              - apply in_map_iff in He. destruct He as [e0 [<- He0]]. unfold ostrip, finish; simpl.
                destruct (S3 e0 He0) as [-> _].
                pose proof (sumf_elem_le (fun a => output (ireq a)) (map fst s) (fst e0)
                  (in_map fst s e0 He0)). unfold osumo. simpl in *. lia.
              - pose proof (horizon_ge pl e He). lia. }
            lia. }
      destruct IHo as [O1 [O2 [O3 [O4 O5]]]].
      assert (Hs_t : forall e, In e s -> snd e = t) by (intros e He; apply (S3 e He)).
      assert (Hfull : Permutation (pl ++ map ostrip (s ++ out')) (pl' ++ map ostrip out')).
      { rewrite map_app, app_assoc. apply Permutation_app_tail.
        eapply perm_trans; [apply Permutation_app_comm|]. apply Permutation_sym; auto. }
      assert (Hlate : forall g, In g (s ++ out') -> t < snd g -> In g out').
      { intros g Hg Hgt. apply in_app_or in Hg. destruct Hg as [Hg|]; auto.
        rewrite (Hs_t g Hg) in Hgt. lia. }
      split; [|split; [|split; [|split]]].
      * rewrite map_app. eapply perm_trans; [exact S1|]. apply Permutation_app_head; auto.
      * intros e He. apply in_app_or in He. destruct He as [He|He].
        -- destruct (S3 e He). lia.
        -- destruct (O2 e He). lia.
      * intros Hu u. rewrite (usage_js_perm _ _ u Hfull). apply O3; auto.
      * intros e g He Hg Hord. apply in_app_or in He. destruct He as [He|He].
        -- rewrite (Hs_t e He) in Hord. apply S4; [auto| |lia].
           apply (in_out_fst q' out'); auto. apply Hlate; auto. lia.
        -- destruct (O2 e He). apply O4; auto. apply Hlate; auto. lia.
      * intros u Htu [g [Hg Hgu]].
        rewrite (active_peaks_js_perm _ _ u Hfull).
        destruct (Nat.eq_dec u t) as [->|Hne].
        -- assert (Hgo : In g out') by (apply Hlate; auto; lia).
           pose proof (in_out_fst q' out' g O1 Hgo) as Hgq.
           destruct S5 as [Hnone|[h [Hh Hfit]]].
           { exfalso. pose proof (pick_none t q' Hnone (fst g) Hgq). lia. }
           destruct (pick_some t q' h Hh) as [Hhq [Hht Hmin]].
           destruct (in_fst_out q' out' h O1 Hhq) as [eh [Heh Hfst]].
           exists eh. rewrite Hfst. split; [apply in_or_app; auto|].
           split; [destruct (O2 eh Heh); lia|]. split.
           ++ apply check_fail_bound in Hfit; [|intros e He; specialize (Hpl' e He); lia].
              rewrite active_peaks_js_app. lia.
           ++ intros g' Hg' Hg'u. apply Hmin; [|lia].
              apply (in_out_fst q' out'); auto. apply Hlate; auto. lia.
        -- destruct (O5 u ltac:(lia)) as [h [Hh [Hhu [Hm Hmin]]]].
           { exists g. split; [apply Hlate; auto; lia|auto]. }
           exists h. split; [apply in_or_app; auto|]. split; [auto|]. split; [auto|].
           intros g' Hg' Hg'u. apply Hmin; auto. apply Hlate; auto. lia.
Qed.
