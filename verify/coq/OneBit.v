(** * 1-bit SVF (Kong et al., Thm. 3.3) for a burst: O(T)-competitive.

    [onebit M theta O0 O1 rs] is the strict head-of-line placement ([Hol.v]) in the order of
    the proxy volume: a request (s, o) is short iff o <= theta (the class bit, exact: it is
    computed from the true output), its key is twice the volume of (s, O), O = O0 for short
    and O1 for long requests, ties by position (a stable insertion sort); the forward-looking
    check uses the true lengths.  This is the order of the Python policy
    [svf1:theta=..,short_length=O0,long_length=O1] ([reference_impl/policies.py]: key
    s*O + (O^2 + O)/2, then arrival, then position); [onebit_sim_eq] says the placement is the
    step-by-step process.  The same placement with the volume as the key is SVF
    ([isort_v_key]).

    Theorems (every n, every M, every instance of the hypotheses; T bounds the outputs):
    - [thm33_onebit_E1] (the package's reading E1-E3): all prompts equal, O0 < O1,
      theta = floor(sqrt T):  (M - P) TEL(1-bit SVF) <= (M - P + 2 T M) TEL(S),
      i.e. TEL <= (1 + 2T/(1 - alpha)) TEL(OPT);  [thm33_onebit_E1_sqrt]: with rho^2 >= T,
      (M - P + 2 (2 rho - 1) M): O(sqrt T) under E1.
    - [thm33_onebit] (unequal prompts, any theta): proxies 1 <= O0 < O1 <= T,
      T (T + 1) <= 2 rho^2:  (M - P) TEL <= (M - P + 2 (2 rho - 1) M) TEL(S);
      [thm33_onebit_T] (rho = T): (M - P + 2 (2T - 1) M) TEL(S), O(T) without E1.
    The pair lemmas ([onebit_pair_E1], [onebit_pair]) bound the volume ratio of every pair
    the order places; [Inversion.v] turns that into the competitive ratio. *)

From Coq Require Import Arith Lia List Bool Permutation Sorting.
From GeoSched Require Import Model Svf SvfFacts Sim Prop31 Thm32 Hol Inversion.
Import ListNotations.

(** ** A stable insertion sort by a key *)

Section KeySort.
  Variable key : nat * req -> nat.

  Fixpoint insert_key (a : nat * req) (l : list (nat * req)) : list (nat * req) :=
    match l with
    | [] => [a]
    | b :: l' => if key a <=? key b then a :: l else b :: insert_key a l'
    end.

  Fixpoint isort_key (l : list (nat * req)) : list (nat * req) :=
    match l with
    | [] => []
    | a :: l' => insert_key a (isort_key l')
    end.

  Lemma isort_key_perm : forall l, Permutation (isort_key l) l.
  Proof. apply (insertion_sort_perm (fun a b => key a <=? key b) insert_key); reflexivity. Qed.

  Definition key_le (a b : nat * req) : Prop := key a <= key b.

  Lemma isort_key_sorted : forall l, StronglySorted key_le (isort_key l).
  Proof. apply (key_sort_sorted key insert_key); reflexivity. Qed.
End KeySort.

