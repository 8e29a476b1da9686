/*
  Forward simulation of a model with PETSc TS in implicit form F(t, U, U') = 0.

  The default integrator is Crank-Nicolson (TSCN, the theta method with theta = 1/2 at the end
  points), which TSAdjoint differentiates exactly; any -ts_type, -ts_dt and adaptivity are honoured.
  The output y(t_n) is recorded at every accepted step together with the weight theta of the
  integrator's quadrature rule, so that later Fourier coefficients and costs integrate y with the
  integrator's own rule.
*/
#include "core/coreimpl.h"
#include <petsctime.h>

typedef struct {
  MbsModel        model;
  MbsSignal      *signal;
  MbsStateMonitor monitor; /* optional, sees the state of every accepted step */
  void           *monitor_ctx;
  PetscInt        nalloc;
  PetscLogDouble  last_progress; /* wall time of the last progress line [s] */
} MbsSimContext;

/* The callbacks take the model as context, so that a TS kept for an adjoint solve outlives MbsSimContext. */
static PetscErrorCode MbsIFunction(TS ts, PetscReal t, Vec U, Vec Udot, Vec F, void *ctx)
{
  MbsModel           model = (MbsModel)ctx;
  const PetscScalar *u, *udot;
  PetscScalar       *f;

  PetscFunctionBeginUser;
  PetscCall(VecGetArrayRead(U, &u));
  PetscCall(VecGetArrayRead(Udot, &udot));
  PetscCall(VecGetArrayWrite(F, &f));
  PetscCall(MbsModelFormResidual(model, t, u, udot, f));
  PetscCall(VecRestoreArrayWrite(F, &f));
  PetscCall(VecRestoreArrayRead(Udot, &udot));
  PetscCall(VecRestoreArrayRead(U, &u));
  PetscFunctionReturn(0);
}

