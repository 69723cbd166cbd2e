/* The checks of the GPU acceptance suite (one function each; see the table
 * in gpu_check.c for what each proves). */
#ifndef GG_GPU_CHECKS_H
#define GG_GPU_CHECKS_H

#include "gc_check.h"

/* checks_faults.c */
void check_stray_store(const gc_env *env, gc_result *r);
void check_culprit_among_pending(const gc_env *env, gc_result *r);
void check_dead_fails_fast(const gc_env *env, gc_result *r);
void check_dead_cleanup_silent(const gc_env *env, gc_result *r);
void check_recover_computes(const gc_env *env, gc_result *r);
void check_trap(const gc_env *env, gc_result *r);
void check_device_assert(const gc_env *env, gc_result *r);
void check_exit_with_dead_context(const gc_env *env, gc_result *r);
void check_new_process_after_fault(const gc_env *env, gc_result *r);
int helper_fault_exit(const gc_env *env);
/* checks_waits.c */
void check_hang_released(const gc_env *env, gc_result *r);
void check_hang_kills(const gc_env *env, gc_result *r);
void check_chunked_slices(const gc_env *env, gc_result *r);
/* checks_process.c */
void check_fork_child(const gc_env *env, gc_result *r);
void check_two_threads(const gc_env *env, gc_result *r);
void check_fault_other_context(const gc_env *env, gc_result *r);
/* checks_faultplan.c */
void check_fault_plan_immediate(const gc_env *env, gc_result *r);
void check_fault_plan_async(const gc_env *env, gc_result *r);
/* checks_bench.c */
void check_bench(const gc_env *env, gc_result *r);
void check_timeline_cost(const gc_env *env, gc_result *r);
/* checks_python.c */
void check_py_module(const gc_env *env, gc_result *r);
void check_py_torch_dlpack(const gc_env *env, gc_result *r);
void check_py_cupy_asarray(const gc_env *env, gc_result *r);
void check_py_torch_tensor_launch(const gc_env *env, gc_result *r);
void check_py_torch_stream(const gc_env *env, gc_result *r);

#endif
