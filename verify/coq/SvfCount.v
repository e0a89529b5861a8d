(** * A counting lemma on a sequence of start steps (used by SvfGroup.v).

    Requests of one type (output o) start at the steps [x 0], ..., [x (k-1)].  After the
    decision at step u, request j is running when x j <= u < x j + o ([runs]); it is
    nearly done when moreover x j + o <= u + L ([nearly_done]).  Suppose that after every
    decision u in [a, a + len) at least q requests run, and at least q + 1 when one of them
    is nearly done.  Then
        (q * o + L) * len <= o * o * k + 3 * o * L,
    i.e. the mean running count over the window is at least q + L/o up to a constant
    ([running_count_bound]).  Each start runs for o decisions, so the sum of the counts
    is at most o * k; the decisions at which one is nearly done make up a fraction >= L/o
    of the window, because the gap between consecutive starts is below o (at least one
    request runs) and each start makes the L decisions before its completion "nearly done".

    The proof of the fraction follows the lag w - (last start <= w): it rises by one per
    step and drops to 0 at each start, always below o in the window; the steps with
    lag < L are counted by an invariant ([lag_invariant]). *)

From Coq Require Import Arith Lia List Bool.
From GeoSched Require Import Model.
Import ListNotations.

Definition b2n (b : bool) : nat := if b then 1 else 0.

(** The number of steps u in [lo, lo + len) with [P u]. *)
Definition count_in (lo len : nat) (P : nat -> bool) : nat :=
  sum_upto len (fun i => b2n (P (lo + i))).

(** ** Sums over [0, n) *)

Lemma sum_upto_add : forall n f g,
  sum_upto n (fun i => f i + g i) = sum_upto n f + sum_upto n g.
Proof. induction n; intros; simpl; [auto|rewrite IHn; lia]. Qed.

Lemma sum_upto_swap : forall n m (f : nat -> nat -> nat),
  sum_upto n (fun i => sum_upto m (fun j => f i j)) = sum_upto m (fun j => sum_upto n (fun i => f i j)).
Proof.
  induction n; intros m f; simpl.
  - clear. induction m; simpl; lia.
  - rewrite IHn. rewrite <- sum_upto_add. auto.
Qed.

Lemma sum_upto_split : forall c m f,
  sum_upto (c + m) f = sum_upto c f + sum_upto m (fun i => f (c + i)).
Proof.
  intros c m f. induction m.
  - rewrite Nat.add_0_r. simpl. lia.
  - rewrite Nat.add_succ_r. simpl. rewrite IHm. lia.
Qed.

Lemma sum_upto_shift : forall n h, sum_upto (S n) h = h 0 + sum_upto n (fun i => h (S i)).
Proof.
  induction n; intros h; [simpl; lia|].
  change (sum_upto (S (S n)) h) with (sum_upto (S n) h + h (S n)). rewrite IHn. simpl. lia.
Qed.

Lemma sum_upto_pos : forall n f, 1 <= sum_upto n f -> exists i, i < n /\ 1 <= f i.
Proof.
  induction n; intros f H; simpl in H; [lia|].
  destruct (Nat.eq_dec (f n) 0) as [E|E].
  - destruct (IHn f ltac:(lia)) as [i [Hi Hf]]. exists i; split; [lia|auto].
  - exists n; split; lia.
Qed.

(** A sum is strictly below another if it is below it everywhere and strictly at one place. *)
Lemma sum_upto_lt_at : forall n f g i0,
  (forall i, i < n -> f i <= g i) -> i0 < n -> f i0 + 1 <= g i0 ->
  sum_upto n f + 1 <= sum_upto n g.
Proof.
  induction n; intros f g i0 Hle Hi0 Hlt; [lia|]. simpl.
  destruct (Nat.eq_dec i0 n) as [->|Hne].
  - pose proof (sum_upto_le n f g (fun i Hi => Hle i ltac:(lia))). lia.
  - pose proof (IHn f g i0 (fun i Hi => Hle i ltac:(lia)) ltac:(lia) Hlt).
    pose proof (Hle n ltac:(lia)). lia.
Qed.

(** Terms that vanish past j do not change a sum over [0, k). *)
Lemma sum_upto_prefix : forall j k f,
  j <= k -> (forall i, j <= i < k -> f i = 0) -> sum_upto k f = sum_upto j f.
Proof.
  intros j k f Hjk H. replace k with (j + (k - j)) by lia. rewrite sum_upto_split.
  rewrite (sum_upto_ext (k - j) _ (fun _ => 0)) by (intros; apply H; lia).
  rewrite sum_upto_const. lia.
