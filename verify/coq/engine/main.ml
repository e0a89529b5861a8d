(* geosched-coq: the engine's functions of verify/coq/SvfEngine.v, extracted (Extract.v), on
   instances read from stdin.  Input, whitespace-separated decimal integers >= 0 of any size,
   any number of instances until EOF:

     M n  s_1 o_1 ... s_n o_n  k  (k schedules of n starts each)

   Output, per instance:
     starts x_1 ... x_n          (svf_engine M rs, = svf M rs by SvfEngine.svf_engine_eq)
   and, unless the option --starts-only is given:
     tel T                       (tel_engine rs xs, = tel rs xs)
     feasible 0|1                (feasibleb_engine M rs xs, = feasibleb M rs xs)
     checks b_1 ... b_k          (feasibleb_engine on each given schedule)
     tels t_1 ... t_k            (tel_engine of each given schedule)
     sjf y_1 ... y_n             (sjf_engine M rs, = sjf M rs: the same placement by output length)

   Numbers are Zarith integers (no overflow).  A malformed input: one line "bad input: ..." on
   stderr, exit 2.  Lists are built and printed with tail-recursive functions only. *)

exception Bad of string

let read_nonneg what =
  let token = try Scanf.scanf " %s" (fun s -> s) with End_of_file -> "" in
  if token = "" then raise (Bad (Printf.sprintf "%s: truncated" what));
  String.iter (fun c -> if c < '0' || c > '9' then raise (Bad (Printf.sprintf "%s %S is not an integer >= 0" what token))) token;
  Z.of_string token

let read_count what =
  let v = read_nonneg what in
  if not (Z.fits_int v) || Z.to_int v > Sys.max_array_length then raise (Bad (Printf.sprintf "%s %s too large" what (Z.to_string v)));
  Z.to_int v

let read_list count read =
  let rec go k acc = if k = 0 then List.rev acc else go (k - 1) (read () :: acc) in
  go count []

let out = Buffer.create 65536

let line key values to_string =
  Buffer.add_string out key;
  List.iter (fun v -> Buffer.add_char out ' '; Buffer.add_string out (to_string v)) values;
  Buffer.add_char out '\n'

let bit b = if b then "1" else "0"

let one_instance starts_only =
  let m = read_nonneg "M" in
  let n = read_count "n" in
  let rs = read_list n (fun () -> let s = read_nonneg "prompt" in let o = read_nonneg "output" in (s, o)) in
  let k = read_count "schedules" in
  let schedules = read_list k (fun () -> read_list n (fun () -> read_nonneg "start")) in
  let xs = Geosched_coq.svf_engine m rs in
  line "starts" xs Z.to_string;
  if not starts_only then begin
    line "tel" [Geosched_coq.tel_engine rs xs] Z.to_string;
    line "feasible" [Geosched_coq.feasibleb_engine m rs xs] bit;
    line "checks" (List.rev (List.rev_map (fun ys -> Geosched_coq.feasibleb_engine m rs ys) schedules)) bit;
    line "tels" (List.rev (List.rev_map (fun ys -> Geosched_coq.tel_engine rs ys) schedules)) Z.to_string;
    line "sjf" (Geosched_coq.sjf_engine m rs) Z.to_string
  end;
  print_string (Buffer.contents out);
  Buffer.clear out;
  flush stdout

(* true when only whitespace is left on stdin *)
let at_end () = try Scanf.scanf " %0c" (fun _ -> false) with End_of_file -> true

let () =
  let starts_only = Array.exists (fun a -> a = "--starts-only") Sys.argv in
  let count = ref 0 in
  try
    while not (at_end ()) do
      one_instance starts_only;
      incr count
    done
  with
  | Bad why -> Printf.eprintf "bad input: instance %d: %s\n" (!count + 1) why; exit 2
  | Scanf.Scan_failure why | Failure why -> Printf.eprintf "bad input: instance %d: %s\n" (!count + 1) why; exit 2
  | Stack_overflow -> Printf.eprintf "stack overflow: instance %d\n" (!count + 1); exit 4
  | Out_of_memory -> Printf.eprintf "out of memory: instance %d\n" (!count + 1); exit 4
