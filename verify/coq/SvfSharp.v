(** * The sharper form of Thm. 3.2, its constant 2, and a class with a smaller constant.

    - [svf_sharp_bound]: with every peak <= P, for every feasible schedule S,
        (M - P) TEL(SVF) <= 2 M TEL(S) + (M - P) sum o.
      With alpha = P/M and S = OPT: TEL(SVF)/OPT <= 2/(1 - alpha) + sum(o)/OPT, which is
      Thm. 3.2's 1 + 2/(1 - alpha) less 1 - sum(o)/OPT.  No hypothesis P < M is needed (for
      P >= M the left side is 0).
    - [svf_sharp_bound_tight]: the 2 cannot be lowered: for every c = a/b < 2 some burst
      (the svf-triangles, SvfTriangles.v, with q = 4b and n = 160 b^2) and a feasible S have
        b (M - P) TEL(SVF) > a M TEL(S) + b (M - P) sum o.
    - [svf_prompt_heavy_bound]: if every request has a * o <= b * s (prompt at least
      a/b times the output), then
        (2a + b)(M - P) TEL(SVF) <= 2 (a + b) M TEL(S) + (2a + b)(M - P) sum o,
      i.e. the constant 2 in front of 1/(1 - alpha) becomes 2 (a + b)/(2a + b) < 2 when
      a >= 1 (4/3 when prompts are at least as long as outputs). *)

From Coq Require Import Arith Lia List Bool Permutation Sorting.
From GeoSched Require Import Model Svf SvfFacts Prop31 LemmaA2 Thm32 LemmaA2Head SvfTriangles.
Import ListNotations.

(** ** The sharper bound *)

(** peaks <= P, S feasible: (M - P) TEL(SVF) <= 2M TEL(S) + (M - P) sum o (no P < M needed; svf.sharp_bound,
    svf.heavy_limit) *)
Theorem svf_sharp_bound : forall M P rs xs,
  (forall r, In r rs -> peak r <= P) ->
  feasible M rs xs ->
  (M - P) * tel rs (svf M rs) <= 2 * M * tel rs xs + (M - P) * sumf output rs.
Proof.
  intros M P rs xs HP Hf.
  pose proof (svf_starts_bound M P rs HP) as Hs.
  pose proof (prop31_pairmin M rs xs Hf) as Hq.
  rewrite tel_svf, Nat.mul_add_distr_l. lia.
Qed.

(** ** Prompt-heavy requests: a smaller constant *)

(** (2a + b) p o <= (a + b) * 2 v when a o <= b s. *)
Lemma peak_output_class : forall a b r, a * output r <= b * prompt r ->
  (2 * a + b) * (peak r * output r) <= (a + b) * volume2 r.
Proof.
  intros a b [s o] H. unfold peak, volume2, prompt, output in *. simpl in *.
  assert (a * o * o <= b * s * o) by (apply Nat.mul_le_mono_r; exact H). nia.
Qed.

Lemma before_po_class : forall a b e bb, a * output (fst bb) <= b * prompt (fst bb) ->
  (2 * a + b) * before_po e bb <= 2 * (a + b) * before e bb.
Proof.
  intros a b e bb H. unfold before_po, before. destruct (Nat.ltb (snd bb) (snd e)); [|lia].
  pose proof (peak_output_class a b (fst bb) H). rewrite volume2_eq in *. lia.
Qed.

(** peaks <= P, a o <= b s for every request, S feasible: (2a + b)(M - P) TEL(SVF) <= 2(a + b) M TEL(S) + (2a +
    b)(M - P) sum o (svf.prompt_heavy) *)
Theorem svf_prompt_heavy_bound : forall M P a b rs xs,
  (forall r, In r rs -> peak r <= P) ->
  (forall r, In r rs -> a * output r <= b * prompt r) ->
  feasible M rs xs ->
  (2 * a + b) * (M - P) * tel rs (svf M rs)
  <= 2 * (a + b) * M * tel rs xs + (2 * a + b) * (M - P) * sumf output rs.