Qed.

Lemma b2n_le_1 : forall b, b2n b <= 1.
Proof. destruct b; simpl; lia. Qed.

(** The steps of [lo, lo + len) inside an interval [from, upto) are at most upto - from. *)
Lemma count_interval : forall lo len from upto,
  from <= upto ->
  sum_upto len (fun i => b2n ((from <=? lo + i) && (lo + i <? upto))) <= upto - from.
Proof.
  intros lo len from upto Hle.
  assert (H : sum_upto len (fun i => b2n ((from <=? lo + i) && (lo + i <? upto)))
              = Nat.min (lo + len) upto - Nat.min (lo + len) (Nat.max lo from)).
  { induction len; simpl; [lia|]. rewrite IHlen. unfold b2n.
    destruct (Nat.leb_spec from (lo + len)), (Nat.ltb_spec (lo + len) upto); cbn [andb]; lia. }
  rewrite H. lia.
Qed.

Section Counting.

Variables (o q L k : nat) (x : nat -> nat).

Definition runs (j u : nat) : bool := (x j <=? u) && (u <? x j + o).
Definition running (u : nat) : nat := sum_upto k (fun j => b2n (runs j u)).
Definition nearly_done (j u : nat) : bool := runs j u && (x j + o <=? u + L).
Definition nearly (u : nat) : nat := sum_upto k (fun j => b2n (nearly_done j u)).
Definition bonus (u : nat) : bool := 1 <=? nearly u.

(** The latest start <= w (0 when there is none), over the first m requests. *)
Fixpoint last_start (m w : nat) : nat :=
  match m with
  | 0 => 0
  | S m' => if x m' <=? w then Nat.max (last_start m' w) (x m') else last_start m' w
  end.

Definition lag (w : nat) : nat := w - last_start k w.

Definition is_start (w : nat) : bool := existsb (fun j => x j =? w) (seq 0 k).

(** ** Each start runs for o decisions *)

Lemma running_sum_le : forall a len, sum_upto len (fun i => running (a + i)) <= o * k.
Proof.
  intros a len. unfold running. rewrite sum_upto_swap.
  rewrite Nat.mul_comm, <- sum_upto_const.
  apply sum_upto_le. intros j _. unfold runs.
  pose proof (count_interval a len (x j) (x j + o) ltac:(lia)). lia.
Qed.

(** ** The latest start and the lag *)

Lemma last_start_le : forall m w, last_start m w <= w.
Proof.
  induction m; intros w; simpl; [lia|].
  destruct (Nat.leb_spec (x m) w); specialize (IHm w); lia.
Qed.

Lemma last_start_ge : forall m w j, j < m -> x j <= w -> x j <= last_start m w.
Proof.
  induction m; intros w j Hj Hx; simpl; [lia|].
  destruct (Nat.eq_dec j m) as [->|Hne].
  - destruct (Nat.leb_spec (x m) w); lia.
  - specialize (IHm w j ltac:(lia) Hx). destruct (Nat.leb_spec (x m) w); lia.
Qed.

Lemma last_start_cases : forall m w,
  ((forall j, j < m -> w < x j) /\ last_start m w = 0) \/ exists j, j < m /\ x j = last_start m w.
Proof.
  induction m; intros w; simpl; [left; split; [intros; lia|auto]|].
  destruct (Nat.leb_spec (x m) w) as [Hm|Hm]; destruct (IHm w) as [[Hall E]|[j [Hj E]]].
  - right. exists m; split; [lia|]. rewrite E. lia.
  - right. destruct (Nat.le_gt_cases (x m) (x j)).
    + exists j; split; [lia|]. lia.
    + exists m; split; [lia|]. lia.
  - left. split; [|auto]. intros j Hj. destruct (Nat.eq_dec j m) as [->|]; [lia|apply Hall; lia].
  - right. exists j; split; [lia|auto].
Qed.

Lemma last_start_attained : forall m w,
  (exists j, j < m /\ x j <= w) -> exists j, j < m /\ x j = last_start m w.
Proof.
  intros m w [j0 [Hj0 Hx0]]. destruct (last_start_cases m w) as [[Hall _]|H]; auto.
  specialize (Hall j0 Hj0). lia.
Qed.

