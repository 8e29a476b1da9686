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
#include <petsctao.h>
#include <petscblaslapack.h>

enum {
  CASE_INITIAL,
  CASE_SINE,
  CASE_SINE_NODAL,
  CASE_OPTIMAL,
  NCASE
};
static const char *const MbsDesignCaseNames[NCASE] = {"initial", "sine", "sine_nodal", "optimal"};

typedef struct {
  PetscBool      done, nodal;
  PetscReal     *F; /* nodal forces (nodal cases) */
  PetscReal      J, trace, M[MBS_DESIGN_MAX_PARAMETERS * MBS_DESIGN_MAX_PARAMETERS], eig[MBS_DESIGN_MAX_PARAMETERS], condition;
  PetscReal     *z_end;
  PetscInt       nstates; /* extended states at the -design_print_states times */
  PetscReal     *states, *state_times;
  MbsDesignError error;
} MbsDesignCase;

typedef struct {
  MbsDesign  design;
  PetscReal *F, *dJdF;
  PetscInt   nevals;
  PetscReal  J_prev;
  MPI_Comm   comm;
} MbsDesignOptimizer;

/* A cost that overflows comes from forces too large for the model, not from the optimiser */
static PetscErrorCode MbsDesignCheckFinite_Private(MbsDesign d, PetscReal J, const char where[])
{
  PetscFunctionBeginUser;
  PetscCheck(!PetscIsInfOrNanReal(J), PETSC_COMM_SELF, PETSC_ERR_FP, "The design cost J of %s is %g: the response to forces up to -design_force_max %g N overflows; lower -design_force_max", where, (double)J, (double)d->force_max);
  PetscFunctionReturn(0);
}

/* J/scale and its gradient in u for TAO */
static PetscErrorCode MbsDesignObjective(Tao tao, Vec U, PetscReal *f, Vec G, void *ptr)
{
  MbsDesignOptimizer *opt = (MbsDesignOptimizer *)ptr;
  MbsDesign           d   = opt->design;
  const PetscScalar  *u;
  PetscScalar        *g;
  PetscReal           J;
  PetscBool           ok;

  PetscFunctionBeginUser;
  PetscCall(VecGetArrayRead(U, &u));
  for (PetscInt k = 0; k < d->nnodes; k++) opt->F[k] = MbsDesignPsi(d, u[k]);
  PetscCall(MbsDesignGradient(d, opt->F, d->end_weight, &J, opt->dJdF, &ok));
  PetscCheck(ok, PETSC_COMM_SELF, PETSC_ERR_NOT_CONVERGED, "The integration of the sensitivity system failed during the optimisation (evaluation %" PetscInt_FMT "); see -ts_monitor", opt->nevals);
  PetscCall(MbsDesignCheckFinite_Private(d, J, "an optimiser's input"));
  PetscCall(VecGetArrayWrite(G, &g));
  for (PetscInt k = 0; k < d->nnodes; k++) g[k] = MbsDesignPsiDerivative(d, u[k]) * opt->dJdF[k] / d->cost_scale;
  PetscCall(VecRestoreArrayWrite(G, &g));
  PetscCall(VecRestoreArrayRead(U, &u));
  *f = J / d->cost_scale;
  opt->nevals++;
  PetscFunctionReturn(0);
}

/* One progress line per iteration; stops when the relative reduction of J falls below 1e-12 (the specs' rule) */
static PetscErrorCode MbsDesignMonitor(Tao tao, void *ptr)
{
  MbsDesignOptimizer *opt = (MbsDesignOptimizer *)ptr;
  PetscInt            it;
  PetscReal           f, gnorm;

  PetscFunctionBeginUser;
  PetscCall(TaoGetSolutionStatus(tao, &it, &f, &gnorm, NULL, NULL, NULL));
  PetscCall(PetscPrintf(opt->comm, "  design iteration %4" PetscInt_FMT ": J/scale = % .12e  |grad| = %.3e  (%" PetscInt_FMT " solves)\n", it, (double)f, (double)gnorm, opt->nevals));
  if (it > 0 && PetscAbsReal(opt->J_prev - f) <= 1e-12 * PetscAbsReal(f)) PetscCall(TaoSetConvergedReason(tao, TAO_CONVERGED_USER));
  opt->J_prev = f;
  PetscFunctionReturn(0);
}