(** SVF's sort is this sort with the volume as the key. *)
Lemma isort_v_key : forall l, isort_v l = isort_key vol_of l.
Proof.
  assert (Hi : forall a l, insert_v a l = insert_key vol_of a l).
  { intros a l. induction l as [|b l IH]; simpl; try rewrite IH; auto. }
  induction l as [|a l IH]; simpl; try rewrite IH; auto.
Qed.

(** ** 1-bit SVF *)

Definition proxy (theta O0 O1 : nat) (r : req) : nat := if output r <=? theta then O0 else O1.

(** Twice the proxy volume s O + (O^2 + O)/2: the same order and ties as the Python key. *)
Definition onebit_key (theta O0 O1 : nat) (a : nat * req) : nat :=
  volume2 (prompt (snd a), proxy theta O0 O1 (snd a)).

Definition onebit_order (theta O0 O1 : nat) (rs : list req) : list (nat * req) :=
  isort_key (onebit_key theta O0 O1) (combine (seq 0 (length rs)) rs).

Definition onebit (M theta O0 O1 : nat) (rs : list req) : list nat :=
  hol M (onebit_order theta O0 O1 rs) (length rs).

Lemma onebit_order_is_order : forall theta O0 O1 rs, order_of rs (onebit_order theta O0 O1 rs).
Proof. intros; apply isort_key_perm. Qed.

(** the 1-bit SVF's schedule is feasible whenever every peak fits in memory *)
Theorem onebit_feasible : forall M theta O0 O1 rs,
  (forall r, In r rs -> peak r <= M) -> feasible M rs (onebit M theta O0 O1 rs).
Proof. intros; apply hol_feasible; auto using onebit_order_is_order. Qed.

(** [onebit M theta O0 O1 rs] (1-bit SVF: key = twice the proxy volume s O + (O^2 + O)/2, O = O0 if o <= theta
    else O1, ties by position; the forward check with the true lengths) is the step-by-step process in that
    order *)
Theorem onebit_sim_eq : forall M theta O0 O1 rs,
  (forall r, In r rs -> peak r <= M) ->
  hol_sim M (onebit_order theta O0 O1 rs) (length rs) = onebit M theta O0 O1 rs.
Proof.
  intros M theta O0 O1 rs Hp. apply hol_sim_eq. intros a Ha.
  apply Hp, (in_order rs (onebit_order theta O0 O1 rs)); auto using onebit_order_is_order.
Qed.

(** theta = 1, O0 = 1, O1 = 4, M = 10: the long (0, 5) (volume 15) and the short (9, 1)
    (volume 10) have the same key 20 (proxy volumes 10), so the position decides: (0, 5)
    first, and (9, 1) waits until it has finished; SVF starts (9, 1) first. *)
Example onebit_tie : onebit 10 1 1 4 [(0, 5); (9, 1)] = [0; 5] := eq_refl.
Example svf_tie : svf 10 [(0, 5); (9, 1)] = [1; 0] := eq_refl.

(** ** Pairs placed by the 1-bit order *)

Lemma sorted_pairs : forall (Rk Q : nat * req -> nat * req -> Prop) (P : nat * req -> Prop) l,
  StronglySorted Rk l -> (forall a, In a l -> P a) ->
  (forall a b, P a -> P b -> Rk a b -> Q a b) -> ForallOrdPairs Q l.
Proof.
  intros Rk Q P l Hs HP HQ. induction Hs as [|a l Hs IH Hf]; constructor.
  - rewrite Forall_forall in *. intros b Hb. apply HQ; auto; [apply HP; left|apply HP; right]; auto.
  - apply IH. intros b Hb. apply HP. right; auto.
Qed.

Lemma onebit_order_pairs : forall (Q : req -> req -> Prop) (Pr : req -> Prop) theta O0 O1 rs,
  (forall r, In r rs -> Pr r) ->
  (forall a b, Pr (snd a) -> Pr (snd b) -> onebit_key theta O0 O1 a <= onebit_key theta O0 O1 b ->
               Q (snd a) (snd b)) ->
  ForallOrdPairs (fun a b => Q (snd a) (snd b)) (onebit_order theta O0 O1 rs).
Proof.
  intros Q Pr theta O0 O1 rs HP HQ. apply (sorted_pairs _ _ (fun a => Pr (snd a)) _
    (isort_key_sorted (onebit_key theta O0 O1) _)).
  - intros a Ha. apply HP, (in_order rs (onebit_order theta O0 O1 rs)); auto using onebit_order_is_order.
  - intros a b Ha Hb Hk. apply HQ; auto.
Qed.

(** *** Arithmetic of the pairs (volume2 s o = 2 s o + o^2 + o) *)

Lemma short_short : forall s oa ob th T, th * th <= T -> 1 <= oa <= th -> 1 <= ob <= th ->
  2 * s * oa + oa * oa + oa <= T * (2 * s * ob + ob * ob + ob).
Proof.
  intros s oa ob th T Hth Ha Hb.
  assert (th <= th * th) by nia.
  assert (A1 : 2 * s * oa <= 2 * s * T) by (apply Nat.mul_le_mono_l; lia).
  assert (A2 : oa * oa <= th * th) by (apply Nat.mul_le_mono; lia).
  assert (A3 : 2 * s + 2 <= 2 * s * ob + ob * ob + ob) by nia.
  assert (A4 : T * (2 * s + 2) <= T * (2 * s * ob + ob * ob + ob)) by (apply Nat.mul_le_mono_l; auto).
  lia.
Qed.
Lemma long_long : forall s oa ob th T, T < S th * S th -> th < oa <= T -> th < ob <= T ->
  2 * s * oa + oa * oa + oa <= T * (2 * s * ob + ob * ob + ob).
Proof.
  intros s oa ob th T Hth Ha Hb.
  assert (Hsq : S th * S th <= ob * ob) by (apply Nat.mul_le_mono; lia).
  assert (H1 : T * (T + 1) <= T * (ob * ob + ob)) by (apply Nat.mul_le_mono_l; lia).
  assert (H2 : 2 * s * T <= T * (2 * s * ob)) by (replace (T * (2 * s * ob)) with (2 * s * T * ob) by ring; nia).
  assert (H3 : 2 * s * oa <= 2 * s * T) by (apply Nat.mul_le_mono_l; lia).
  assert (H4 : oa * oa <= T * T) by (apply Nat.mul_le_mono; lia).
  lia.
Qed.
Lemma long_short : forall s O0 O1, O0 < O1 -> 2 * s * O1 + O1 * O1 + O1 <= 2 * s * O0 + O0 * O0 + O0 -> False.
Proof.
  intros s O0 O1 H Hk. assert (2 * s * O0 <= 2 * s * O1) by (apply Nat.mul_le_mono_l; lia).
  assert (O0 * O0 <= O1 * O1) by (apply Nat.mul_le_mono; lia). lia.
Qed.
Lemma short_long : forall s oa ob, oa <= ob -> 2 * s * oa + oa * oa + oa <= 2 * s * ob + ob * ob + ob.
Proof.
  intros s oa ob H. assert (2 * s * oa <= 2 * s * ob) by (apply Nat.mul_le_mono_l; lia).
  assert (oa * oa <= ob * ob) by (apply Nat.mul_le_mono; lia). lia.
Qed.

Lemma same_bound : forall sa sb oa ob T, sa <= sb -> 1 <= oa <= T -> 1 <= ob <= T ->
  2 * (2 * sa * oa + oa * oa + oa) <= T * (T + 1) * (2 * sb * ob + ob * ob + ob).
Proof.
  intros sa sb oa ob T Hs Ha Hb. remember (T * (T + 1)) as K eqn:HK.
  assert (C : 2 * T <= K) by (subst K; rewrite (Nat.mul_comm 2 T); apply Nat.mul_le_mono_l; lia).
  assert (B1 : sa * oa <= sb * T) by (apply Nat.mul_le_mono; lia).
  assert (B2 : oa * oa + oa <= K) by (subst K; assert (oa * oa <= T * T) by (apply Nat.mul_le_mono; lia); lia).
  assert (B3 : 2 * sb + 2 <= 2 * sb * ob + ob * ob + ob) by nia.
  assert (B4 : K * (2 * sb + 2) <= K * (2 * sb * ob + ob * ob + ob)) by (apply Nat.mul_le_mono_l; auto).
  assert (B5 : (2 * T) * (2 * sb) <= K * (2 * sb)) by (apply Nat.mul_le_mono_r; auto).
  lia.
Qed.
Lemma short_long_bound : forall sa sb oa ob T O0 O1, 1 <= T -> 1 <= O0 -> O1 <= T -> 1 <= oa -> oa < ob ->
  2 * sa * O0 + O0 * O0 + O0 <= 2 * sb * O1 + O1 * O1 + O1 ->
  2 * (2 * sa * oa + oa * oa + oa) <= T * (T + 1) * (2 * sb * ob + ob * ob + ob).
Proof.
  intros sa sb oa ob T O0 O1 HT H0 H1 Ha Hab Hk. remember (T * (T + 1)) as K eqn:HK.
  assert (K2 : 2 <= K) by (subst K; nia).
  assert (D1 : 2 * sa <= 2 * sb * T + K).
  { assert (2 * sa <= 2 * sa * O0) by nia.
    assert (2 * sb * O1 <= 2 * sb * T) by (apply Nat.mul_le_mono_l; lia).
    assert (O1 * O1 + O1 <= K) by (subst K; assert (O1 * O1 <= T * T) by (apply Nat.mul_le_mono; lia); lia).
    lia. }
  assert (D2 : oa * (2 * sa) <= oa * (2 * sb * T + K)) by (apply Nat.mul_le_mono_l; auto).
  assert (D3 : 2 * sb * (oa + 1) + (oa + 1) * (oa + 1) + (oa + 1) <= 2 * sb * ob + ob * ob + ob).
  { assert (2 * sb * (oa + 1) <= 2 * sb * ob) by (apply Nat.mul_le_mono_l; lia).
    assert ((oa + 1) * (oa + 1) <= ob * ob) by (apply Nat.mul_le_mono; lia). lia. }
  assert (D4 : K * (2 * sb * (oa + 1) + (oa + 1) * (oa + 1) + (oa + 1)) <= K * (2 * sb * ob + ob * ob + ob))
    by (apply Nat.mul_le_mono_l; auto).
  assert (D5 : (2 * oa * T) * (2 * sb) <= ((oa + 1) * K) * (2 * sb)).
  { apply Nat.mul_le_mono_r. subst K. nia. }
  assert (D6 : 2 * (oa * oa + oa) <= K * (oa * oa + oa)) by (apply Nat.mul_le_mono_r; auto).
  lia.
Qed.
Lemma long_short_prompt : forall sa sb O0 O1, O0 < O1 ->
  2 * sa * O1 + O1 * O1 + O1 <= 2 * sb * O0 + O0 * O0 + O0 -> sa <= sb.
Proof.
  intros sa sb O0 O1 H Hk. destruct (Nat.le_gt_cases sa sb); auto. exfalso.
  assert (2 * sb * O0 <= 2 * sa * O1) by (apply Nat.mul_le_mono; lia).
  assert (O0 * O0 <= O1 * O1) by (apply Nat.mul_le_mono; lia). lia.
Qed.
Lemma same_prompt : forall sa sb O, 1 <= O -> 2 * sa * O + O * O + O <= 2 * sb * O + O * O + O -> sa <= sb.
Proof. intros sa sb O H Hk. destruct (Nat.le_gt_cases sa sb); auto. exfalso.
  assert (2 * (sb + 1) * O <= 2 * sa * O) by (apply Nat.mul_le_mono; lia). lia. Qed.

(** Under E1 (equal prompts) with O0 < O1 and theta = floor(sqrt T): every pair the order
    places has v_a <= T v_b.  Short before short: at most v(s, theta) <= T (s + 1); long
    before long: at most v(s, T) <= T v(s, theta + 1), since T + 1 <= (theta + 1)^2; short
    before long: v_a < v_b; long before short is impossible (its key is larger). *)
Lemma onebit_pair_E1 : forall s T O0 O1 a b,
  O0 < O1 -> prompt a = s -> prompt b = s -> 1 <= output a <= T -> 1 <= output b <= T ->
  volume2 (s, proxy (Nat.sqrt T) O0 O1 a) <= volume2 (s, proxy (Nat.sqrt T) O0 O1 b) ->
  volume a <= T * volume b.
Proof.
  intros s T O0 O1 [sa oa] [sb ob] HO Ha Hb Hoa Hob Hk.
  unfold prompt, output, proxy in *; simpl in *; subst sa sb.
  destruct (Nat.sqrt_specif T) as [Hlo Hhi]. set (th := Nat.sqrt T) in *.
  cut (volume2 (s, oa) <= T * volume2 (s, ob)); [rewrite !volume2_eq; lia|].
  unfold volume2, prompt, output in *; simpl in *.
  destruct (Nat.leb_spec oa th), (Nat.leb_spec ob th).
  - apply (short_short s oa ob th T); lia.
  - assert (2 * s * oa + oa * oa + oa <= 2 * s * ob + ob * ob + ob) by (apply short_long; lia). nia.
  - exfalso. apply (long_short s O0 O1); auto.
  - apply (long_long s oa ob th T); lia.
Qed.

(** Unequal prompts, any threshold, proxies 1 <= O0 < O1 <= T: every pair the order places
    has 2 v_a <= T (T + 1) v_b.  Same class: the key orders by prompt, s_a <= s_b; long
    before short: the larger proxy forces s_a <= s_b too; short before long:
    o_a <= theta < o_b and 2 s_a <= 2 s_b T + T (T + 1) (as O0 >= 1 and O1 <= T). *)
Lemma onebit_pair : forall T theta O0 O1 a b,
  1 <= O0 -> O0 < O1 -> O1 <= T -> 1 <= output a <= T -> 1 <= output b <= T ->
  volume2 (prompt a, proxy theta O0 O1 a) <= volume2 (prompt b, proxy theta O0 O1 b) ->
  2 * volume a <= T * (T + 1) * volume b.
Proof.
  intros T theta O0 O1 [sa oa] [sb ob] H0 H01 H1 Hoa Hob Hk.
  unfold prompt, output, proxy in *; simpl in *.
  cut (2 * volume2 (sa, oa) <= T * (T + 1) * volume2 (sb, ob)); [rewrite !volume2_eq; lia|].
  unfold volume2, prompt, output in *; simpl in *.
  destruct (Nat.leb_spec oa theta), (Nat.leb_spec ob theta).
  - apply same_bound; auto. apply (same_prompt sa sb O0); auto.
  - apply (short_long_bound sa sb oa ob T O0 O1); auto; lia.
  - apply same_bound; auto. apply (long_short_prompt sa sb O0 O1); auto.
  - apply same_bound; auto. apply (same_prompt sa sb O1); auto; lia.
Qed.

(** ** Thm. 3.3 *)

(** E1 equal prompts, O0 < O1, theta = floor(sqrt T), outputs in [1, T], S feasible: (M - P) TEL(1-bit SVF) <=
    (M - P + 2TM) TEL(S), i.e. 1 + 2T/(1 - alpha) (kong.thm3.3, the package's reading) *)
Theorem thm33_onebit_E1 : forall M P T s O0 O1 rs xs,
  1 <= T -> O0 < O1 ->
  (forall r, In r rs -> prompt r = s /\ 1 <= output r <= T) ->
  (forall r, In r rs -> peak r <= P) -> feasible M rs xs ->
  (M - P) * tel rs (onebit M (Nat.sqrt T) O0 O1 rs) <= (M - P + 2 * T * M) * tel rs xs.
Proof.
  intros M P T s O0 O1 rs xs HT HO Hr HP Hf. unfold onebit.
  apply (hol_inversion M P T rs _ xs); auto using onebit_order_is_order.
  apply (onebit_order_pairs (fun a b => volume a <= T * volume b)
           (fun r => prompt r = s /\ 1 <= output r <= T)); auto.
  intros a b [Ha Hoa] [Hb Hob] Hk. unfold onebit_key in Hk. rewrite Ha, Hb in Hk.
  apply (onebit_pair_E1 s T O0 O1); auto.
Qed.

(** the same hypotheses, rho^2 >= T: (M - P + 2(2 rho - 1) M): O(sqrt T) under E1 *)
Theorem thm33_onebit_E1_sqrt : forall M P T rho s O0 O1 rs xs,
  1 <= rho -> T <= rho * rho -> O0 < O1 ->
  (forall r, In r rs -> prompt r = s /\ 1 <= output r <= T) ->
  (forall r, In r rs -> peak r <= P) -> feasible M rs xs ->
  (M - P) * tel rs (onebit M (Nat.sqrt T) O0 O1 rs) <= (M - P + 2 * (2 * rho - 1) * M) * tel rs xs.
Proof.
  intros M P T rho s O0 O1 rs xs Hrho HT HO Hr HP Hf. unfold onebit.
  apply (hol_inversion_sqrt M P rho rs _ xs); auto using onebit_order_is_order.
  apply (onebit_order_pairs (fun a b => volume a <= rho * rho * volume b)
           (fun r => prompt r = s /\ 1 <= output r <= T)); auto.
  intros a b [Ha Hoa] [Hb Hob] Hk. unfold onebit_key in Hk. rewrite Ha, Hb in Hk.
  pose proof (onebit_pair_E1 s T O0 O1 (snd a) (snd b) HO Ha Hb Hoa Hob Hk).
  assert (T * volume (snd b) <= rho * rho * volume (snd b)) by (apply Nat.mul_le_mono_r; auto). lia.
Qed.

(** unequal prompts, any theta, proxies 1 <= O0 < O1 <= T: (M - P + 2(2 rho - 1) M) TEL(S) for rho^2 >=
    T(T+1)/2; rho = T: (M - P + 2(2T - 1) M), i.e. O(T) without E1 (kong.thm3.3) *)
Theorem thm33_onebit : forall M P T theta O0 O1 rho rs xs,
  1 <= O0 -> O0 < O1 -> O1 <= T -> 1 <= rho -> T * (T + 1) <= 2 * (rho * rho) ->
  (forall r, In r rs -> 1 <= output r <= T) ->
  (forall r, In r rs -> peak r <= P) -> feasible M rs xs ->
  (M - P) * tel rs (onebit M theta O0 O1 rs) <= (M - P + 2 * (2 * rho - 1) * M) * tel rs xs.
Proof.
  intros M P T theta O0 O1 rho rs xs H0 H01 H1 Hrho HTr Hr HP Hf. unfold onebit.
  apply (hol_inversion_sqrt M P rho rs _ xs); auto using onebit_order_is_order.
  apply (onebit_order_pairs (fun a b => volume a <= rho * rho * volume b)
           (fun r => 1 <= output r <= T)); auto.
  intros a b Hoa Hob Hk. unfold onebit_key in Hk.
  pose proof (onebit_pair T theta O0 O1 (snd a) (snd b) H0 H01 H1 Hoa Hob Hk).
  assert (T * (T + 1) * volume (snd b) <= 2 * (rho * rho) * volume (snd b))
    by (apply Nat.mul_le_mono_r; auto). lia.
Qed.

(** unequal prompts, any theta, proxies 1 <= O0 < O1 <= T: (M - P + 2(2 rho - 1) M) TEL(S) for rho^2 >=
    T(T+1)/2; rho = T: (M - P + 2(2T - 1) M), i.e. O(T) without E1 (kong.thm3.3) *)
Corollary thm33_onebit_T : forall M P T theta O0 O1 rs xs,
  1 <= O0 -> O0 < O1 -> O1 <= T ->
  (forall r, In r rs -> 1 <= output r <= T) ->
  (forall r, In r rs -> peak r <= P) -> feasible M rs xs ->
  (M - P) * tel rs (onebit M theta O0 O1 rs) <= (M - P + 2 * (2 * T - 1) * M) * tel rs xs.
Proof.
  intros M P T theta O0 O1 rs xs H0 H01 H1 Hr HP Hf.
  apply (thm33_onebit M P T theta O0 O1 T); auto; nia.
Qed.