Lemma is_start_spec : forall w, is_start w = true <-> exists j, j < k /\ x j = w.
Proof.
  intros w. unfold is_start. rewrite existsb_exists. split.
  - intros [j [Hj E]]. apply in_seq in Hj. apply Nat.eqb_eq in E. exists j; split; [lia|auto].
  - intros [j [Hj E]]. exists j; split; [apply in_seq; lia|apply Nat.eqb_eq; auto].
Qed.

Lemma last_start_no_new : forall m w,
  (forall j, j < m -> x j <> S w) -> last_start m (S w) = last_start m w.
Proof.
  induction m; intros w H; simpl; auto.
  rewrite IHm by (intros; apply H; lia). specialize (H m ltac:(lia)).
  destruct (Nat.leb_spec (x m) (S w)), (Nat.leb_spec (x m) w); lia.
Qed.

Lemma lag_at_start : forall w, is_start (S w) = true -> lag (S w) = 0.
Proof.
  intros w H. apply is_start_spec in H. destruct H as [j [Hj E]]. unfold lag.
  pose proof (last_start_ge k (S w) j Hj ltac:(lia)). pose proof (last_start_le k (S w)). lia.
Qed.

Lemma lag_no_start : forall w, is_start (S w) = false -> lag (S w) = S (lag w).
Proof.
  intros w H. unfold lag. rewrite last_start_no_new.
  - pose proof (last_start_le k w). lia.
  - intros j Hj E. assert (is_start (S w) = true) by (apply is_start_spec; eauto). congruence.
Qed.

(** A running request bounds the lag by o. *)
Lemma lag_lt_o : forall u, 1 <= running u -> lag u < o.
Proof.
  intros u H. unfold running in H. apply sum_upto_pos in H. destruct H as [j [Hj Hr]].
  unfold b2n, runs in Hr. destruct (Nat.leb_spec (x j) u), (Nat.ltb_spec u (x j + o)); simpl in Hr; try lia.
  pose proof (last_start_ge k u j Hj ltac:(lia)). unfold lag. lia.
Qed.

Lemma running_start : forall u, 1 <= running u -> exists j, j < k /\ x j <= u.
Proof.
  intros u H. unfold running in H. apply sum_upto_pos in H. destruct H as [j [Hj Hr]].
  unfold b2n, runs in Hr. destruct (Nat.leb_spec (x j) u); simpl in Hr; [exists j; auto|lia].
Qed.

(** ** The steps with lag < L: at least L of every o, from an invariant *)

Definition low_lag (w : nat) : bool := lag w <? L.

Lemma lag_invariant : forall a len,
  L <= o -> (forall i, i < len -> lag (a + i) < o) ->
  L * (len - lag (a + len)) + o * Nat.min (lag (a + len)) L <= o * count_in a len low_lag + o * L.
Proof.
  intros a len HLo Hlag. induction len.
  - rewrite Nat.add_0_r. unfold count_in. simpl.
    assert (Nat.min (lag a) L <= L) by lia. nia.
  - unfold count_in in *. simpl. rewrite Nat.add_succ_r.
    specialize (IHlen (fun i Hi => Hlag i ltac:(lia))). specialize (Hlag len ltac:(lia)).
    set (d := lag (a + len)) in *. set (c := sum_upto len (fun i => b2n (low_lag (a + i)))) in *.
    assert (Hb : b2n (low_lag (a + len)) = if d <? L then 1 else 0) by reflexivity.
    destruct (is_start (S (a + len))) eqn:Hs.
    + rewrite lag_at_start by auto. replace (Nat.min 0 L) with 0 by lia. replace (S len - 0) with (S len) by lia.
      destruct (Nat.ltb_spec d L) as [HdL|HdL]; rewrite Hb.
      * rewrite Nat.min_l in IHlen by lia.
        assert (L * (S d) <= o * (S d)) by (apply Nat.mul_le_mono_r; lia). nia.
      * rewrite Nat.min_r in IHlen by lia.
        assert (L * (S d) <= L * o) by (apply Nat.mul_le_mono_l; lia). nia.
    + rewrite lag_no_start by auto. fold d. replace (S len - S d) with (len - d) by lia.
      destruct (Nat.ltb_spec d L) as [HdL|HdL]; rewrite Hb.
      * rewrite Nat.min_l in IHlen by lia. rewrite Nat.min_l by lia. nia.
      * rewrite Nat.min_r in IHlen by lia. rewrite Nat.min_r by lia. nia.
Qed.

(** A step of low lag makes the step o - L later one with a nearly done request. *)
Lemma low_lag_bonus : forall w,
  L < o -> (exists j, j < k /\ x j <= w) -> low_lag w = true -> bonus (w + (o - L)) = true.