static PetscErrorCode MbsDesignOptimize_Private(MbsDesign d, PetscInt max_it, PetscReal F[], PetscInt *iterations, TaoConvergedReason *reason)
{
  MbsDesignOptimizer opt = {d, NULL, NULL, 0, PETSC_INFINITY, d->comm};
  Tao                tao;
  Vec                U;
  PetscScalar       *u;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc2(d->nnodes, &opt.F, d->nnodes, &opt.dJdF));
  PetscCall(VecCreateSeq(PETSC_COMM_SELF, d->nnodes, &U));
  PetscCall(VecGetArrayWrite(U, &u));
  for (PetscInt k = 0; k < d->nnodes; k++) u[k] = MbsDesignPsiInverse(d, F[k]);
  PetscCall(VecRestoreArrayWrite(U, &u));
  PetscCall(TaoCreate(PETSC_COMM_SELF, &tao));
  PetscCall(TaoSetOptionsPrefix(tao, "design_"));
  PetscCall(TaoSetType(tao, TAOLMVM));
  PetscCall(TaoSetMaximumIterations(tao, max_it));
  PetscCall(TaoSetMaximumFunctionEvaluations(tao, 4 * max_it + 100));
  PetscCall(TaoSetTolerances(tao, 0, 0, 0));
  PetscCall(TaoSetSolution(tao, U));
  PetscCall(TaoSetObjectiveAndGradient(tao, NULL, MbsDesignObjective, &opt));
  PetscCall(TaoSetMonitor(tao, MbsDesignMonitor, &opt, NULL));
  PetscCall(TaoSetFromOptions(tao));
  PetscCall(TaoSolve(tao));
  PetscCall(TaoGetConvergedReason(tao, reason));
  PetscCall(TaoGetIterationNumber(tao, iterations));
  PetscCall(VecGetArrayWrite(U, &u));
  for (PetscInt k = 0; k < d->nnodes; k++) F[k] = MbsDesignPsi(d, u[k]);
  PetscCall(VecRestoreArrayWrite(U, &u));
  PetscCall(TaoDestroy(&tao));
  PetscCall(VecDestroy(&U));
  PetscCall(PetscFree2(opt.F, opt.dJdF));
  PetscFunctionReturn(0);
}

/* Central differences of J in every node against the adjoint (J is quadratic in F for a linear model) */
static PetscErrorCode MbsDesignGradcheck_Private(MbsDesign d, const PetscReal F0[], PetscReal step, PetscReal rtol, PetscReal rho)
{
  PetscReal *F, *g, J, Jp, Jm, worst = 0, scale = 0, fd_k;
  PetscBool  ok;
  PetscInt   kworst = 0;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc2(d->nnodes, &F, d->nnodes, &g));
  PetscCall(PetscArraycpy(F, F0, d->nnodes));
  PetscCall(MbsDesignGradient(d, F, rho, &J, g, &ok));
  PetscCall(MbsDesignCheckOk(d, ok));
  for (PetscInt k = 0; k < d->nnodes; k++) scale = PetscMax(scale, PetscAbsReal(g[k]));
  for (PetscInt k = 0; k < d->nnodes; k++) {
    PetscReal h = step * d->force_max, err;

    F[k] = F0[k] + h;
    PetscCall(MbsDesignGradient(d, F, rho, &Jp, NULL, &ok));
    PetscCall(MbsDesignCheckOk(d, ok));
    F[k] = F0[k] - h;
    PetscCall(MbsDesignGradient(d, F, rho, &Jm, NULL, &ok));
    PetscCall(MbsDesignCheckOk(d, ok));
    F[k] = F0[k];
    fd_k = (Jp - Jm) / (2 * h);
    err  = PetscAbsReal(g[k] - fd_k) / PetscMax(PetscAbsReal(fd_k), 1e-8 * scale);
    if (err > worst) {
      worst  = err;
      kworst = k;
    }
  }
  PetscCall(PetscFree2(F, g));
  PetscCall(PetscPrintf(d->comm, "Gradient check of J (rho = %g) in all %" PetscInt_FMT " nodes, central differences with h = %g N: largest relative error %.3e at node %" PetscInt_FMT "\n", (double)rho, d->nnodes, (double)(step * d->force_max), (double)worst, kworst));
  PetscCheck(worst <= rtol, d->comm, PETSC_ERR_PLIB, "Design gradient check FAILED: largest relative error %.3e exceeds -design_gradcheck_rtol %g", (double)worst, (double)rtol);
  PetscCall(PetscPrintf(d->comm, "Design gradient check passed: %.3e <= %g\n", (double)worst, (double)rtol));
  PetscFunctionReturn(0);
}

