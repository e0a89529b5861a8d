(* Every main theorem must print "Closed under the global context" (build.sh checks). *)
From GeoSched Require Import Model Svf SvfFacts Volume Prop31 LemmaA2 Thm32 SjfFamily Sim SvfFast SvfCount SvfGroup SvfTriangles SvfPhases MergeSort SvfJump SvfEngine.
Check feasibleb_correct.
Print Assumptions feasibleb_correct.
Check volume2_eq.
Print Assumptions volume2_eq.
Check volume_is_memory_time.
Print Assumptions volume_is_memory_time.
Check Q_eq_pairmin.
Print Assumptions Q_eq_pairmin.
Check prop31_pairmin.
Print Assumptions prop31_pairmin.
Check prop31_lower_bound.
Print Assumptions prop31_lower_bound.
Check svf_sim_eq.
Print Assumptions svf_sim_eq.
Check svf_fast_eq.
Print Assumptions svf_fast_eq.
Check svf_feasible.
Print Assumptions svf_feasible.
Check lemmaA2_head.
Print Assumptions lemmaA2_head.
Check lemmaA2_peak_mass.
Print Assumptions lemmaA2_peak_mass.
Check lemmaA2_occupancy_refuted.
Print Assumptions lemmaA2_occupancy_refuted.
Check svf_starts_bound.
Print Assumptions svf_starts_bound.
Check thm32_svf_competitive.
Print Assumptions thm32_svf_competitive.
Check thm32_svf_feasible.
Print Assumptions thm32_svf_feasible.
Check svf_family_tel.
Print Assumptions svf_family_tel.
Check sjf_family_tel.
Print Assumptions sjf_family_tel.
Check sjf_family_ratio.
Print Assumptions sjf_family_ratio.
Check sjf_not_competitive.
Print Assumptions sjf_not_competitive.
Check running_count_bound.
Print Assumptions running_count_bound.
Check svf_group_start_bound.
Print Assumptions svf_group_start_bound.
Check svf_group_competitive.
Print Assumptions svf_group_competitive.
Check svf_triangles_starts.
Print Assumptions svf_triangles_starts.
Check triangles_staggered_feasible.
Print Assumptions triangles_staggered_feasible.
Check svf_triangles_ratio.
Print Assumptions svf_triangles_ratio.
Check svf_phase_start_bound.
Print Assumptions svf_phase_start_bound.
Check svf_phase_start_bound_abs.
Print Assumptions svf_phase_start_bound_abs.
Check msort_perm.
Print Assumptions msort_perm.
Check msort_sorted.
Print Assumptions msort_sorted.
Check sorted_perm_unique.
Print Assumptions sorted_perm_unique.
Check earliest_eq.
Print Assumptions earliest_eq.
Check place_jump_eq.
Print Assumptions place_jump_eq.
Check svf_engine_eq.
Print Assumptions svf_engine_eq.
Check sjf_engine_eq.
Print Assumptions sjf_engine_eq.
Check tel_engine_eq.
Print Assumptions tel_engine_eq.
Check feasibleb_engine_eq.
Print Assumptions feasibleb_engine_eq.
Check jumps_decrease.
Print Assumptions jumps_decrease.