static PetscErrorCode MbsIJacobian(TS ts, PetscReal t, Vec U, Vec Udot, PetscReal shift, Mat A, Mat B, void *ctx)
{
  MbsModel           model = (MbsModel)ctx;
  const PetscScalar *u, *udot;
  PetscScalar       *J;

  PetscFunctionBeginUser;
  PetscCall(VecGetArrayRead(U, &u));
  PetscCall(VecGetArrayRead(Udot, &udot));
  if (model->sparse_jacobian) {
    PetscInt n = model->n;

    PetscCall(MbsModelFormJacobian(model, t, u, udot, shift, model->jacobian_work));
    /* zeroed first: an entry a past state made non-zero (outside the initial pattern) must not keep its old value */
    PetscCall(MatZeroEntries(B));
    for (PetscInt j = 0; j < n; j++)
      for (PetscInt i = 0; i < n; i++)
        if (MBS_IJ(model->jacobian_work, i, j, n) != 0) PetscCall(MatSetValue(B, i, j, MBS_IJ(model->jacobian_work, i, j, n), INSERT_VALUES));
  } else {
    PetscCall(MatDenseGetArrayWrite(B, &J));
    PetscCall(MbsModelFormJacobian(model, t, u, udot, shift, J));
    PetscCall(MatDenseRestoreArrayWrite(B, &J));
  }
  PetscCall(VecRestoreArrayRead(Udot, &udot));
  PetscCall(VecRestoreArrayRead(U, &u));
  PetscCall(MatAssemblyBegin(B, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(B, MAT_FINAL_ASSEMBLY));
  if (A != B) {
    PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  }
  PetscFunctionReturn(0);
}

/* Records y at every accepted step, and prints a progress line at most every 10 s of wall time. */
static PetscErrorCode MbsRecordOutput(TS ts, PetscInt step, PetscReal t, Vec U, void *ctx)
{
  MbsSimContext     *sim    = (MbsSimContext *)ctx;
  MbsSignal         *signal = sim->signal;
  const PetscScalar *u;
  PetscBool          due;

  PetscFunctionBeginUser;
  if (signal->n == sim->nalloc) {
    PetscReal *t_new, *y_new;

    sim->nalloc = PetscMax(1024, 2 * sim->nalloc);
    PetscCall(PetscMalloc2(sim->nalloc, &t_new, sim->nalloc, &y_new));
    PetscCall(PetscArraycpy(t_new, signal->t, signal->n));
    PetscCall(PetscArraycpy(y_new, signal->y, signal->n));
    PetscCall(PetscFree2(signal->t, signal->y));
    signal->t = t_new;
    signal->y = y_new;
  }
  PetscCall(VecGetArrayRead(U, &u));
  PetscCall(MbsModelOutput(sim->model, t, u, &signal->y[signal->n], NULL));
  if (sim->monitor) PetscCall(sim->monitor(sim->model, step, t, u, sim->monitor_ctx));
  PetscCall(VecRestoreArrayRead(U, &u));
  signal->t[signal->n++] = t;
  if (!PetscIsNormalReal(signal->y[signal->n - 1]) && signal->y[signal->n - 1] != 0) {
    signal->nonfinite = PETSC_TRUE;
    PetscCall(TSSetConvergedReason(ts, TS_DIVERGED_NONLINEAR_SOLVE));
  }

  PetscCall(MbsProgressDue(&sim->last_progress, &due));
  if (due) {
    PetscReal t0 = sim->model->t0, tf = sim->model->tf;

    PetscCall(PetscPrintf(PETSC_COMM_SELF, "  simulate %s: t = %g s of [%g, %g] (%.0f %%), step %" PetscInt_FMT "\n", sim->model->type, (double)t, (double)t0, (double)tf, (double)(100 * (t - t0) / (tf - t0)), step));
  }
  PetscFunctionReturn(0);
}

/* Long solves print a progress line at most every 10 s of wall time: *due says whether one is due now */
PetscErrorCode MbsProgressDue(PetscLogDouble *last, PetscBool *due)
{
  PetscLogDouble now;

  PetscFunctionBeginUser;
  PetscCall(PetscTime(&now));
  *due = (PetscBool)(now - *last > 10.0);
  if (*due) *last = now;
  PetscFunctionReturn(0);
}

/*
  Weight of a step's end point in the integrator's quadrature: theta for the end-point theta methods
  (CN, backward Euler), 1/2 (trapezoid on the step points) otherwise.
*/
static PetscErrorCode MbsQuadratureTheta_Private(TS ts, PetscReal *theta)
{
  PetscBool is_theta, endpoint = PETSC_FALSE;

  PetscFunctionBeginUser;
  *theta = 0.5;
  PetscCall(PetscObjectTypeCompareAny((PetscObject)ts, &is_theta, TSTHETA, TSCN, TSBEULER, ""));
  if (is_theta) PetscCall(TSThetaGetEndpoint(ts, &endpoint));
  if (endpoint) PetscCall(TSThetaGetTheta(ts, theta));
  PetscFunctionReturn(0);
}

/*
  The sparse path (-jacobian_sparse, large models such as the 84 unknowns of engine4): the non-zeros of
  dF/dU + dF/dU' at the initial state and at a perturbed one (random U, U') make the pattern of an AIJ matrix,
  assembled with explicit zeros so that its symbolic factorisation holds from step to step; an entry outside it that
  a later state makes non-zero extends it. A DAE has zero diagonals (multipliers), so the default factorisation is
  KLU's, which pivots; dense LU costs O(n^3) per step.
*/
static PetscErrorCode MbsSparseJacobianCreate_Private(MbsModel model, const PetscReal u0[], Mat *J)
{
  PetscInt    n = model->n, nnz = 0, *row_nnz;
  PetscReal  *u, *udot, *work[2];
  PetscRandom rnd;
  PetscBool  *used;

  PetscFunctionBeginUser;
  PetscCall(PetscFree(model->jacobian_work));
  PetscCall(PetscMalloc3(n, &u, n, &udot, n * n, &used));
  PetscCall(PetscMalloc2(n * n, &work[0], n * n, &work[1]));
  PetscCall(PetscRandomCreate(PETSC_COMM_SELF, &rnd));
  PetscCall(PetscRandomSetInterval(rnd, -1, 1));
  for (PetscInt i = 0; i < n; i++) {
    PetscReal r;

    PetscCall(PetscRandomGetValueReal(rnd, &r));
    u[i] = u0[i] * (1 + 1e-3 * r) + 1e-3 * r;
    PetscCall(PetscRandomGetValueReal(rnd, &udot[i]));
  }
  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(MbsModelFormJacobian(model, model->t0, u0, udot, 1.0, work[0]));
  PetscCall(MbsModelFormJacobian(model, model->t0 + model->dt, u, udot, 1.0, work[1]));
  PetscCall(PetscCalloc1(n, &row_nnz));
  for (PetscInt j = 0; j < n; j++)
    for (PetscInt i = 0; i < n; i++) {
      used[i + j * n] = (PetscBool)(i == j || work[0][i + j * n] != 0 || work[1][i + j * n] != 0);
      row_nnz[i] += used[i + j * n];
      nnz += used[i + j * n];
    }
  PetscCall(PetscMalloc1(n * n, &model->jacobian_work));
  PetscCall(MatCreateSeqAIJ(PETSC_COMM_SELF, n, n, 0, row_nnz, J));
  PetscCall(MatSetOption(*J, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE)); /* a state may make an entry non-zero outside the pattern */
  for (PetscInt j = 0; j < n; j++)
    for (PetscInt i = 0; i < n; i++)
      if (used[i + j * n]) PetscCall(MatSetValue(*J, i, j, 0.0, INSERT_VALUES));
  PetscCall(MatAssemblyBegin(*J, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*J, MAT_FINAL_ASSEMBLY));
  PetscCall(PetscInfo(NULL, "Model %s: sparse Jacobian with %" PetscInt_FMT " of %" PetscInt_FMT " entries\n", model->type, nnz, n * n));
  PetscCall(PetscFree(row_nnz));
  PetscCall(PetscFree2(work[0], work[1]));
  PetscCall(PetscFree3(u, udot, used));
  PetscFunctionReturn(0);
}

/*
  Integrates the model and records its output. setup (may be NULL) configures the TS before the options are
  read, e.g. for an adjoint solve; with ts_keep the TS is returned after the solve (caller destroys it),
  otherwise destroyed. A failed integration is not an error here: signal->reason < 0 says so.
*/
PetscErrorCode MbsSimulate_Private(MbsModel model, const char prefix[], MbsTSSetUpFn setup, void *setup_ctx, MbsStateMonitor monitor, void *monitor_ctx, MbsSignal *signal, TS *ts_keep)
{
  MbsSimContext sim = {model, signal, monitor, monitor_ctx, 0, 0};
  TS            ts;
  TSAdapt       adapt;
  SNES          snes;
  Vec           U, Udot;
  Mat           J;
  PetscScalar  *u, *udot;

  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(signal, sizeof(*signal)));
  PetscCall(PetscTime(&sim.last_progress));
  PetscCall(VecCreateSeq(PETSC_COMM_SELF, model->n, &U));
  PetscCall(VecDuplicate(U, &Udot));
  PetscCall(VecGetArrayWrite(U, &u));
  PetscCall(VecGetArrayWrite(Udot, &udot));
  PetscCall(MbsModelInitialState(model, model->t0, u, udot));
  if (model->sparse_jacobian) PetscCall(MbsSparseJacobianCreate_Private(model, u, &J));
  else PetscCall(MatCreateSeqDense(PETSC_COMM_SELF, model->n, model->n, NULL, &J));
  PetscCall(VecRestoreArrayWrite(Udot, &udot));
  PetscCall(VecRestoreArrayWrite(U, &u));

  PetscCall(TSCreate(PETSC_COMM_SELF, &ts));
  PetscCall(TSSetOptionsPrefix(ts, prefix));
  PetscCall(TSSetType(ts, TSCN));
  PetscCall(TSSetProblemType(ts, TS_NONLINEAR));
  PetscCall(TSSetIFunction(ts, NULL, MbsIFunction, model));
  PetscCall(TSSetIJacobian(ts, J, J, MbsIJacobian, model));
  PetscCall(TSSetTime(ts, model->t0));
  PetscCall(TSSetTimeStep(ts, model->dt));
  PetscCall(TSSetMaxTime(ts, model->tf));
  PetscCall(TSSetMaxSteps(ts, PETSC_MAX_INT));
  PetscCall(TSSetExactFinalTime(ts, TS_EXACTFINALTIME_MATCHSTEP));
  PetscCall(TSSetErrorIfStepFails(ts, PETSC_FALSE));
  /* Costs and their adjoint gradients are those of the discrete solution, so its nonlinear systems are solved
     to rounding (a relative 1e-8 leaves a noise that central differences of J would show) */
  PetscCall(TSGetSNES(ts, &snes));
  PetscCall(SNESSetTolerances(snes, 1e-20, 1e-12, PETSC_DEFAULT, PETSC_DEFAULT, PETSC_DEFAULT));
  if (model->sparse_jacobian) {
    KSP ksp;
    PC  pc;

    PetscCall(SNESGetKSP(snes, &ksp));
    PetscCall(KSPSetType(ksp, KSPPREONLY));
    PetscCall(KSPGetPC(ksp, &pc));
    PetscCall(PCSetType(pc, PCLU));
    PetscCall(PCFactorSetMatSolverType(pc, MATSOLVERKLU));
  }
  PetscCall(TSGetAdapt(ts, &adapt));
  if (model->dt_max > 0) PetscCall(TSAdaptSetStepLimits(adapt, PETSC_DEFAULT, model->dt_max));
  PetscCall(TSMonitorSet(ts, MbsRecordOutput, &sim, NULL));
  if (setup) PetscCall(setup(ts, setup_ctx));
  PetscCall(TSSetFromOptions(ts));

  PetscCall(TSSolve(ts, U));
  PetscCall(TSGetConvergedReason(ts, &signal->reason));
  PetscCall(TSGetTime(ts, &signal->t_end));
  PetscCall(TSGetStepNumber(ts, &signal->steps));
  PetscCall(TSGetStepRejections(ts, &signal->rejects));
  PetscCall(MbsQuadratureTheta_Private(ts, &signal->theta));
  PetscCall(TSMonitorCancel(ts)); /* its context lives on this stack */

  if (ts_keep) *ts_keep = ts;
  else PetscCall(TSDestroy(&ts));
  PetscCall(MatDestroy(&J));
  PetscCall(VecDestroy(&Udot));
  PetscCall(VecDestroy(&U));
  PetscFunctionReturn(0);
}

