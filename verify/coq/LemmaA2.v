(** * Lemma A.2 of Kong et al. for the Coq SVF, in its peak-mass form.

    At every step t at which some request still waits (t < x_k), the requests active at t
    (x_j <= t < x_j + o_j) have peaks summing to more than M - p_h, where h is the head of
    the queue (the next request to be placed).  With every peak <= P this gives
    active peak mass + P > M, i.e. > (1 - alpha) M.

    The occupancy form ("the current usage exceeds M/2 while a request waits") is false:
    [lemmaA2_occupancy_refuted]. *)

From Coq Require Import Arith Lia List Bool Permutation.
From GeoSched Require Import Model Svf SvfFacts.
Import ListNotations.

Lemma forallb_false_ex : forall {A} (f : A -> bool) l,
  forallb f l = false -> exists a, In a l /\ f a = false.
Proof.
  intros A f l. induction l as [|a l IH]; simpl; intros H; [discriminate|].
  destruct (f a) eqn:E; simpl in H.
  - destruct (IH H) as [b [Hb Hf]]. exists b; auto.
  - exists a; auto.
Qed.

(** Future usage of a request started by t is at most its peak, and only if it is active. *)
Lemma usage_le_active_peak : forall e t t',
  snd e <= t -> t < t' -> req_usage (fst e) (snd e) t' <= (if activeb e t then peak (fst e) else 0).
Proof.
  intros e t t' H1 H2. unfold req_usage, activeb, finish, peak.
  destruct (Nat.ltb_spec (snd e) t'), (Nat.leb_spec t' (snd e + output (fst e))); cbn [andb];
    destruct (Nat.leb_spec (snd e) t), (Nat.ltb_spec t (snd e + output (fst e))); cbn [andb];
    lia.
Qed.

(** A failed forward check at t, with everything placed started by t. *)
Lemma check_fail_bound : forall M pl r t,
  (forall e, In e pl -> snd e <= t) -> fits M pl r t = false ->
  M < active_peaks_js pl t + peak r.
