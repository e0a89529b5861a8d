(** Extraction of the Coq SVF (and SJF, SjfFamily.v) and of the model's usage, TEL and
    feasibility to OCaml.

    [nat] becomes OCaml's 63-bit [int] (ExtrOcamlNatInt plus the [Nat] operations the
    development uses).  These realizers are exact on non-negative ints as long as no value
    reaches [max_int]: the driver (engine/main.ml) refuses every instance for which a bound
    on every value computed (starts, usages, TEL) could reach 2^61; geosched.verify.coq_engine
    checks the same bound first.  Unary [nat] would be exponentially slow in the values'
    bit length; this mapping is what makes the extracted program usable. *)
From Coq Require Extraction.
From Coq Require Import ExtrOcamlBasic ExtrOcamlNatInt.
From GeoSched Require Import Model Svf SvfFast SjfFamily.

Extraction Language OCaml.

Extract Inlined Constant Coq.Init.Nat.add => "(+)".
Extract Inlined Constant Coq.Arith.PeanoNat.Nat.add => "(+)".
Extract Inlined Constant Coq.Init.Nat.mul => "( * )".
Extract Inlined Constant Coq.Arith.PeanoNat.Nat.mul => "( * )".
Extract Constant Coq.Init.Nat.sub => "fun n m -> Stdlib.max 0 (n - m)".
Extract Constant Coq.Arith.PeanoNat.Nat.sub => "fun n m -> Stdlib.max 0 (n - m)".
Extract Constant Coq.Init.Nat.pred => "fun n -> Stdlib.max 0 (n - 1)".
Extract Constant Coq.Arith.PeanoNat.Nat.pred => "fun n -> Stdlib.max 0 (n - 1)".
Extract Inlined Constant Coq.Init.Nat.max => "Stdlib.max".
Extract Inlined Constant Coq.Arith.PeanoNat.Nat.max => "Stdlib.max".
Extract Inlined Constant Coq.Init.Nat.min => "Stdlib.min".
Extract Inlined Constant Coq.Arith.PeanoNat.Nat.min => "Stdlib.min".
Extract Inlined Constant Coq.Init.Nat.eqb => "(=)".
Extract Inlined Constant Coq.Arith.PeanoNat.Nat.eqb => "(=)".
Extract Inlined Constant Coq.Init.Nat.leb => "(<=)".
Extract Inlined Constant Coq.Arith.PeanoNat.Nat.leb => "(<=)".
Extract Inlined Constant Coq.Init.Nat.ltb => "(<)".
Extract Inlined Constant Coq.Arith.PeanoNat.Nat.ltb => "(<)".
Extract Constant Coq.Init.Nat.div => "fun n m -> if m = 0 then 0 else n / m".
Extract Constant Coq.Arith.PeanoNat.Nat.div => "fun n m -> if m = 0 then 0 else n / m".
Extract Constant Coq.Init.Nat.modulo => "fun n m -> if m = 0 then n else n mod m".
Extract Constant Coq.Arith.PeanoNat.Nat.modulo => "fun n m -> if m = 0 then n else n mod m".
Extract Constant Coq.Init.Nat.compare => "fun n m -> if n = m then Eq else if n < m then Lt else Gt".
Extract Constant Coq.Arith.PeanoNat.Nat.compare => "fun n m -> if n = m then Eq else if n < m then Lt else Gt".

(* The driver runs svf_fast, which SvfFast.svf_fast_eq proves equal to svf for every input
   (finished requests are dropped from the check's sum: several times faster on long bursts). *)
Extraction "geosched_coq.ml" svf svf_fast sjf usage tel feasibleb.
