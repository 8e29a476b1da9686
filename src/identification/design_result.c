/*
  The inputs of an optimal input design (design.c) evaluated, optimised and reported: the results of the command
  design (commands/command_design.c) for the initial input, the comparison sine, its nodal samples and the optimum.
  What they print and write reads the design's own state, so it lives here, beside it.
*/
#include "identification/identificationimpl.h"
#include <petsctao.h>

/*@C
  MbsDesignView - Prints the model and the design problem: its parameters b, nodes, F_max, terminal weight and cost
  scale. Collective.
@*/
PetscErrorCode MbsDesignView(MbsDesign d)
{
  PetscFunctionBeginUser;
  PetscCall(MbsModelView(d->base, PETSC_VIEWER_STDOUT_(d->comm)));
  PetscCall(PetscPrintf(d->comm, "Design of %s: b = (", d->base->type));
  for (PetscInt j = 0; j < d->nb; j++) PetscCall(PetscPrintf(d->comm, "%s%s", j ? ", " : "", d->base->param_info[d->b[j]].name));
  PetscCall(PetscPrintf(d->comm, "), %" PetscInt_FMT " nodes on [%g, %g] s, F_max = %g N, terminal weight %g, cost scale %g\n", d->nnodes, (double)d->base->t0, (double)d->base->tf, (double)d->force_max, (double)d->end_weight, (double)d->cost_scale));
  PetscFunctionReturn(0);
}

/*@C
  MbsDesignGetModels - The model of a design and its sensitivity-extended system (either may be NULL). Not collective.
@*/
PetscErrorCode MbsDesignGetModels(MbsDesign d, MbsModel *base, MbsModel *ext)
{
  PetscFunctionBeginUser;
  if (base) *base = d->base;
  if (ext) *ext = d->ext;
  PetscFunctionReturn(0);
}

/*@C
  MbsDesignGetInput - The node times [s] and the starting input [N] (nnodes each, MbsDesignGetSizes()), owned by the
  design; either may be NULL. Not collective.
@*/
PetscErrorCode MbsDesignGetInput(MbsDesign d, const PetscReal *t_nodes[], const PetscReal *F[])
{
  PetscFunctionBeginUser;
  if (t_nodes) *t_nodes = d->t_nodes;
  if (F) *F = d->F;
  PetscFunctionReturn(0);
}

/*@C
  MbsDesignSineInput - The comparison sine F_max sin(2 pi (t - t0)/(tf - t0)) at the nodes (nnodes). Not collective.
@*/
PetscErrorCode MbsDesignSineInput(MbsDesign d, PetscReal F[])
{
  PetscFunctionBeginUser;
  for (PetscInt k = 0; k < d->nnodes; k++) F[k] = d->force_max * PetscSinReal(2 * PETSC_PI * (d->t_nodes[k] - d->base->t0) / (d->base->tf - d->base->t0));
  PetscFunctionReturn(0);
}

typedef struct {
  MbsDesign  design;
  PetscReal *F, *dJdF;
  PetscInt   nevals;
  PetscReal  J_prev;
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
  PetscCall(PetscPrintf(opt->design->comm, "  design iteration %4" PetscInt_FMT ": J/scale = % .12e  |grad| = %.3e  (%" PetscInt_FMT " solves)\n", it, (double)f, (double)gnorm, opt->nevals));
  if (it > 0 && PetscAbsReal(opt->J_prev - f) <= 1e-12 * PetscAbsReal(f)) PetscCall(TaoSetConvergedReason(tao, TAO_CONVERGED_USER));
  opt->J_prev = f;
  PetscFunctionReturn(0);
}