Proof.
  intros M P a b rs xs HP Hab Hf. set (sl := svf_js M rs).
  assert (Hin : forall e, In e sl -> In (fst e) rs).
  { intros [r x] He. apply in_svf_js_combine in He. apply in_combine_l in He. auto. }
  (* the waits against the head charges (every peak <= P) *)
  assert (Hw : (M - P) * sumf snd sl <= sumf (fun e => sum_upto (snd e) (head_charge M sl)) sl).
  { rewrite <- sumf_mul_l. apply sumf_le. intros e He. apply wait_le_head_charge; [|exact He].
    intros h Hh _. apply HP, Hin, Hh. }
  (* the head charges against the pairs, with the class factor *)
  assert (Hc : (2 * a + b) * dsum before_po sl <= 2 * (a + b) * dsum before sl).
  { unfold dsum. rewrite <- !sumf_mul_l. apply sumf_le. intros e _.
    rewrite <- !sumf_mul_l. apply sumf_le. intros bb Hbb. apply before_po_class, Hab, Hin, Hbb. }
  pose proof (svf_head_charge_po M rs) as Hpo. fold sl in Hpo.
  assert (Hpm : dsum before sl <= pairmin rs)
    by (rewrite <- (svf_js_pairmin M rs); apply dsum_before_le_pairmin, svf_js_sorted).
  pose proof (prop31_pairmin M rs xs Hf) as Hq.
  assert (H1 : (2 * a + b) * ((M - P) * sumf snd sl) <= 2 * (a + b) * (M * tel rs xs)).
  { eapply Nat.le_trans; [apply Nat.mul_le_mono_l, Hw|].
    eapply Nat.le_trans; [apply Nat.mul_le_mono_l, Hpo|].
    eapply Nat.le_trans; [apply Hc|]. apply Nat.mul_le_mono_l. lia. }
  rewrite tel_svf. fold sl. nia.
Qed.

(** ** The constant 2 is sharp: the triangles *)

Lemma sumf_output_repeat : forall (r : req) n, sumf output (repeat r n) = n * output r.
Proof. intros r n. induction n; simpl; [auto|rewrite IHn; lia]. Qed.

(** The reduced inequality at q = 4 b, p = 8 b - 1, B = 40 b (b = u + 1), a <= 2 b - 1:
    a q (q B - 1 + 2 p) + 2 b (q - 1) p < b (q - 1) p (B + 1). *)
Lemma tight_algebra : forall a u, a <= 2 * u + 1 ->
  a * (4 * u + 4) * (160 * u * u + 336 * u + 173) + 2 * (u + 1) * ((4 * u + 3) * (8 * u + 7))
  < (u + 1) * ((4 * u + 3) * (8 * u + 7)) * (40 * u + 41).
Proof.
  intros a u Ha. set (K := (4 * u + 4) * (160 * u * u + 336 * u + 173)).
  set (D := (4 * u + 3) * (8 * u + 7)).
  assert (a * K <= (2 * u + 1) * K) by (apply Nat.mul_le_mono_r; exact Ha).
  assert (HY : (u + 1) * D * (40 * u + 41) = (2 * u + 1) * K + 2 * (u + 1) * D + (140 * u * u + 267 * u + 127))
    by (unfold K, D; ring).
  rewrite HY. fold K. lia.
Qed.

(** The triangles' two TELs, as closed forms in q = k + 1, p, B and n = q B = n1 + 1, against the
    reduced inequality: both sides are p n / 2 times a side of it.  Kept apart from the instance so
    that [ring] and [lia] see small abstract polynomials only. *)
Lemma tight_reduce : forall a b k p B n1 TS TV,
  S n1 = S k * B -> 0 < p ->
  2 * TS = S n1 * n1 + 2 * p * S n1 ->
  2 * TV = p * S k * B * (B + 1) ->
  a * S k * (n1 + 2 * p) + 2 * b * k * p < b * k * p * (B + 1) ->
  a * (S k * p) * TS + b * (k * p) * (S n1 * p) < b * (k * p) * TV.
