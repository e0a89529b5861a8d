(* geosched-coq: the Coq SVF, usage, TEL and feasibility, extracted (Extract.v), on instances
   read from stdin.  Input, whitespace-separated integers, any number of instances until EOF:

     M n  s_1 o_1 ... s_n o_n  k  (k schedules of n starts each)

   Output, per instance:
     starts x_1 ... x_n          (Coq svf_fast M rs, which svf_fast_eq proves equal to svf M rs)
     tel T                       (Coq tel rs (svf M rs))
     feasible 0|1                (Coq feasibleb M rs (svf M rs))
     checks b_1 ... b_k          (Coq feasibleb on each given schedule)
     tels t_1 ... t_k            (Coq tel of each given schedule)
     sjf y_1 ... y_n             (Coq sjf M rs: the same placement by output length, SjfFamily.v)

   OCaml ints are 63-bit; the extracted nat operations are exact below max_int.  Every
   instance is refused (one line "refused: ..." on stderr, exit 3) unless every value the
   Coq functions can compute on it stays below 2^61 (see [guard]). *)

let limit = 1 lsl 61

exception Refused of string

let add a b = if a > limit - b then raise (Refused "a sum reaches 2^61") else a + b
let mul a b = if a <> 0 && b > limit / a then raise (Refused "a product reaches 2^61") else a * b

(* Bounds on every value the extracted functions compute (starts, steps, usages, volumes,
   TEL): the SVF starts nobody later than the sum of the outputs (some request runs at every
   step before the last start), a usage is at most the sum of the peaks, a volume at most
   the square of its peak, and a TEL at most n times the last completion. *)
let guard m rs schedules =
  let n = List.length rs in
  let peaks = List.fold_left (fun acc (s, o) -> add acc (add s o)) 0 rs in
  let biggest = List.fold_left (fun acc (s, o) -> max acc (add s o)) 0 rs in
  let latest = List.fold_left (fun acc xs -> List.fold_left max acc xs) 0 schedules in
  let horizon = add (add peaks latest) (add m 1) in
  ignore (mul (add n 1) (mul 2 horizon));
  ignore (add (mul biggest biggest) biggest)

let read_int () = Scanf.scanf " %d" (fun x -> x)

let read_nonneg what =
  let v = read_int () in
  if v < 0 || v > limit then raise (Refused (Printf.sprintf "%s %d outside [0, 2^61]" what v));
  v

let ints xs = String.concat " " (List.map string_of_int xs)
let bit b = if b then "1" else "0"

let one_instance () =
  let m = read_nonneg "M" in
  let n = read_nonneg "n" in
  let rs = List.init n (fun _ -> let s = read_nonneg "prompt" in let o = read_nonneg "output" in (s, o)) in
  let k = read_nonneg "schedules" in
  let schedules = List.init k (fun _ -> List.init n (fun _ -> read_nonneg "start")) in
  guard m rs schedules;
  let xs = Geosched_coq.svf_fast m rs in  (* = svf m rs: SvfFast.svf_fast_eq *)
  Printf.printf "starts %s\ntel %d\nfeasible %s\nchecks %s\ntels %s\nsjf %s\n" (ints xs)
    (Geosched_coq.tel rs xs) (bit (Geosched_coq.feasibleb m rs xs))
    (String.concat " " (List.map (fun ys -> bit (Geosched_coq.feasibleb m rs ys)) schedules))
    (ints (List.map (fun ys -> Geosched_coq.tel rs ys) schedules))
    (ints (Geosched_coq.sjf m rs))

(* true when only whitespace is left on stdin *)
let at_end () = try Scanf.scanf " %0c" (fun _ -> false) with End_of_file -> true

let () =
  let count = ref 0 in
  try
    while not (at_end ()) do
      one_instance ();
      incr count;
      flush stdout
    done
  with
  | Refused why -> Printf.eprintf "refused: instance %d: %s\n" (!count + 1) why; exit 3
  | Scanf.Scan_failure why | Failure why -> Printf.eprintf "bad input: instance %d: %s\n" (!count + 1) why; exit 2
  | End_of_file -> Printf.eprintf "bad input: instance %d: truncated\n" (!count + 1); exit 2
