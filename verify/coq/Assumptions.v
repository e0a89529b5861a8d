(* Every main theorem must print "Closed under the global context" (build.sh checks). *)
From GeoSched Require Import Model Svf SvfFacts Volume Prop31 LemmaA2 Thm32 SjfFamily Sim SvfFast SvfCount SvfGroup SvfTriangles SvfPhases MergeSort SvfJump SvfEngine Hol Inversion LemmaA2Sum OneBit.
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
Check hol_feasible.
Print Assumptions hol_feasible.
Check hol_sim_eq.
Print Assumptions hol_sim_eq.
Check hol_starts_bound.
Print Assumptions hol_starts_bound.
Check hol_inversion.
Print Assumptions hol_inversion.
Check hol_inversion_sqrt.
Print Assumptions hol_inversion_sqrt.
Check thm32_from_inversion.
Print Assumptions thm32_from_inversion.
Check lemmaA2_peak_time.
Print Assumptions lemmaA2_peak_time.
Check lemmaA2_active_precede.
Print Assumptions lemmaA2_active_precede.
Check lemmaA2_double_count.
Print Assumptions lemmaA2_double_count.
Check lemmaA2_wait.
Print Assumptions lemmaA2_wait.
Check lemmaA2_summed.
Print Assumptions lemmaA2_summed.
Check lemmaA2_summed_pairs.
Print Assumptions lemmaA2_summed_pairs.
Check onebit_sim_eq.
Print Assumptions onebit_sim_eq.
Check onebit_feasible.
Print Assumptions onebit_feasible.
Check thm33_onebit_E1.
Print Assumptions thm33_onebit_E1.
Check thm33_onebit_E1_sqrt.
Print Assumptions thm33_onebit_E1_sqrt.
Check thm33_onebit.
Print Assumptions thm33_onebit.
Check thm33_onebit_T.
Print Assumptions thm33_onebit_T.
