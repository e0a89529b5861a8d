(** * The drift of the peak-time workload under online SVF (any keys), for every instance.

    The Lyapunov function of the stability proof (row svf.poisson.stable) is the peak-time work
    still to run at step t of the requests arrived by t:

        owork(t) = sum_{i : a_i <= t} p_i (x_i + o_i - max(t, x_i))

    (a waiting request counts p_i o_i, a running one p_i times its remaining steps). For the
    schedule [xs = osvf M ks ars rs] (OnlineSvf.v; SVF when [ks] are the volumes, 1-bit SVF with
    proxy volumes, FCFS with equal keys):

    - [owork_step]: owork(t + 1) + active_peaks(t) = owork(t) + (the work p o arriving at t + 1),
      for every schedule that starts no request before it arrives;
    - [online_drift]: with every peak <= P <= M, at every step t at which an arrived request
      waits, owork(t + 1) + (M + 1 - P) <= owork(t) + (the work arriving at t + 1): the online
      Lemma A.2 (active_peaks(t) + p_h > M) in the workload's one-step balance;
    - [online_idle_work]: at a step where no arrived request waits, with every peak <= P and
      output <= Omax, owork(t) <= M P Omax (at most M requests run: each holds a token);
    - [online_active_peaks_bound]: active_peaks(t) <= M P at every step (the drain per step is bounded). *)

From Coq Require Import Arith Lia List Bool.
From GeoSched Require Import Model OnlineSvf OnlineA2.
Import ListNotations.

(** ** The workload *)

(** The peak-time still to run at step [t] of request [r] arrived at [a] and started at [x] (0 before it arrives). *)
Definition rem (r : req) (a x t : nat) : nat :=
  if Nat.leb a t then peak r * (x + output r - Nat.max t x) else 0.

(** The peak-time work in the system at step [t]. *)
Definition owork (rs : list req) (ars xs : list nat) (t : nat) : nat :=
  sumf (fun i => rem (nth i rs (0, 0)) (nth i ars 0) (nth i xs 0) t) (seq 0 (length rs)).

(** The work p o of the requests arriving at step [t]. *)
Definition oarrived (rs : list req) (ars : list nat) (t : nat) : nat :=
  sumf (fun i => if Nat.eqb (nth i ars 0) t then peak (nth i rs (0, 0)) * output (nth i rs (0, 0)) else 0)
       (seq 0 (length rs)).

(** ** Index form of the instance-order sums *)

Lemma combine_seq : forall (rs : list req) (xs : list nat), length xs = length rs ->
  combine rs xs = map (fun i => (nth i rs (0, 0), nth i xs 0)) (seq 0 (length rs)).
Proof.
  intros rs xs Hl. apply (nth_ext _ _ ((0, 0), 0) ((0, 0), 0)).
  - rewrite combine_length, map_length, seq_length. lia.
  - intros n Hn. rewrite combine_length, Hl, Nat.min_id in Hn.
    rewrite combine_nth by auto.
    rewrite (nth_indep _ _ (nth 0 rs (0, 0), nth 0 xs 0)) by (rewrite map_length, seq_length; auto).
    rewrite (map_nth (fun i => (nth i rs (0, 0), nth i xs 0))), seq_nth by auto. reflexivity.
Qed.

Lemma active_peaks_seq : forall rs xs t, length xs = length rs ->
  active_peaks rs xs t =
  sumf (fun i => if activeb (nth i rs (0, 0), nth i xs 0) t then peak (nth i rs (0, 0)) else 0)
       (seq 0 (length rs)).
Proof.
  intros rs xs t Hl. unfold active_peaks, active_peaks_js. rewrite combine_seq by auto.
  rewrite sumf_map. reflexivity.
Qed.

Lemma usage_seq : forall rs xs t, length xs = length rs ->
  usage rs xs t = sumf (fun i => req_usage (nth i rs (0, 0)) (nth i xs 0) t) (seq 0 (length rs)).
Proof.
  intros rs xs t Hl. unfold usage, usage_js. rewrite combine_seq by auto. rewrite sumf_map. reflexivity.
Qed.

(** ** One step of one request *)

Lemma rem_step : forall r a x t, a <= x ->
  rem r a x (S t) + (if activeb (r, x) t then peak r else 0) =
  rem r a x t + (if Nat.eqb a (S t) then peak r * output r else 0).
Proof.
  intros r a x t Hax. unfold rem, activeb, finish; cbn [fst snd].
  set (p := peak r). set (o := output r).
  destruct (Nat.max_spec (S t) x) as [[? ->]|[? ->]], (Nat.max_spec t x) as [[? ->]|[? ->]],
    (Nat.leb_spec a (S t)), (Nat.leb_spec a t), (Nat.eqb_spec a (S t)), (Nat.leb_spec x t),
    (Nat.ltb_spec t (x + o)); cbn [andb]; try lia.
  all: first [ replace (x + o - S t) with (x + o - x) by lia; lia
             | replace (x + o - S t) with o by lia; lia
             | replace (x + o - t) with (S (x + o - S t)) by lia; rewrite Nat.mul_succ_r; lia ].
Qed.

(** ** The theorems *)

(** The one-step balance of the workload, for every schedule that starts no request before it arrives. *)
Theorem owork_step : forall rs ars xs t, length xs = length rs ->
  (forall i, i < length rs -> nth i ars 0 <= nth i xs 0) ->
  owork rs ars xs (S t) + active_peaks rs xs t = owork rs ars xs t + oarrived rs ars (S t).
