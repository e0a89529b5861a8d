(** Extraction of the engine's functions (SvfEngine.v) to OCaml, on arbitrary-precision integers.

    The driver (engine/main.ml) runs [svf_engine], [sjf_engine], [tel_engine] and
    [feasibleb_engine], which SvfEngine.v proves equal to [svf], [sjf], [tel] and [feasibleb]
    on every input ([svf_engine_eq], [sjf_engine_eq], [tel_engine_eq], [feasibleb_engine_eq]).

    Trusted base of this mapping (what the proofs do not cover):
    - [nat] is realized by Zarith's [Z.t] (Debian package libzarith-ocaml-dev, GMP-backed):
      [O] is [Z.zero], [S] is [Z.succ], and a match on n is [Z.sign n <= 0] (then [O]) or
      the branch [S] applied to [Z.pred n].  Every value the extracted code builds is >= 0
      (the inputs are checked by the driver, and [Z.succ], the operations below and the
      truncated subtraction keep it so), so this is a bijection onto the values used;
    - the [Nat] operations the engine uses are Zarith's exact operations: [add] is [Z.add],
      [mul] is [Z.mul], [sub] is [max 0 (n - m)] (Coq's truncated subtraction), [max], [min],
      [eqb], [leb] and [ltb] are [Z.max], [Z.min], [Z.equal], [Z.leq] and [Z.lt];
    - [bool], [list], [option] and pairs are OCaml's ([ExtrOcamlBasic]).
    No value can overflow (arbitrary precision), so no range guard is needed; unlike
    [ExtrOcamlNatInt]'s 63-bit [int], which silently wraps past 2^62.  The cost of each
    operation grows with the operands' bit length (constant below 2^62, where Zarith stores
    the value unboxed). *)
From Coq Require Extraction.
From Coq Require Import ExtrOcamlBasic.
From GeoSched Require Import Model SvfEngine.

Extraction Language OCaml.

Extract Inductive nat => "Z.t" [ "Z.zero" "Z.succ" ]
  "(fun fO fS n -> if Z.sign n <= 0 then fO () else fS (Z.pred n))".

Extract Inlined Constant Coq.Init.Nat.add => "Z.add".
Extract Inlined Constant Coq.Arith.PeanoNat.Nat.add => "Z.add".
Extract Inlined Constant Coq.Init.Nat.mul => "Z.mul".
Extract Inlined Constant Coq.Arith.PeanoNat.Nat.mul => "Z.mul".
Extract Constant Coq.Init.Nat.sub => "fun n m -> Z.max Z.zero (Z.sub n m)".
Extract Constant Coq.Arith.PeanoNat.Nat.sub => "fun n m -> Z.max Z.zero (Z.sub n m)".
Extract Inlined Constant Coq.Init.Nat.max => "Z.max".
Extract Inlined Constant Coq.Arith.PeanoNat.Nat.max => "Z.max".
Extract Inlined Constant Coq.Init.Nat.min => "Z.min".
Extract Inlined Constant Coq.Arith.PeanoNat.Nat.min => "Z.min".
Extract Inlined Constant Coq.Init.Nat.eqb => "Z.equal".
Extract Inlined Constant Coq.Arith.PeanoNat.Nat.eqb => "Z.equal".
Extract Inlined Constant Coq.Init.Nat.leb => "Z.leq".
Extract Inlined Constant Coq.Arith.PeanoNat.Nat.leb => "Z.leq".
Extract Inlined Constant Coq.Init.Nat.ltb => "Z.lt".
Extract Inlined Constant Coq.Arith.PeanoNat.Nat.ltb => "Z.lt".

Extraction "geosched_coq.ml" svf_engine sjf_engine tel_engine feasibleb_engine.