Proof.
  intros w HLo Hex Hlow. unfold low_lag, lag in Hlow. apply Nat.ltb_lt in Hlow.
  destruct (last_start_attained k w Hex) as [j [Hj E]].
  pose proof (last_start_le k w).
  unfold bonus, nearly. apply Nat.leb_le.
  apply Nat.le_trans with (b2n (nearly_done j (w + (o - L)))).
  - unfold nearly_done, runs, b2n.
    destruct (Nat.leb_spec (x j) (w + (o - L))), (Nat.ltb_spec (w + (o - L)) (x j + o)),
      (Nat.leb_spec (x j + o) (w + (o - L) + L)); cbn [andb]; lia.
  - replace k with (S j + (k - S j)) by lia. rewrite sum_upto_split. simpl. lia.
Qed.

(** ** The bound *)

(** starts x_0..x_{k-1} of output o; if after every decision in [a, a+len) at least q run, and q+1 when one has
    <= L steps left (L < o), then (q o + L) len <= o^2 k + 3 o L *)
Theorem running_count_bound : forall a len,
  L < o -> 1 <= q -> (exists j, j < k /\ x j <= a) ->
  (forall u, a <= u < a + len -> q + b2n (bonus u) <= running u) ->
  (q * o + L) * len <= o * o * k + 3 * o * L.
Proof.
  intros a len HLo Hq Hex H.
  (* the sum of the counts: at most o k, at least q len + (the steps with a bonus) *)
  set (S := sum_upto len (fun i => running (a + i))).
  assert (HSle : S <= o * k) by apply running_sum_le.
  set (B := count_in a len bonus).
  assert (HSge : q * len + B <= S).
  { unfold S, B, count_in. replace (q * len) with (sum_upto len (fun _ => q)) by (rewrite sum_upto_const; lia).
    rewrite <- sum_upto_add.
    apply sum_upto_le. intros i Hi. apply H. lia. }
  (* the bonus steps: at least the low-lag steps of [a, a + len - (o - L)) *)
  set (len2 := len - (o - L)).
  assert (HB : count_in a len2 low_lag <= B).
  { destruct (Nat.le_gt_cases len (o - L)) as [Hs|Hs].
    - unfold len2. replace (len - (o - L)) with 0 by lia. unfold count_in. simpl. lia.
    - unfold B, count_in. replace len with ((o - L) + len2) by (unfold len2; lia).
      rewrite sum_upto_split. apply Nat.le_trans with (sum_upto len2 (fun i => b2n (bonus (a + (o - L + i))))); [|lia].
      apply sum_upto_le. intros i Hi.
      destruct (low_lag (a + i)) eqn:E; simpl; [|lia].
      replace (a + (o - L + i)) with ((a + i) + (o - L)) by lia.
      rewrite low_lag_bonus; simpl; auto.
      destruct Hex as [j [Hj Hx]]. exists j; split; [auto|lia]. }
  (* every step of the window runs a request, so the lag stays below o *)
  assert (Hlag : forall i, i <= len2 -> len2 < len -> lag (a + i) < o).
  { intros i Hi Hl. apply lag_lt_o. specialize (H (a + i) ltac:(lia)). lia. }
  destruct (Nat.le_gt_cases len (o - L)) as [Hsmall|Hbig].
  - (* a short window: (q o + L) len <= (q o + L)(o - L) <= ... *)
    assert (Hk : q * len <= o * k) by lia.
    assert (L * len <= L * o) by (apply Nat.mul_le_mono_l; lia).
    assert (o * (q * len) <= o * (o * k)) by (apply Nat.mul_le_mono_l; auto). nia.
  - assert (Hl2 : len2 < len) by (unfold len2; lia).
    pose proof (lag_invariant a len2 ltac:(lia) (fun i Hi => Hlag i ltac:(lia) Hl2)) as Hinv.
    pose proof (Hlag len2 ltac:(lia) Hl2) as Hd.
    set (d := lag (a + len2)) in *.
    set (C := count_in a len2 low_lag) in *.
    assert (L * (len2 - d) >= L * (len - 2 * o)) by (apply Nat.mul_le_mono_l; unfold len2; lia).
    assert (Hol : o * (q * len + B) <= o * (o * k)) by (apply Nat.mul_le_mono_l; lia).
    assert (o * C <= o * B) by (apply Nat.mul_le_mono_l; auto).
    assert (L * len <= L * (len - 2 * o) + 2 * o * L) by nia.
    nia.
Qed.

End Counting.
