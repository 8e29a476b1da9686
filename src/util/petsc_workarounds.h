/*
  Every behaviour of PETSc that mbsid works around, in one list: each workaround is true while the PETSc it is built
  with is known to behave so, and each place that works around it tests its name. They were verified with PETSc
  3.MBS_PETSC_VERIFIED_MINOR (Debian 12). Built with a newer PETSc, test petsc_workarounds fails and lists them, so
  that each is checked again (its test is named beside it) and dropped once PETSc is fixed: a refusal or a slower
  path must not outlive the bug it avoids. Where PETSc names the release with the fix, the version check says so.
*/
#pragma once

#include <petscversion.h>

#define MBS_PETSC_VERIFIED_MINOR 18

/* TSRK's adjoint step forms dg/dU and dg/dp at every stage through SNESComputeJacobian (n + np solves and options
   lookups per stage) where it needs their products with one vector, and the memory trajectory creates s + 1 vectors
   at every step: Runge-Kutta gradients take mbsid's own adjoint step and trajectory type, which go into PETSc's method
   tables through petsc/private/tsimpl.h (adjoint.c, trajectory.c; gradient_work_tsit5_*). On a newer PETSc, check
   that the tables keep these slots, and whether PETSc's own step has become as cheap. Before 3.21.4 PETSc's step
   also added a stale term to dJ/dp on a stage with b_i = 0 before the last (2b, 5f, 5dp, 5bs, 6vr, 7vr, 8vr), which
   mbsid's step does not (gradcheck_rk_*): no return to PETSc's step on an older PETSc */
#define MBS_PETSC_RK_ADJOINT_FORMS_JACOBIANS 1
/* Two-level checkpointing (-ts_trajectory_stride) counts fixed steps: adaptive steps and steps added onto measured
   samples overrun its stack, and so does a stride that does not divide the number of steps (a segfault follows); its
   recomputed Runge-Kutta steps give tsit5 a wrong adjoint; all refused (simulate.c; stride_not_dividing_steps_refused) */
#define MBS_PETSC_STRIDE_FIXED_STEPS_ONLY 1
/* The memory trajectory of a one-stage theta method (theta, beuler) keeps only the stage, and its adjoint works from
   a stale U_n+1 (dJ/dm of oscillator2 1e3 times off): the trajectory keeps step points (simulate.c;
   gradcheck_method_theta_*) */
#define MBS_PETSC_THETA_STALE_END_STATE 1
/* Steps recomputed in the adjoint sweep pass through a step control that lacks its history and may change them: the
   sweep runs with fixed steps (adjoint.c; gradcheck_method_theta_adaptive_*) */
#define MBS_PETSC_ADJOINT_RECOMPUTE_ADAPTS 1
/* PetscOptionsInt wraps a number beyond PetscInt (1000000000000 becomes -727379968) instead of refusing it: the
   value is compared with the text (options.c, MbsOptionsIntRange) */
#define MBS_PETSC_OPTIONS_INT_WRAPS 1
/* -help of a solver prints the options of every nested object without an end marker, and PETSc offers no switch to
   stop that: while a command sets a solver up for -help, PetscHelpPrintf and PetscVFPrintf are swapped for silent ones
   (options.c, MbsHelpMute; help_lists_*) */
#define MBS_PETSC_HELP_NESTED_SOLVERS 1
/* "Input string abc has no numeric value" names no option: the error handler adds it (options.c; bad-input cases
   option_value_*) */
#define MBS_PETSC_VALUE_ERROR_NAMES_NO_OPTION 1
/* TSAdjointSolve's monitor at step 0 receives the time and state of step 1 (the memory trajectory of a theta method
   does not restore the initial state): a cost term at t0 that depends on the state (an accelerometer of a system that
   starts moving) had its dJ/dU and dJ/dp taken at U_1, an error of O(dt) in the gradient (1e-4 of dJ/dk at 1 ms).
   The monitor takes the initial state instead (adjoint.c; gradcheck_element_prescribed_shaker: 4.8e-6 without) */
#define MBS_PETSC_ADJOINT_STEP0_STATE 1

/* MbsStrlcat(s, t, n) appends at most n - strlen(t) bytes of t, not n - strlen(s) - 1: it truncates t where it
   fits (a model's only parameter f_plus became f_ in the default -identify, gradcheck_bushing2_table_default_identify)
   and writes past the buffer where s nearly fills it; every append goes through MbsStrlcat (options.c) */
#define MBS_PETSC_STRLCAT_TRUNCATES 1

/* -help lists an array option with the first value of its default only (-time_span <0.> for 0,1): mbsid's array
   readers print the whole default and mute PETSc's line (options.c, MbsOptionsRealArray; help_array_defaults_*) */
#define MBS_PETSC_HELP_ARRAY_FIRST_VALUE 1

/* name, whether it is in force, and where: for test petsc_workarounds */
#define MBS_PETSC_WORKAROUNDS(X) \
  X(MBS_PETSC_STRLCAT_TRUNCATES, "src/util/options.c") \
  X(MBS_PETSC_RK_ADJOINT_FORMS_JACOBIANS, "src/identification/adjoint.c") \
  X(MBS_PETSC_STRIDE_FIXED_STEPS_ONLY, "src/core/simulate.c") \
  X(MBS_PETSC_THETA_STALE_END_STATE, "src/core/simulate.c") \
  X(MBS_PETSC_ADJOINT_RECOMPUTE_ADAPTS, "src/identification/adjoint.c") \
  X(MBS_PETSC_OPTIONS_INT_WRAPS, "src/util/options.c") \
  X(MBS_PETSC_HELP_NESTED_SOLVERS, "src/util/options.c") \
  X(MBS_PETSC_VALUE_ERROR_NAMES_NO_OPTION, "src/util/options.c") \
  X(MBS_PETSC_ADJOINT_STEP0_STATE, "src/identification/adjoint.c") \
  X(MBS_PETSC_HELP_ARRAY_FIRST_VALUE, "src/util/options.c")