/*@C
  MbsDesignOptimize - Minimises J over the nodal input with TAO (LMVM, options prefix design_) from F, which it
  overwrites with the optimum. Not collective: every rank solves the same problem.
@*/
PetscErrorCode MbsDesignOptimize(MbsDesign d, PetscInt max_it, PetscReal F[], PetscInt *iterations, TaoConvergedReason *reason)
{
  MbsDesignOptimizer opt = {d, NULL, NULL, 0, PETSC_INFINITY};
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

/*@C
  MbsDesignGradcheck - Checks dJ/dF_k of every node at the starting input against central differences with step
  step F_max, with the terminal weight and (if it is not zero) without it; fails when the largest relative error exceeds rtol. Collective.
@*/
PetscErrorCode MbsDesignGradcheck(MbsDesign d, PetscReal step, PetscReal rtol)
{
  PetscFunctionBeginUser;
  PetscCall(MbsDesignGradcheck_Private(d, d->F, step, rtol, d->end_weight));
  if (d->end_weight != 0) PetscCall(MbsDesignGradcheck_Private(d, d->F, step, rtol, 0));
  PetscFunctionReturn(0);
}

/*@C
  MbsDesignViewGradient - Prints, at the starting input, dJ/du_k of the scaled cost, dJ/dF_k and dTr M/dF_k of every
  node. Collective.
@*/
PetscErrorCode MbsDesignViewGradient(MbsDesign d)
{
  PetscReal *dJdF, *dTdF, J;
  PetscBool  ok;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc2(d->nnodes, &dJdF, d->nnodes, &dTdF));
  MbsCallUndo(MbsDesignGradient(d, d->F, d->end_weight, &J, dJdF, &ok), PetscFree2(dJdF, dTdF));
  MbsCallUndo(MbsDesignCheckOk(d, ok), PetscFree2(dJdF, dTdF));
  MbsCallUndo(MbsDesignGradient(d, d->F, 0, &J, dTdF, &ok), PetscFree2(dJdF, dTdF)); /* J = -Tr M */
  MbsCallUndo(MbsDesignCheckOk(d, ok), PetscFree2(dJdF, dTdF));
  PetscCall(PetscPrintf(d->comm, "%-5s %-10s %-22s %-22s %-22s\n", "node", "t [s]", "dJ/du_k (scaled)", "dJ/dF_k", "dTr/dF_k"));
  for (PetscInt k = 0; k < d->nnodes; k++)
    PetscCall(PetscPrintf(d->comm, "%-5" PetscInt_FMT " %-10g % .14e % .14e % .14e\n", k, (double)d->t_nodes[k], (double)(MbsDesignPsiDerivative(d, MbsDesignPsiInverse(d, d->F[k])) * dJdF[k] / d->cost_scale), (double)dJdF[k], (double)-dTdF[k]));
  PetscCall(PetscFree2(dJdF, dTdF));
  PetscFunctionReturn(0);
}

/*@C
  MbsDesignResultEvaluate - Evaluates an input (r->F when r->nodal, else the model's own input): J, Tr M, M, its
  eigenvalues and condition, the end state, the extended state at nprint times (printed and kept) and, when error is
  true, the error surface E_RMS. Collective.
@*/
PetscErrorCode MbsDesignResultEvaluate(MbsDesign d, MbsDesignResult *r, PetscInt nprint, const PetscReal print_times[], PetscBool error, const MbsDesignErrorSettings *settings)
{
  MbsDesignSamples samples = {nprint, 0, (PetscReal *)print_times, NULL};
  PetscInt         N       = d->ext->n;

  PetscFunctionBeginUser;
  PetscCall(MbsDesignSetInput(d, r->nodal ? r->F : NULL));
  PetscCall(PetscMalloc1(N, &r->z_end));
  PetscCall(PetscMalloc1(nprint * N + 1, &samples.z));
  PetscCall(PetscMalloc1(nprint + 1, &r->state_times));
  PetscCall(PetscArraycpy(r->state_times, print_times, nprint));
  r->nstates = nprint;
  r->states  = samples.z;
  PetscCall(MbsDesignSample(d, d->end_weight, &samples, &r->J, &r->trace, r->M, r->z_end));
  PetscCall(MbsDesignCheckFinite_Private(d, r->J, "an input"));
  PetscCall(MbsDesignEigen(d->nb, r->M, r->eig, NULL, &r->condition));
  r->done = PETSC_TRUE;
  for (PetscInt i = 0; i < nprint; i++) {
    PetscCall(PetscPrintf(d->comm, "  z(t = %g s):", (double)print_times[i]));
    for (PetscInt k = 0; k < N; k++) PetscCall(PetscPrintf(d->comm, " % .12e", (double)samples.z[i * N + k]));
    PetscCall(PetscPrintf(d->comm, "\n"));
  }
  if (error) PetscCall(MbsDesignErrorCompute(d, settings, &r->error));
  PetscFunctionReturn(0);
}

/*@C
  MbsDesignResultView - Prints the result of the input called name. Collective.
@*/
PetscErrorCode MbsDesignResultView(MbsDesign d, const MbsDesignResult *r, const char name[])
{
  PetscInt n = d->base->n;

  PetscFunctionBeginUser;
  PetscCall(PetscPrintf(d->comm, "Input %s: Tr M = %.12e", name, (double)r->trace));
  if (d->nb > 1)
    for (PetscInt j = 0; j < d->nb; j++) PetscCall(PetscPrintf(d->comm, "  (d%s/d%s term %.12e)", d->base->output_name, d->base->param_info[d->b[j]].name, (double)r->M[j * d->nb + j]));
  PetscCall(PetscPrintf(d->comm, "\n  J = %.12e (J/scale = %.12e), eigenvalues of M:", (double)r->J, (double)(r->J / d->cost_scale)));
  for (PetscInt j = 0; j < d->nb; j++) PetscCall(PetscPrintf(d->comm, " %.12e", (double)r->eig[j]));
  PetscCall(PetscPrintf(d->comm, ", condition %.6e\n  end state U(tf):", (double)r->condition));
  for (PetscInt i = 0; i < n; i++) PetscCall(PetscPrintf(d->comm, " % .12e", (double)r->z_end[i]));
  PetscCall(PetscPrintf(d->comm, "\n"));
  if (r->error.done) PetscCall(MbsDesignErrorView(d, &r->error));
  PetscFunctionReturn(0);
}