static PetscErrorCode MbsDesignCaseEvaluate_Private(MbsDesign d, MbsDesignCase *c, PetscInt nprint, const PetscReal print_times[], PetscBool error, const MbsDesignErrorSettings *settings)
{
  MbsDesignSamples samples = {nprint, 0, (PetscReal *)print_times, NULL};
  PetscInt         N       = d->ext->n;

  PetscFunctionBeginUser;
  PetscCall(MbsDesignSetInput(d, c->nodal ? c->F : NULL));
  PetscCall(PetscMalloc1(N, &c->z_end));
  PetscCall(PetscMalloc1(nprint * N + 1, &samples.z));
  PetscCall(PetscMalloc1(nprint + 1, &c->state_times));
  PetscCall(PetscArraycpy(c->state_times, print_times, nprint));
  c->nstates = nprint;
  c->states  = samples.z;
  PetscCall(MbsDesignSample(d, d->end_weight, &samples, &c->J, &c->trace, c->M, c->z_end));
  PetscCall(MbsDesignCheckFinite_Private(d, c->J, "an input"));
  PetscCall(MbsDesignEigen(d->nb, c->M, c->eig, NULL, &c->condition));
  c->done = PETSC_TRUE;
  for (PetscInt i = 0; i < nprint; i++) {
    PetscCall(PetscPrintf(d->comm, "  z(t = %g s):", (double)print_times[i]));
    for (PetscInt k = 0; k < N; k++) PetscCall(PetscPrintf(d->comm, " % .12e", (double)samples.z[i * N + k]));
    PetscCall(PetscPrintf(d->comm, "\n"));
  }
  if (error) PetscCall(MbsDesignErrorCompute(d, settings, &c->error));
  PetscFunctionReturn(0);
}

static PetscErrorCode MbsDesignCaseView_Private(MbsDesign d, const MbsDesignCase *c, const char name[])
{
  PetscInt n = d->base->n;

  PetscFunctionBeginUser;
  PetscCall(PetscPrintf(d->comm, "Input %s: Tr M = %.12e", name, (double)c->trace));
  if (d->nb > 1)
    for (PetscInt j = 0; j < d->nb; j++) PetscCall(PetscPrintf(d->comm, "  (d%s/d%s term %.12e)", d->base->output_name, d->base->param_info[d->b[j]].name, (double)c->M[j * d->nb + j]));
  PetscCall(PetscPrintf(d->comm, "\n  J = %.12e (J/scale = %.12e), eigenvalues of M:", (double)c->J, (double)(c->J / d->cost_scale)));
  for (PetscInt j = 0; j < d->nb; j++) PetscCall(PetscPrintf(d->comm, " %.12e", (double)c->eig[j]));
  PetscCall(PetscPrintf(d->comm, ", condition %.6e\n  end state U(tf):", (double)c->condition));
  for (PetscInt i = 0; i < n; i++) PetscCall(PetscPrintf(d->comm, " % .12e", (double)c->z_end[i]));
  PetscCall(PetscPrintf(d->comm, "\n"));
  if (c->error.done) PetscCall(MbsDesignErrorView(d, &c->error));
  PetscFunctionReturn(0);
}