Proof.
  intros rs ars xs t Hl Hax. rewrite active_peaks_seq by auto. unfold owork, oarrived.
  rewrite <- !sumf_add. apply sumf_ext. intros i Hi. apply in_seq in Hi.
  apply rem_step. apply Hax. lia.
Qed.

(** The drift inequality: while an arrived request waits, the workload falls by at least M + 1 - P per step,
    less the work that arrives. *)
Theorem online_drift : forall M P ks ars rs t, P <= M ->
  (forall r, In r rs -> peak r <= P) ->
  (exists k, k < length rs /\ nth k ars 0 <= t < nth k (osvf M ks ars rs) 0) ->
  owork rs ars (osvf M ks ars rs) (S t) + (M + 1 - P) <=
  owork rs ars (osvf M ks ars rs) t + oarrived rs ars (S t).
Proof.
  intros M P ks ars rs t HPM HP Hw.
  assert (Hp : forall r, In r rs -> peak r <= M) by (intros r Hr; specialize (HP r Hr); lia).
  destruct (online_lemmaA2 M ks ars rs t Hp Hw) as [h [Hh [_ [Hm _]]]].
  pose proof (HP _ (nth_In rs (0, 0) Hh)).
  rewrite <- (owork_step rs ars (osvf M ks ars rs) t (osvf_length M ks ars rs)).
  - lia.
  - intros i Hi. apply osvf_after_arrival; auto.
Qed.

Lemma rem_idle : forall r a x t P O, peak r <= P -> output r <= O -> (a <= t -> x <= t) ->
  rem r a x t <= P * O * req_usage r x (S t).
Proof.
  intros r a x t P O Hp Ho Hx. unfold rem, req_usage.
  destruct (Nat.leb_spec a t) as [Ha|Ha]; [|lia].
  specialize (Hx Ha). replace (Nat.max t x) with t by lia.
  destruct (Nat.ltb_spec x (S t)), (Nat.leb_spec (S t) (x + output r)); cbn [andb]; try lia.
  - assert (1 <= prompt r + (S t - x)) by lia.
    assert (peak r * (x + output r - t) <= P * O) by (apply Nat.mul_le_mono; lia).
    assert (P * O * 1 <= P * O * (prompt r + (S t - x))) by (apply Nat.mul_le_mono_l; lia). lia.
Qed.

(** While no arrived request waits, the workload is at most M P O: the set of such states is finite. *)
Theorem online_idle_work : forall M P Omax ks ars rs t, P <= M ->
  (forall r, In r rs -> peak r <= P /\ output r <= Omax) ->
  (forall k, k < length rs -> nth k ars 0 <= t -> nth k (osvf M ks ars rs) 0 <= t) ->
  owork rs ars (osvf M ks ars rs) t <= M * (P * Omax).
Proof.
  intros M P Omax ks ars rs t HPM HP Hidle.
  assert (Hp : forall r, In r rs -> peak r <= M) by (intros r Hr; destruct (HP r Hr); lia).
  set (xs := osvf M ks ars rs).
  assert (Hl : length xs = length rs) by apply osvf_length.
  destruct (osvf_feasible M ks ars rs Hp) as [_ Hfit]. specialize (Hfit (S t)). fold xs in Hfit.
  rewrite usage_seq in Hfit by auto.
  eapply Nat.le_trans.
  - apply (sumf_le _ (fun i => P * Omax * req_usage (nth i rs (0, 0)) (nth i xs 0) (S t))).
    intros i Hi. apply in_seq in Hi. destruct (HP (nth i rs (0, 0))) as [H1 H2]; [apply nth_In; lia|].
    apply (rem_idle _ _ _ _ P Omax); auto. apply Hidle. lia.
  - rewrite sumf_mul_l. rewrite Nat.mul_comm. apply Nat.mul_le_mono_r. exact Hfit.
Qed.

Lemma peak_active : forall r x t P, peak r <= P ->
  (if activeb (r, x) t then peak r else 0) <= P * req_usage r x (S t).
Proof.
  intros r x t P Hp. unfold activeb, finish, req_usage; cbn [fst snd].
  destruct (Nat.leb_spec x t), (Nat.ltb_spec t (x + output r)); cbn [andb]; try lia.
  destruct (Nat.ltb_spec x (S t)), (Nat.leb_spec (S t) (x + output r)); cbn [andb]; try lia.
  assert (P * 1 <= P * (prompt r + (S t - x))) by (apply Nat.mul_le_mono_l; lia). lia.
Qed.

(** At most M requests run at once (each holds a token), so the peak-time drained per step is at most M P. *)
Theorem online_active_peaks_bound : forall M P ks ars rs t, P <= M ->
  (forall r, In r rs -> peak r <= P) ->
  active_peaks rs (osvf M ks ars rs) t <= M * P.
Proof.
  intros M P ks ars rs t HPM HP.
  assert (Hp : forall r, In r rs -> peak r <= M) by (intros r Hr; specialize (HP r Hr); lia).
  set (xs := osvf M ks ars rs).
  assert (Hl : length xs = length rs) by apply osvf_length.
  destruct (osvf_feasible M ks ars rs Hp) as [_ Hfit]. specialize (Hfit (S t)). fold xs in Hfit.
  rewrite usage_seq in Hfit by auto. rewrite active_peaks_seq by auto.
  eapply Nat.le_trans.
  - apply (sumf_le _ (fun i => P * req_usage (nth i rs (0, 0)) (nth i xs 0) (S t))).
    intros i Hi. apply in_seq in Hi. apply peak_active. apply HP, nth_In. lia.
  - rewrite sumf_mul_l. rewrite Nat.mul_comm. apply Nat.mul_le_mono_r. exact Hfit.
Qed.