Proof.
  intros a b k p B n1 TS TV Hn Hp HS HT Hlt.
  assert (HL : 2 * (a * (S k * p) * TS + b * (k * p) * (S n1 * p))
               = (p * S n1) * (a * S k * (n1 + 2 * p) + 2 * b * k * p)).
  { replace (2 * (a * (S k * p) * TS + b * (k * p) * (S n1 * p)))
      with (a * (S k * p) * (2 * TS) + 2 * (b * (k * p) * (S n1 * p))) by ring.
    rewrite HS. ring. }
  assert (HR : 2 * (b * (k * p) * TV) = (p * S n1) * (b * k * p * (B + 1))).
  { replace (2 * (b * (k * p) * TV)) with (b * (k * p) * (2 * TV)) by ring.
    rewrite HT, Hn. ring. }
  assert (Hpos : 0 < p * S n1) by (apply Nat.mul_pos_pos; lia).
  apply (Nat.mul_lt_mono_pos_l 2); [lia|]. rewrite HL, HR.
  apply Nat.mul_lt_mono_pos_l; assumption.
Qed.

(** for every a < 2b some burst (triangles q = 4b, n = 160 b^2) and feasible S have a M TEL(S) + b (M - P) sum o
    < b (M - P) TEL(SVF): the 2 is sharp (svf.constant_two) *)
Theorem svf_sharp_bound_tight : forall a b, a < 2 * b ->
  exists M P rs xs,
    (forall r, In r rs -> peak r <= P) /\ P < M /\ feasible M rs xs /\
    a * M * tel rs xs + b * (M - P) * sumf output rs < b * (M - P) * tel rs (svf M rs).
Proof.
  intros a b Hab. destruct b as [|u]; [lia|].
  (* q = 4 b, p = 2 q - 1, B = 40 b full batches, n = q B *)
  exists ((4 * u + 4) * (8 * u + 7)), (8 * u + 7),
    (repeat (0, 8 * u + 7) ((4 * u + 4) * (40 * u + 40))), (seq 0 ((4 * u + 4) * (40 * u + 40))).
  assert (Hq : 1 <= 4 * u + 4) by lia.
  assert (Hp : 2 * (4 * u + 4) - 1 = 8 * u + 7) by lia.
  split; [intros r Hr; apply repeat_spec in Hr; subst r; unfold peak, prompt, output; simpl; lia|].
  assert (HMP : (4 * u + 4) * (8 * u + 7) = (8 * u + 7) + (4 * u + 3) * (8 * u + 7)) by ring.
  split; [rewrite HMP; lia|].
  split; [pose proof (triangles_staggered_feasible (4 * u + 4) ((4 * u + 4) * (40 * u + 40)) Hq) as H;
          rewrite Hp in H; exact H|].
  pose proof (triangles_staggered_tel (4 * u + 4) ((4 * u + 4) * (40 * u + 40)) Hq) as HS.
  cbv zeta in HS. rewrite Hp in HS.
  pose proof (svf_triangles_tel (4 * u + 4) (40 * u + 40) Hq) as HT. cbv zeta in HT. rewrite Hp in HT.
  rewrite sumf_output_repeat. unfold output at 1; cbn [snd].
  assert (HD : (4 * u + 4) * (8 * u + 7) - (8 * u + 7) = (4 * u + 3) * (8 * u + 7)) by (rewrite HMP; lia).
  rewrite HD.
  (* n = q B = n1 + 1 *)
  assert (Hn : (4 * u + 4) * (40 * u + 40) = S (160 * u * u + 320 * u + 159)) by ring.
  rewrite Hn in HS, HT |- *. cbn [Nat.sub] in HS. rewrite Nat.sub_0_r in HS.
  replace (4 * u + 4) with (S (4 * u + 3)) by lia. replace (4 * u + 4) with (S (4 * u + 3)) in HT by lia.
  apply (tight_reduce a (S u) (4 * u + 3) (8 * u + 7) (40 * u + 40)); [|lia|exact HS|exact HT|].
  - rewrite <- Hn. ring.
  - pose proof (tight_algebra a u ltac:(lia)) as Halg.
    replace (160 * u * u + 320 * u + 159 + 2 * (8 * u + 7)) with (160 * u * u + 336 * u + 173) by ring.
    replace (S (4 * u + 3)) with (4 * u + 4) by lia. replace (S u) with (u + 1) by lia.
    replace (40 * u + 40 + 1) with (40 * u + 41) by lia.
    eapply Nat.le_lt_trans; [|eapply Nat.lt_le_trans; [exact Halg|]]; apply Nat.eq_le_incl; ring.
Qed.
