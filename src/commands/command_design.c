/*
  mbsid design: an optimal input for identifying the parameters b of a model (oscillator2.md, cart_pendulum.md,
  sections 4-9). It evaluates the initial input (F0 = F_max/2, or -input_file), the continuous comparison sine and
  its nodal samples; checks the adjoint gradient against central differences (-design_gradcheck); maximises the
  trace of the Fisher information with TAO on the unconstrained u_k (F_k = psi(u_k)); and reports, for every input,
  Tr M, M, its eigenvalues and condition number, the end states and the identification error surface E_RMS
  (design_error.c). The results go to an HDF5 file whose /input is the optimal input (readable by -input_file).

  Every rank computes the same deterministic problem and the ranks' costs must agree bit for bit; rank 0 writes.
*/
#include "commands/commandimpl.h"

enum {
  CASE_INITIAL,
  CASE_SINE,
  CASE_SINE_NODAL,
  CASE_OPTIMAL,
  NCASE
};
static const char *const MbsDesignCaseNames[NCASE] = {"initial", "sine", "sine_nodal", "optimal"};

typedef struct {
  MbsDesign       d;
  MbsDesignResult cases[NCASE];
} MbsDesignCommand;

static PetscErrorCode MbsDesignCommandDestroy_Private(MbsDesignCommand *dc)
{
  PetscFunctionBeginUser;
  for (PetscInt c = 0; c < NCASE; c++) PetscCall(MbsDesignResultReset(&dc->cases[c]));
  PetscCall(MbsDesignDestroy(&dc->d));
  PetscFunctionReturn(0);
}