/*@C
  MbsSignalCheck - Raises an error that says where and why the integration that produced the signal failed. Not collective.
@*/
PetscErrorCode MbsSignalCheck(MbsModel model, const MbsSignal *signal)
{
  PetscFunctionBeginUser;
  PetscCheck(!signal->nonfinite, PETSC_COMM_SELF, PETSC_ERR_FP, "Model %s: output %s is not finite at t = %g s (step %" PetscInt_FMT ")", model->type, model->output_name, (double)signal->t_end, signal->steps);
  PetscCheck(signal->reason >= 0, PETSC_COMM_SELF, PETSC_ERR_NOT_CONVERGED, "Time integration of model %s failed at t = %g s of [%g, %g]: %s; try a smaller -ts_dt or -ts_adapt_type basic", model->type, (double)signal->t_end, (double)model->t0,
             (double)model->tf, TSConvergedReasons[signal->reason]);
  PetscFunctionReturn(0);
}

/*@C
  MbsSimulate - Integrates the model over its time span and records the output; monitor (may be NULL) sees the
  state after every accepted step. The TS reads the options with the given prefix (NULL: -ts_*). A failed
  integration is an error. Not collective (a TS on PETSC_COMM_SELF).
@*/
PetscErrorCode MbsSimulate(MbsModel model, const char prefix[], MbsStateMonitor monitor, void *monitor_ctx, MbsSignal *signal)
{
  PetscFunctionBeginUser;
  PetscCall(MbsSimulate_Private(model, prefix, NULL, NULL, monitor, monitor_ctx, signal, NULL));
  PetscCall(MbsSignalCheck(model, signal));
  PetscFunctionReturn(0);
}

PetscErrorCode MbsSignalDestroy(MbsSignal *signal)
{
  PetscFunctionBeginUser;
  PetscCall(PetscFree2(signal->t, signal->y));
  signal->n = 0;
  PetscFunctionReturn(0);
}