Proof.
  intros M pl r t Hpl Hf. unfold fits in Hf. apply forallb_false_ex in Hf.
  destruct Hf as [t' [Hin Hle]]. apply in_seq in Hin. apply Nat.leb_gt in Hle.
  assert (usage_js pl t' <= active_peaks_js pl t).
  { apply sumf_le. intros e He. apply usage_le_active_peak; auto. lia. }
  unfold peak. lia.
Qed.

Lemma active_peaks_js_app : forall l1 l2 t,
  active_peaks_js (l1 ++ l2) t = active_peaks_js l1 t + active_peaks_js l2 t.
Proof. intros; apply sumf_app. Qed.

Lemma active_peaks_js_cons : forall e l t,
  active_peaks_js (e :: l) t = (if activeb e t then peak (fst e) else 0) + active_peaks_js l t.
Proof. reflexivity. Qed.

(** The invariant form, by induction over the placement. *)
Lemma place_a2 : forall M todo pl lo t,
  (forall e, In e pl -> snd e <= lo) -> lo <= t ->
  (exists e, In e (place M pl lo todo) /\ t < snd e) ->
  exists h, In h (place M pl lo todo) /\ t < snd h /\
    M < active_peaks_js (pl ++ map strip (place M pl lo todo)) t + peak (snd (fst h)).
Proof.
  intros M todo. induction todo as [|a rest IH]; intros pl lo t Hpl Hlo [e [He Ht]];
    [contradiction|].
  cbn [place] in *. set (x := find_start M pl (snd a) lo (horizon_js pl - lo)) in *.
  pose proof (find_start_ge M pl (snd a) (horizon_js pl - lo) lo) as Hx.
  destruct (Nat.lt_ge_cases t x) as [Htx|Htx].
  - exists (a, x). split; [left; auto|]. split; [auto|].
    assert (Hf : fits M pl (snd a) t = false) by (eapply find_start_fail; eauto).
    apply check_fail_bound in Hf; [|intros e' He'; specialize (Hpl e' He'); lia].
    rewrite active_peaks_js_app. simpl. lia.
  - destruct He as [<-|He]; [simpl in Ht; lia|].
    destruct (IH ((snd a, x) :: pl) x t) as [h [Hh [Hth Hm]]].
    + intros e' [<-|He']; simpl; auto. specialize (Hpl e' He'). lia.
    + auto.
    + exists e; auto.
    + exists h. split; [right; auto|]. split; auto.
      rewrite active_peaks_js_app in *. cbn [map app] in *.
      rewrite active_peaks_js_cons in *. unfold strip in *; simpl fst in *; simpl snd in *. lia.
Qed.

(** The list form for the whole SVF placement. *)
Lemma svf_a2_js : forall M rs t e,
  In e (svf_placed M rs) -> t < snd e ->
  exists h, In h (svf_placed M rs) /\ t < snd h /\
    M < active_peaks_js (map strip (svf_placed M rs)) t + peak (snd (fst h)).
Proof.
  intros M rs t e He Ht. apply (place_a2 M (svf_order rs) [] 0 t); auto.
  - intros ? [].
  - lia.
  - exists e; auto.
Qed.

Lemma waiting_in_placed : forall M rs k t,
  k < length rs -> t < nth k (svf M rs) 0 ->
  exists e, In e (svf_placed M rs) /\ t < snd e.
Proof.
  intros M rs k t Hk Ht.
  assert (Hin : In (nth k rs (0, 0), nth k (svf M rs) 0) (combine rs (svf M rs))).
  { rewrite <- combine_nth by (rewrite svf_length; auto). apply nth_In.
    rewrite combine_length, svf_length. lia. }
  apply (Permutation_in _ (svf_perm M rs)), in_map_iff in Hin.
  destruct Hin as [e [He Hin]]. exists e. split; auto. unfold strip in He.
  inversion He. lia.
Qed.

(** if a request waits at step t, some waiting head h has active_peaks(t) + p_h > M *)
Theorem lemmaA2_head : forall M rs t,
  (exists k, k < length rs /\ t < nth k (svf M rs) 0) ->
  exists h, In h (combine rs (svf M rs)) /\ t < snd h /\
    M < active_peaks rs (svf M rs) t + peak (fst h).
Proof.
  intros M rs t [k [Hk Ht]].
  destruct (waiting_in_placed M rs k t Hk Ht) as [e [He Het]].
  destruct (svf_a2_js M rs t e He Het) as [h [Hh [Hth Hm]]].
  exists (strip h). split; [|split; auto].
  - apply (Permutation_in _ (Permutation_sym (svf_perm M rs))), in_map; auto.
  - unfold active_peaks, active_peaks_js. rewrite (sumf_perm _ _ _ (svf_perm M rs)). auto.
Qed.

(** with every peak <= P: whenever a request waits at t, active_peaks(t) + P > M (kong.lemmaA.2) *)
Theorem lemmaA2_peak_mass : forall M P rs t,
  (forall r, In r rs -> peak r <= P) ->
  (exists k, k < length rs /\ t < nth k (svf M rs) 0) ->
  M < active_peaks rs (svf M rs) t + P.
Proof.
  intros M P rs t HP Hw. destruct (lemmaA2_head M rs t Hw) as [h [Hh [_ Hm]]].
  destruct h as [r x]. apply in_combine_l in Hh. specialize (HP _ Hh). simpl in Hm. lia.
Qed.

(** The occupancy form is false: M = 16, three requests (s, o) = (0, 8) (alpha = 1/2).
    The SVF starts them at 0, 0, 8; at step 1 the third waits and the usage is 2 <= M/2. *)
Example occupancy_counterexample :
  svf 16 [(0, 8); (0, 8); (0, 8)] = [0; 0; 8] /\
  usage [(0, 8); (0, 8); (0, 8)] (svf 16 [(0, 8); (0, 8); (0, 8)]) 1 = 2.
Proof. split; reflexivity. Qed.

(** "usage > M/2 whenever a request waits" is false (M = 16, three (0, 8): usage 2 at t = 1) *)
Theorem lemmaA2_occupancy_refuted : ~ (forall M rs t,
  (forall r, In r rs -> 1 <= output r /\ 2 * peak r <= M) ->
  (exists k, k < length rs /\ t < nth k (svf M rs) 0) ->
  M < 2 * usage rs (svf M rs) t).
Proof.
  intros H. specialize (H 16 [(0, 8); (0, 8); (0, 8)] 1).
  assert (Hr : forall r, In r [(0, 8); (0, 8); (0, 8)] -> 1 <= output r /\ 2 * peak r <= 16).
  { intros r Hr. simpl in Hr. unfold output, peak, prompt.
    destruct Hr as [<-|[<-|[<-|[]]]]; simpl; lia. }
  specialize (H Hr). assert (Hw : exists k, k < 3 /\ 1 < nth k (svf 16 [(0, 8); (0, 8); (0, 8)]) 0).
  { exists 2. split; [lia|]. vm_compute. lia. }
  specialize (H Hw). vm_compute in H. lia.
Qed.