/*@C
  MbsDesignResultViewGain - Prints the optimum's Tr M against the initial input's and the sine's, and its largest
  force. Collective.
@*/
PetscErrorCode MbsDesignResultViewGain(MbsDesign d, const MbsDesignResult *optimal, const MbsDesignResult *initial, const MbsDesignResult *sine)
{
  PetscReal Fmax = 0;

  PetscFunctionBeginUser;
  for (PetscInt k = 0; k < d->nnodes; k++) Fmax = PetscMax(Fmax, PetscAbsReal(optimal->F[k]));
  PetscCall(PetscPrintf(d->comm, "Optimal input: Tr M = %.12e (%.4g times the initial input's, %.4g times the sine's), max |F_k| = %.12g N of F_max = %g N\n", (double)optimal->trace, (double)(optimal->trace / initial->trace),
                        (double)(optimal->trace / sine->trace), (double)Fmax, (double)d->force_max));
  PetscFunctionReturn(0);
}

/*@C
  MbsDesignResultWrite - Writes the result of the input called name to the group /design/name. Not collective.
@*/
PetscErrorCode MbsDesignResultWrite(MbsDesign d, MbsH5Writer *w, const MbsDesignResult *r, const char name[])
{
  char     path[256], fisher[256];
  PetscInt nb = d->nb, nb2[2] = {d->nb, d->nb}, N = d->ext->n;
  /* the extended state: U in the model's units, then S_j = dU/db_j */
  const char *state = "U (the model's state), then dU/db_j for each design parameter b_j";

  PetscFunctionBeginUser;
  PetscCall(MbsDesignUnits(d, " s", fisher, sizeof(fisher))); /* M = int y_b y_b^T dt */
  PetscCall(PetscSNPrintf(path, sizeof(path), "/design/%s", name));
  if (r->nodal) PetscCall(MbsInputWrite(w, path, d->nnodes, d->t_nodes, r->F));
  PetscCall(PetscSNPrintf(path, sizeof(path), "/design/%s/fisher", name));
  PetscCall(MbsH5WriteReals(w, path, 2, nb2, r->M, fisher));
  PetscCall(PetscSNPrintf(path, sizeof(path), "/design/%s/fisher_eigenvalues", name));
  PetscCall(MbsH5WriteReals(w, path, 1, &nb, r->eig, fisher));
  PetscCall(PetscSNPrintf(path, sizeof(path), "/design/%s/trace", name));
  PetscCall(MbsH5WriteReals(w, path, 1, (PetscInt[]){1}, &r->trace, fisher));
  PetscCall(PetscSNPrintf(path, sizeof(path), "/design/%s/condition", name));
  PetscCall(MbsH5WriteReals(w, path, 1, (PetscInt[]){1}, &r->condition, "1"));
  PetscCall(PetscSNPrintf(path, sizeof(path), "/design/%s/J", name));
  PetscCall(MbsH5WriteReals(w, path, 1, (PetscInt[]){1}, &r->J, fisher)); /* -Tr M plus the end-state penalty scaled alike */
  PetscCall(PetscSNPrintf(path, sizeof(path), "/design/%s/end_state", name));
  PetscCall(MbsH5WriteReals(w, path, 1, &N, r->z_end, state));
  if (r->nstates) {
    PetscInt dims[2] = {r->nstates, N};

    PetscCall(PetscSNPrintf(path, sizeof(path), "/design/%s/state_times", name));
    PetscCall(MbsH5WriteReals(w, path, 1, &r->nstates, r->state_times, "s"));
    PetscCall(PetscSNPrintf(path, sizeof(path), "/design/%s/states", name));
    PetscCall(MbsH5WriteReals(w, path, 2, dims, r->states, state));
  }
  if (r->error.done) {
    PetscCall(PetscSNPrintf(path, sizeof(path), "/design/%s/error", name));
    PetscCall(MbsDesignErrorWrite(d, w, path, &r->error));
  }
  PetscFunctionReturn(0);
}

/*@C
  MbsDesignResultReset - Frees what a result holds. Not collective.
@*/
PetscErrorCode MbsDesignResultReset(MbsDesignResult *r)
{
  PetscFunctionBeginUser;
  PetscCall(PetscFree(r->F));
  PetscCall(PetscFree(r->z_end));
  PetscCall(PetscFree(r->states));
  PetscCall(PetscFree(r->state_times));
  PetscCall(MbsDesignErrorReset(&r->error));
  PetscFunctionReturn(0);
}