static PetscErrorCode MbsDesignCaseWrite_Private(MbsDesign d, MbsH5Writer *w, const MbsDesignCase *c, const char name[])
{
  char     path[256], fisher[256];
  PetscInt nb = d->nb, nb2[2] = {d->nb, d->nb}, N = d->ext->n;
  /* the extended state: U in the model's units, then S_j = dU/db_j */
  const char *state = "U (the model's state), then dU/db_j for each design parameter b_j";

  PetscFunctionBeginUser;
  PetscCall(MbsDesignUnits(d, " s", fisher, sizeof(fisher))); /* M = int y_b y_b^T dt */
  PetscCall(PetscSNPrintf(path, sizeof(path), "/design/%s", name));
  if (c->nodal) PetscCall(MbsInputWrite(w, path, d->nnodes, d->t_nodes, c->F));
  PetscCall(PetscSNPrintf(path, sizeof(path), "/design/%s/fisher", name));
  PetscCall(MbsH5WriteReals(w, path, 2, nb2, c->M, fisher));
  PetscCall(PetscSNPrintf(path, sizeof(path), "/design/%s/fisher_eigenvalues", name));
  PetscCall(MbsH5WriteReals(w, path, 1, &nb, c->eig, fisher));
  PetscCall(PetscSNPrintf(path, sizeof(path), "/design/%s/trace", name));
  PetscCall(MbsH5WriteReals(w, path, 1, (PetscInt[]){1}, &c->trace, fisher));
  PetscCall(PetscSNPrintf(path, sizeof(path), "/design/%s/condition", name));
  PetscCall(MbsH5WriteReals(w, path, 1, (PetscInt[]){1}, &c->condition, "1"));
  PetscCall(PetscSNPrintf(path, sizeof(path), "/design/%s/J", name));
  PetscCall(MbsH5WriteReals(w, path, 1, (PetscInt[]){1}, &c->J, fisher)); /* -Tr M plus the end-state penalty scaled alike */
  PetscCall(PetscSNPrintf(path, sizeof(path), "/design/%s/end_state", name));
  PetscCall(MbsH5WriteReals(w, path, 1, &N, c->z_end, state));
  if (c->nstates) {
    PetscInt dims[2] = {c->nstates, N};

    PetscCall(PetscSNPrintf(path, sizeof(path), "/design/%s/state_times", name));
    PetscCall(MbsH5WriteReals(w, path, 1, &c->nstates, c->state_times, "s"));
    PetscCall(PetscSNPrintf(path, sizeof(path), "/design/%s/states", name));
    PetscCall(MbsH5WriteReals(w, path, 2, dims, c->states, state));
  }
  if (c->error.done) {
    PetscCall(PetscSNPrintf(path, sizeof(path), "/design/%s/error", name));
    PetscCall(MbsDesignErrorWrite(d, w, path, &c->error));
  }
  PetscFunctionReturn(0);
}

typedef struct {
  MbsDesign     d;
  MbsDesignCase cases[NCASE];
  PetscReal    *dJdF, *dTdF;
} MbsDesignCommand;

static PetscErrorCode MbsDesignCommandDestroy_Private(MbsDesignCommand *dc)
{
  PetscFunctionBeginUser;
  for (PetscInt c = 0; c < NCASE; c++) {
    PetscCall(PetscFree(dc->cases[c].F));
    PetscCall(PetscFree(dc->cases[c].z_end));
    PetscCall(PetscFree(dc->cases[c].states));
    PetscCall(PetscFree(dc->cases[c].state_times));
    PetscCall(MbsDesignErrorReset(&dc->cases[c].error));
  }
  PetscCall(PetscFree2(dc->dJdF, dc->dTdF));
  PetscCall(MbsDesignDestroy(&dc->d));
  PetscFunctionReturn(0);
}