static PetscErrorCode MbsDesignRun_Private(MPI_Comm comm, MbsDesignCommand *dc)
{
  MbsDesign              d;
  MbsDesignResult       *cases = dc->cases;
  MbsModel               base, ext;
  const PetscReal       *t_nodes, *F0;
  MbsDesignErrorSettings settings;
  char                   output[PETSC_MAX_PATH_LEN] = "design.h5", csv[PETSC_MAX_PATH_LEN] = "";
  PetscReal              print_times[16] = {0}, step = 1e-3, rtol = 1e-6, J_min, J_max;
  PetscInt               nprint = 16, max_it, iterations = 0, nnodes;
  PetscBool              help, ode, gradcheck = PETSC_FALSE, print_gradient = PETSC_FALSE, error = PETSC_TRUE, times_set, has_type;
  TaoConvergedReason     reason = TAO_CONTINUE_ITERATING;
  PetscMPIInt            rank;
  const MbsDesignSpec   *spec;

  PetscFunctionBeginUser;
  PetscCall(PetscOptionsHasName(NULL, NULL, "-ts_type", &has_type));
  PetscCall(MbsDesignCreate(comm, &dc->d));
  d = dc->d;
  PetscCall(MbsDesignGetModels(d, &base, &ext));
  /* the default integrator of a design: fixed steps, which the sample times and input nodes fall on; Tsitouras 5(4) for
     an ODE, Crank-Nicolson for a DAE (a described model), which has no explicit form */
  if (!has_type) {
    PetscCall(MbsModelAllDifferential(base, &ode));
    PetscCall(PetscOptionsSetValue(NULL, "-ts_type", ode ? "rk" : "cn"));
    if (ode) PetscCall(PetscOptionsSetValue(NULL, "-ts_rk_type", "tsit5"));
    PetscCall(PetscOptionsSetValue(NULL, "-ts_adapt_type", "none"));
  }
  PetscCall(MbsDesignGetSizes(d, NULL, &nnodes, NULL));
  PetscCall(MbsDesignGetInput(d, &t_nodes, &F0));
  PetscCall(MbsDesignErrorSettingsDefault(d, &settings));
  MbsOptionsBegin(comm, NULL, "mbsid design: optimal input for the identification of b", "design");
  PetscCall(MbsOptionsOutputFile(PetscOptionsObject, "-o", "Result file (HDF5)", output, sizeof(output)));
  PetscCall(MbsOptionsOutputFile(PetscOptionsObject, "-design_csv", "Also write the optimal input as CSV t,F (readable by -input_file)", csv, sizeof(csv)));
  PetscCall(MbsModelGetDesignSpec(base, &spec));
  max_it = spec->max_it; /* at most PETSC_MAX_INT/4: the evaluation cap of TAO is 4 max_it + 100 */
  PetscCall(MbsOptionsIntRange(PetscOptionsObject, "-design_max_it", "Most optimiser iterations (default: the spec's; 0: evaluate only)", &max_it, 0, PETSC_MAX_INT / 4, NULL));
  PetscCall(PetscOptionsBool("-design_gradcheck", "Check dJ/dF_k of every node against central differences, then stop", "", gradcheck, &gradcheck, NULL));
  PetscCall(PetscOptionsReal("-design_gradcheck_step", "Step of the central differences, relative to F_max", "", step, &step, NULL));
  PetscCall(PetscOptionsReal("-design_gradcheck_rtol", "Largest relative error accepted", "", rtol, &rtol, NULL));
  PetscCall(PetscOptionsBool("-design_print_gradient", "Print dJ/du_k (scaled cost), dJ/dF_k and dTr/dF_k at the initial input", "", print_gradient, &print_gradient, NULL));
  PetscCall(MbsOptionsRealArray(PetscOptionsObject, "-design_print_states", "Times [s] at which to print the extended state z of the initial and sine inputs", "", 0, print_times, &nprint, &times_set));
  PetscCall(PetscOptionsBool("-design_error", "Evaluate the identification error surface E_RMS of every input", "", error, &error, NULL));
  PetscCall(MbsDesignErrorSetFromOptions(d, PetscOptionsObject, &settings));
  MbsOptionsEnd();
  if (!times_set) nprint = 0;
  PetscCall(PetscOptionsHasHelp(NULL, &help));
  if (help) {
    PetscCall(MbsSimulateHelp(ext ? ext : base)); /* no extended system: a model without a design problem */
    PetscFunctionReturn(0);
  }
  PetscCheck(step > 0 && step < 0.1, comm, PETSC_ERR_ARG_OUTOFRANGE, "-design_gradcheck_step must lie in (0, 0.1), got %g", (double)step);
  PetscCheck(!csv[0] || (max_it > 0 && !gradcheck), comm, PETSC_ERR_ARG_INCOMP, "-design_csv %s writes the optimal input, which only an optimisation computes: give -design_max_it > 0 and no -design_gradcheck", csv);
  PetscCall(MbsDesignCheckSteps(d));
  PetscCall(MbsDesignCheckSampleTimes(d, "-design_print_states", nprint, print_times));
  if (error && !gradcheck) PetscCall(MbsDesignCheckSampleTimes(d, "-design_sample_dt", 1, (PetscReal[]){base->t0 + settings.sample_dt}));
  PetscCall(MbsOptionsCheckUnused(comm, PETSC_FALSE));
  PetscCall(MbsDesignView(d));

  for (PetscInt c = 0; c < NCASE; c++) {
    cases[c].nodal = (PetscBool)(c != CASE_SINE);
    PetscCall(PetscMalloc1(nnodes, &cases[c].F));
  }
  PetscCall(PetscArraycpy(cases[CASE_INITIAL].F, F0, nnodes));
  PetscCall(MbsDesignSineInput(d, cases[CASE_SINE_NODAL].F));

  if (gradcheck) PetscCall(MbsDesignGradcheck(d, step, rtol));
  else {
    if (print_gradient) PetscCall(MbsDesignViewGradient(d));
    for (PetscInt c = 0; c < CASE_OPTIMAL; c++) {
      PetscCall(PetscPrintf(comm, "Evaluating input %s\n", MbsDesignCaseNames[c]));
      PetscCall(MbsDesignResultEvaluate(d, &cases[c], c == CASE_SINE_NODAL ? 0 : nprint, print_times, error, &settings));
    }
    if (max_it > 0) {
      PetscCall(PetscArraycpy(cases[CASE_OPTIMAL].F, F0, nnodes));
      PetscCall(MbsDesignOptimize(d, max_it, cases[CASE_OPTIMAL].F, &iterations, &reason));
      PetscCall(PetscPrintf(comm, "Optimisation: %" PetscInt_FMT " iterations, %s\n", iterations, TaoConvergedReasons[reason]));
      PetscCall(MbsDesignResultEvaluate(d, &cases[CASE_OPTIMAL], 0, print_times, error, &settings));
      /* every rank solved the same problem: the results must be the same bits */
      PetscCallMPI(MPI_Allreduce(&cases[CASE_OPTIMAL].J, &J_min, 1, MPIU_REAL, MPI_MIN, comm));
      PetscCallMPI(MPI_Allreduce(&cases[CASE_OPTIMAL].J, &J_max, 1, MPIU_REAL, MPI_MAX, comm));
      PetscCheck(J_min == J_max, comm, PETSC_ERR_PLIB, "The ranks disagree on the optimal J: %.17g to %.17g", (double)J_min, (double)J_max);
    }
    for (PetscInt c = 0; c < NCASE; c++)
      if (cases[c].done) PetscCall(MbsDesignResultView(d, &cases[c], MbsDesignCaseNames[c]));
    if (cases[CASE_OPTIMAL].done) PetscCall(MbsDesignResultViewGain(d, &cases[CASE_OPTIMAL], &cases[CASE_INITIAL], &cases[CASE_SINE]));

    PetscCallMPI(MPI_Comm_rank(comm, &rank));
    if (rank == 0) {
      MbsH5Writer w;

      PetscCall(MbsH5WriterOpen(output, &w));
      for (PetscInt c = 0; c < NCASE; c++)
        if (cases[c].done) PetscCall(MbsDesignResultWrite(d, &w, &cases[c], MbsDesignCaseNames[c]));
      if (cases[CASE_OPTIMAL].done) {
        PetscCall(MbsInputWrite(&w, "/input", nnodes, t_nodes, cases[CASE_OPTIMAL].F));
        PetscCall(MbsH5WriteAttribute(&w, "/design/optimal", "tao_converged_reason", TaoConvergedReasons[reason]));
      }
      PetscCall(MbsModelWriteIdentity(base, &w, "/design"));
      PetscCall(MbsH5WriteProvenance(&w, comm));
      PetscCall(MbsH5WriterClose(&w));
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "Wrote %s\n", output));
      if (csv[0] && cases[CASE_OPTIMAL].done) {
        PetscCall(MbsInputWriteText(csv, nnodes, t_nodes, cases[CASE_OPTIMAL].F));
        PetscCall(PetscPrintf(PETSC_COMM_SELF, "Wrote %s\n", csv));
      }
    }
  }
  PetscFunctionReturn(0);
}

PetscErrorCode MbsCommandDesign(MPI_Comm comm)
{
  MbsDesignCommand dc;

  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(&dc, sizeof(dc)));
  MbsCallCleanup(MbsDesignRun_Private(comm, &dc), MbsDesignCommandDestroy_Private(&dc));
  PetscFunctionReturn(0);
}