static PetscErrorCode MbsDesignRun_Private(MPI_Comm comm, MbsDesignCommand *dc)
{
  MbsDesign              d;
  MbsDesignCase         *cases = dc->cases;
  MbsDesignErrorSettings settings;
  char                   output[PETSC_MAX_PATH_LEN] = "design.h5", csv[PETSC_MAX_PATH_LEN] = "";
  PetscReal              print_times[16] = {0}, step = 1e-3, rtol = 1e-6, J_min, J_max;
  PetscInt               nprint = 16, max_it, iterations = 0;
  PetscBool              help, gradcheck = PETSC_FALSE, print_gradient = PETSC_FALSE, error = PETSC_TRUE, times_set, has_type;
  TaoConvergedReason     reason = TAO_CONTINUE_ITERATING;
  PetscMPIInt            rank;
  const MbsDesignSpec   *spec;

  PetscFunctionBeginUser;
  /* the default integrator of a design: fixed Tsitouras 5(4) steps, which the sample times and input nodes fall on */
  PetscCall(PetscOptionsHasName(NULL, NULL, "-ts_type", &has_type));
  if (!has_type) {
    PetscCall(PetscOptionsSetValue(NULL, "-ts_type", "rk"));
    PetscCall(PetscOptionsSetValue(NULL, "-ts_rk_type", "tsit5"));
    PetscCall(PetscOptionsSetValue(NULL, "-ts_adapt_type", "none"));
  }
  PetscCall(MbsDesignCreate(comm, &dc->d));
  d = dc->d;
  PetscCall(MbsDesignErrorSettingsDefault(d, &settings));
  MbsOptionsBegin(comm, NULL, "mbsid design: optimal input for the identification of b", "design");
  PetscCall(MbsOptionsOutputFile(PetscOptionsObject, "-o", "Result file (HDF5)", output, sizeof(output)));
  PetscCall(MbsOptionsOutputFile(PetscOptionsObject, "-design_csv", "Also write the optimal input as CSV t,F (readable by -input_file)", csv, sizeof(csv)));
  PetscCall(MbsModelGetDesignSpec(d->base, &spec));
  max_it = spec->max_it; /* at most PETSC_MAX_INT/4: the evaluation cap of TAO is 4 max_it + 100 */
  PetscCall(MbsOptionsIntRange(PetscOptionsObject, "-design_max_it", "Most optimiser iterations (default: the spec's; 0: evaluate only)", &max_it, 0, PETSC_MAX_INT / 4, NULL));
  PetscCall(PetscOptionsBool("-design_gradcheck", "Check dJ/dF_k of every node against central differences, then stop", "", gradcheck, &gradcheck, NULL));
  PetscCall(PetscOptionsReal("-design_gradcheck_step", "Step of the central differences, relative to F_max", "", step, &step, NULL));
  PetscCall(PetscOptionsReal("-design_gradcheck_rtol", "Largest relative error accepted", "", rtol, &rtol, NULL));
  PetscCall(PetscOptionsBool("-design_print_gradient", "Print dJ/du_k (scaled cost), dJ/dF_k and dTr/dF_k at the initial input", "", print_gradient, &print_gradient, NULL));
  PetscCall(PetscOptionsRealArray("-design_print_states", "Times [s] at which to print the extended state z of the initial and sine inputs", "", print_times, &nprint, &times_set));
  PetscCall(PetscOptionsBool("-design_error", "Evaluate the identification error surface E_RMS of every input", "", error, &error, NULL));
  PetscCall(MbsDesignErrorSetFromOptions(d, PetscOptionsObject, &settings));
  MbsOptionsEnd();
  if (!times_set) nprint = 0;
  PetscCall(PetscOptionsHasHelp(NULL, &help));
  if (help) {
    PetscCall(MbsSimulateHelp(d->ext));
    PetscFunctionReturn(0);
  }
  PetscCheck(step > 0 && step < 0.1, comm, PETSC_ERR_ARG_OUTOFRANGE, "-design_gradcheck_step must lie in (0, 0.1), got %g", (double)step);
  PetscCheck(!csv[0] || (max_it > 0 && !gradcheck), comm, PETSC_ERR_ARG_INCOMP, "-design_csv %s writes the optimal input, which only an optimisation computes: give -design_max_it > 0 and no -design_gradcheck", csv);
  PetscCall(MbsDesignCheckSteps(d));
  PetscCall(MbsDesignCheckSampleTimes(d, "-design_print_states", nprint, print_times));
  if (error && !gradcheck) PetscCall(MbsDesignCheckSampleTimes(d, "-design_sample_dt", 1, (PetscReal[]){d->base->t0 + settings.sample_dt}));
  PetscCall(MbsOptionsCheckUnused(comm, PETSC_FALSE));
  PetscCall(MbsModelView(d->base, PETSC_VIEWER_STDOUT_(comm)));
  PetscCall(PetscPrintf(comm, "Design of %s: b = (", d->base->type));
  for (PetscInt j = 0; j < d->nb; j++) PetscCall(PetscPrintf(comm, "%s%s", j ? ", " : "", d->base->param_info[d->b[j]].name));
  PetscCall(PetscPrintf(comm, "), %" PetscInt_FMT " nodes on [%g, %g] s, F_max = %g N, terminal weight %g, cost scale %g\n", d->nnodes, (double)d->base->t0, (double)d->base->tf, (double)d->force_max, (double)d->end_weight, (double)d->cost_scale));

  for (PetscInt c = 0; c < NCASE; c++) {
    cases[c].nodal = (PetscBool)(c != CASE_SINE);
    PetscCall(PetscMalloc1(d->nnodes, &cases[c].F));
  }
  PetscCall(PetscArraycpy(cases[CASE_INITIAL].F, d->F, d->nnodes));
  for (PetscInt k = 0; k < d->nnodes; k++) cases[CASE_SINE_NODAL].F[k] = d->force_max * PetscSinReal(2 * PETSC_PI * (d->t_nodes[k] - d->base->t0) / (d->base->tf - d->base->t0));

  if (gradcheck) {
    PetscCall(MbsDesignGradcheck_Private(d, d->F, step, rtol, d->end_weight));
    PetscCall(MbsDesignGradcheck_Private(d, d->F, step, rtol, 0));
  } else {
    if (print_gradient) {
      PetscReal *dJdF, *dTdF, J;
      PetscBool  ok;

      PetscCall(PetscMalloc2(d->nnodes, &dc->dJdF, d->nnodes, &dc->dTdF));
      dJdF = dc->dJdF;
      dTdF = dc->dTdF;
      PetscCall(MbsDesignGradient(d, d->F, d->end_weight, &J, dJdF, &ok));
      PetscCall(MbsDesignCheckOk(d, ok));
      PetscCall(MbsDesignGradient(d, d->F, 0, &J, dTdF, &ok)); /* J = -Tr M */
      PetscCall(MbsDesignCheckOk(d, ok));
      PetscCall(PetscPrintf(comm, "%-5s %-10s %-22s %-22s %-22s\n", "node", "t [s]", "dJ/du_k (scaled)", "dJ/dF_k", "dTr/dF_k"));
      for (PetscInt k = 0; k < d->nnodes; k++)
        PetscCall(PetscPrintf(comm, "%-5" PetscInt_FMT " %-10g % .14e % .14e % .14e\n", k, (double)d->t_nodes[k], (double)(MbsDesignPsiDerivative(d, MbsDesignPsiInverse(d, d->F[k])) * dJdF[k] / d->cost_scale), (double)dJdF[k], (double)-dTdF[k]));
    }
    for (PetscInt c = 0; c < CASE_OPTIMAL; c++) {
      PetscCall(PetscPrintf(comm, "Evaluating input %s\n", MbsDesignCaseNames[c]));
      PetscCall(MbsDesignCaseEvaluate_Private(d, &cases[c], c == CASE_SINE_NODAL ? 0 : nprint, print_times, error, &settings));
    }
    if (max_it > 0) {
      PetscCall(PetscArraycpy(cases[CASE_OPTIMAL].F, d->F, d->nnodes));
      PetscCall(MbsDesignOptimize_Private(d, max_it, cases[CASE_OPTIMAL].F, &iterations, &reason));
      PetscCall(PetscPrintf(comm, "Optimisation: %" PetscInt_FMT " iterations, %s\n", iterations, TaoConvergedReasons[reason]));
      PetscCall(MbsDesignCaseEvaluate_Private(d, &cases[CASE_OPTIMAL], 0, print_times, error, &settings));
      /* every rank solved the same problem: the results must be the same bits */
      PetscCallMPI(MPI_Allreduce(&cases[CASE_OPTIMAL].J, &J_min, 1, MPIU_REAL, MPI_MIN, comm));
      PetscCallMPI(MPI_Allreduce(&cases[CASE_OPTIMAL].J, &J_max, 1, MPIU_REAL, MPI_MAX, comm));
      PetscCheck(J_min == J_max, comm, PETSC_ERR_PLIB, "The ranks disagree on the optimal J: %.17g to %.17g", (double)J_min, (double)J_max);
    }
    for (PetscInt c = 0; c < NCASE; c++)
      if (cases[c].done) PetscCall(MbsDesignCaseView_Private(d, &cases[c], MbsDesignCaseNames[c]));
    if (cases[CASE_OPTIMAL].done) {
      PetscReal Fmax = 0;

      for (PetscInt k = 0; k < d->nnodes; k++) Fmax = PetscMax(Fmax, PetscAbsReal(cases[CASE_OPTIMAL].F[k]));
      PetscCall(PetscPrintf(comm, "Optimal input: Tr M = %.12e (%.4g times the initial input's, %.4g times the sine's), max |F_k| = %.12g N of F_max = %g N\n", (double)cases[CASE_OPTIMAL].trace,
                            (double)(cases[CASE_OPTIMAL].trace / cases[CASE_INITIAL].trace), (double)(cases[CASE_OPTIMAL].trace / cases[CASE_SINE].trace), (double)Fmax, (double)d->force_max));
    }

    PetscCallMPI(MPI_Comm_rank(comm, &rank));
    if (rank == 0) {
      MbsH5Writer w;

      PetscCall(MbsH5WriterOpen(output, &w));
      for (PetscInt c = 0; c < NCASE; c++)
        if (cases[c].done) PetscCall(MbsDesignCaseWrite_Private(d, &w, &cases[c], MbsDesignCaseNames[c]));
      if (cases[CASE_OPTIMAL].done) {
        PetscCall(MbsInputWrite(&w, "/input", d->nnodes, d->t_nodes, cases[CASE_OPTIMAL].F));
        PetscCall(MbsH5WriteAttribute(&w, "/design/optimal", "tao_converged_reason", TaoConvergedReasons[reason]));
      }
      PetscCall(MbsModelWriteIdentity(d->base, &w, "/design"));
      PetscCall(MbsH5WriteProvenance(&w, comm));
      PetscCall(MbsH5WriterClose(&w));
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "Wrote %s\n", output));
      if (csv[0] && cases[CASE_OPTIMAL].done) {
        PetscCall(MbsInputWriteText(csv, d->nnodes, d->t_nodes, cases[CASE_OPTIMAL].F));
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
