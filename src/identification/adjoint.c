/*
  The cost and its gradient with respect to selected parameters: one forward solve and ONE discrete adjoint
  solve (PETSc TSAdjoint on the stored trajectory), whatever the number of parameters and of Fourier
  coefficients.

  The cost enters the adjoint through a quadrature sub-TS whose integrand derivative is
  dr/dU = r'(t, y(U)) dy/dU, r' the cost's adjoint density evaluated after the forward pass. The sub-TS
  integrates it with the integrator's own rule (nodes and weights c_n of mbsid.h, MbsSignal: step points of a
  theta method, stages of a Runge-Kutta method), which is exactly dJ/dy_n of the discrete cost; the parameters
  enter through dF/dp of the implicit form (TSSetIJacobianP). Runge-Kutta methods take mbsid's own adjoint step
  (below), which reads dr/dU and dg/dp at the stages itself: no sub-TS unless the integral's value is asked for
  (design). A cost on measured samples (time) reads the output at step points instead: before the adjoint step
  back from such a point, its dJ/dU is added to lambda (TSAdjointSolve hands lambda to the adjoint monitor first),
  and no quadrature is set up. The trajectory is kept in memory by default, in mbsid's own type (core/trajectory.c:
  one growing block, not PETSc's vectors per step); checkpointing options select PETSc's memory type, and
  -ts_trajectory_type is honoured.

  The Runge-Kutta adjoint step is mbsid's own (MbsTSAdjointStep_RK, put in TSRK's method table before the sweep):
  PETSc's forms dg/dU (n solves with E) and dg/dp (np solves) at every stage through SNESComputeJacobian, whose
  options lookups cost as much again, where the step needs only their products with one vector (one transposed
  solve), and it integrates r backwards once more (TSAdjointCostIntegral) though J is known. For one explicit step

    Y_i = U_n + H sum_{j<i} a_ij g(Y_j),   U_n+1 = U_n + H sum_i b_i g(Y_i),   J += H sum_i b_i r(Y_i)

  it computes, from lambda = dJ/dU_n+1 and for i = s .. 1, the same discrete adjoint as PETSc's:

    sigma_i = H (b_i lambda + sum_{j>i} a_ji xi_j)          (dJ/dg(Y_i))
    xi_i    = dg/dU(Y_i)^T sigma_i + H b_i dr/dU(Y_i)       (dJ/dY_i)
    mu     += dg/dp(Y_i)^T sigma_i,     lambda_n = lambda + sum_i xi_i

  (with b_i = 0 as well: sigma_i then has no lambda term, and a stage no later stage reads, the last of a FSAL tableau,
  has sigma_i = 0 and costs nothing). PETSc 3.18's own step adds a stale term to dJ/dp on a stage with b_i = 0 before
  the last (fixed in 3.21.4); this one does not, so every tableau of TSRK takes a gradient (2b, 5f, 5dp, 5bs, 6vr,
  7vr, 8vr have such a stage: gradcheck_rk_*).
*/
#include "identification/identificationimpl.h"
#include <petsc/private/tsimpl.h> /* TSRK's method table, whose adjoint step mbsid replaces (see above) */

typedef struct {
  MbsModel               model;
  const MbsIntegralCost *integral;
  PetscInt               nid;
  const PetscInt        *id;   /* identified parameters */
  Mat                    Jp;   /* dF/dp of the identified parameters, n x nid */
  Mat                    DRDU; /* dr/dU as a column, n x 1 */
  Mat                    DRDP; /* dr/dp = 0 as a column, nid x 1: PETSc's adjoint reads it */
  PetscReal             *jp_all;
  PetscReal             *dp_all;                              /* np: a direct dr/dp or dJ/dp of all parameters */
  PetscReal             *xi, *sigma, *dmu, *drdu, *rate_work; /* MbsTSAdjointStep_RK: s n, n, nid, n, n (np + 1) */
  PetscLogDouble         last_progress;                       /* wall time of the last progress line [s] */
  /* dr/dU and the direct dr/dp at the last two quadrature nodes (MbsAdjointNode_Private): PETSc's theta adjoint asks
     for each at both ends of every step, so at every node four times */
  PetscReal *node_work; /* 2 (2 n + np): U, dr/dU, dr/dp of each node */
  PetscReal  node_t[2];
  PetscBool  node_set[2];
  PetscInt   node_next;
} MbsAdjointContext;

/* Whether checkpointing options of PETSc's memory trajectory are given: mbsid's own (stages) keeps every step */
static PetscErrorCode MbsCheckpointingGiven_Private(PetscBool *given)
{
  const char *const names[] = {"-ts_trajectory_stride",      "-ts_trajectory_max_cps_ram",    "-ts_trajectory_max_cps_disk", "-ts_trajectory_max_units_ram", "-ts_trajectory_max_units_disk",
                               "-ts_trajectory_memory_type", "-ts_trajectory_revolve_online", "-ts_trajectory_save_stack",   "-ts_trajectory_use_dram"};

  PetscFunctionBeginUser;
  *given = PETSC_FALSE;
  for (size_t k = 0; k < PETSC_STATIC_ARRAY_LENGTH(names) && !*given; k++) PetscCall(PetscOptionsHasName(NULL, NULL, names[k], given));
  PetscFunctionReturn(0);
}

/*
  MbsJacobianPCreate - dF/dp of the parameters id[0..nid-1] as the TS wants it: the model's sparse columns (O(n) entries,
  not n nid) for a model with a sparse Jacobian, else a dense n x nid matrix filled from the n x np array *jp_all of
  every parameter's dF/dp (NULL for the sparse). Not collective.
*/
PetscErrorCode MbsJacobianPCreate(MbsModel model, PetscInt nid, const PetscInt id[], Mat *Jp, PetscReal **jp_all)
{
  PetscFunctionBeginUser;
  *jp_all = NULL;
  if (MbsModelHasSparseJacobian(model)) {
    PetscCall(MbsModelJacobianPCreate(model, nid, id, Jp));
    PetscFunctionReturn(0);
  }
  PetscCall(MatCreateSeqDense(PETSC_COMM_SELF, model->n, nid, NULL, Jp));
  PetscCall(PetscMalloc1(model->n * model->np, jp_all));
  PetscFunctionReturn(0);
}

/*
  MbsJacobianPCompute - A <- dF/dp of the identified parameters at (t, U, U') of the integration form (TSSetIJacobianP),
  A and jp_all from MbsJacobianPCreate(). Not collective.
*/
PetscErrorCode MbsJacobianPCompute(MbsModel model, PetscInt nid, const PetscInt id[], PetscReal jp_all[], PetscReal t, Vec U, Vec Udot, Mat A)
{
  PetscInt           n = model->n;
  const PetscScalar *u, *udot;
  PetscScalar       *a;

  PetscFunctionBeginUser;
  PetscCall(VecGetArrayRead(U, &u));
  PetscCall(VecGetArrayRead(Udot, &udot));
  if (jp_all) PetscCall(MbsModelFormJacobianP(model, t, u, udot, jp_all));
  else PetscCall(MbsModelJacobianPMat(model, t, u, udot, A)); /* the model's sparse columns of the identified parameters */
  PetscCall(VecRestoreArrayRead(Udot, &udot));
  PetscCall(VecRestoreArrayRead(U, &u));
  if (!jp_all) PetscFunctionReturn(0);
  PetscCall(MatDenseGetArrayWrite(A, &a));
  for (PetscInt k = 0; k < nid; k++) PetscCall(PetscArraycpy(a + k * n, jp_all + id[k] * n, n));
  PetscCall(MatDenseRestoreArrayWrite(A, &a));
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(0);
}

static PetscErrorCode MbsIJacobianP(TS ts, PetscReal t, Vec U, Vec Udot, PetscReal shift, Mat A, void *ctx)
{
  MbsAdjointContext *adj = (MbsAdjointContext *)ctx;

  PetscFunctionBeginUser;
  PetscCall(MbsJacobianPCompute(adj->model, adj->nid, adj->id, adj->jp_all, t, U, Udot, A));
  PetscFunctionReturn(0);
}

static PetscErrorCode MbsCostIntegrand(TS ts, PetscReal t, Vec U, Vec R, void *ctx)
{
  MbsAdjointContext *adj = (MbsAdjointContext *)ctx;
  const PetscScalar *u;
  PetscScalar       *r;

  PetscFunctionBeginUser;
  if (!adj->integral->forward) { /* PETSc's adjoint integrates r once more, whose value no one reads then */
    PetscCall(VecSet(R, 0));
    PetscFunctionReturn(0);
  }
  PetscCall(VecGetArrayRead(U, &u));
  PetscCall(VecGetArrayWrite(R, &r));
  PetscCall(adj->integral->integrand(adj->model, t, u, r, NULL, NULL, adj->integral->ctx));
  PetscCall(VecRestoreArrayWrite(R, &r));
  PetscCall(VecRestoreArrayRead(U, &u));
  PetscFunctionReturn(0);
}

/*
  The node (t, U) of the quadrature with its dr/dU and direct dr/dp (the integrand's, both from one evaluation at its
  first request): its U, dr/dU and dr/dp at node_work + (2 n + np) slot. The adjoint sweep asks for
  the two ends of a step, the later of which the step after it (earlier in time) asks for again; the model's state
  and parameters do not change during the sweep, so a node of the same t and U has the same derivatives.
*/
static PetscErrorCode MbsAdjointNode_Private(MbsAdjointContext *adj, PetscReal t, const PetscScalar u[], PetscInt *slot)
{
  MbsModel   model = adj->model;
  PetscInt   n = model->n, np = model->np, size = 2 * n + np;
  PetscReal *node, r[1];

  PetscFunctionBeginUser;
  if (!adj->node_work) PetscCall(PetscMalloc1(2 * size, &adj->node_work));
  for (*slot = 0; *slot < 2; (*slot)++) {
    PetscBool same = PETSC_FALSE;

    if (adj->node_set[*slot] && adj->node_t[*slot] == t) PetscCall(PetscArraycmp(adj->node_work + *slot * size, u, n, &same));
    if (same) PetscFunctionReturn(0);
  }
  *slot                = adj->node_next;
  adj->node_next       = 1 - *slot;
  node                 = adj->node_work + *slot * size;
  adj->node_set[*slot] = PETSC_FALSE; /* until its derivatives are in */
  PetscCall(PetscArraycpy(node, u, n));
  PetscCall(PetscArrayzero(node + n, n + np));
  PetscCall(adj->integral->integrand(model, t, u, r, node + n, adj->integral->integrand_p ? node + 2 * n : NULL, adj->integral->ctx));
  adj->node_t[*slot]   = t;
  adj->node_set[*slot] = PETSC_TRUE;
  PetscFunctionReturn(0);
}

static PetscErrorCode MbsCostIntegrandJacobian(TS ts, PetscReal t, Vec U, Mat A, Mat B, void *ctx)
{
  MbsAdjointContext *adj = (MbsAdjointContext *)ctx;
  const PetscScalar *u;
  PetscScalar       *a;
  PetscInt           slot, n = adj->model->n;

  PetscFunctionBeginUser;
  PetscCall(VecGetArrayRead(U, &u));
  PetscCall(MbsAdjointNode_Private(adj, t, u, &slot));
  PetscCall(VecRestoreArrayRead(U, &u));
  PetscCall(MatDenseGetArrayWrite(A, &a));
  PetscCall(PetscArraycpy(a, adj->node_work + slot * (2 * n + adj->model->np) + n, n));
  PetscCall(MatDenseRestoreArrayWrite(A, &a));
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(0);
}

/* dr/dp of the identified parameters: zero, but for an output that depends on the parameters directly */
static PetscErrorCode MbsCostIntegrandJacobianP(TS ts, PetscReal t, Vec U, Mat A, void *ctx)
{
  MbsAdjointContext *adj = (MbsAdjointContext *)ctx;
  const PetscScalar *u;
  PetscScalar       *a;
  PetscInt           slot, n = adj->model->n;
  const PetscReal   *drdp;

  PetscFunctionBeginUser;
  if (!adj->integral->integrand_p) PetscFunctionReturn(0);
  PetscCall(VecGetArrayRead(U, &u));
  PetscCall(MbsAdjointNode_Private(adj, t, u, &slot));
  PetscCall(VecRestoreArrayRead(U, &u));
  drdp = adj->node_work + slot * (2 * n + adj->model->np) + 2 * n;
  PetscCall(MatDenseGetArrayWrite(A, &a));
  for (PetscInt k = 0; k < adj->nid; k++) a[k] = drdp[adj->id[k]];
  PetscCall(MatDenseRestoreArrayWrite(A, &a));
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(0);
}

/* The adjoint of one explicit Runge-Kutta step (file header); TSAdjointSolve has restored its stages and set the time
   to t_n+1 and the step to -H */
static PetscErrorCode MbsTSAdjointStep_RK(TS ts)
{
  MbsAdjointContext *adj;
  MbsModel           model;
  const PetscReal   *A, *b, *c;
  PetscInt           s, nstage, ncost, n;
  PetscReal          t, h;
  Vec               *Y, *lambda, *mu;
  PetscScalar       *l, *m;

  PetscFunctionBeginUser;
  PetscCall(TSGetRHSJacobianP(ts, NULL, NULL, (void **)&adj));
  model = adj->model;
  n     = model->n;
  PetscCall(TSRKGetTableau(ts, &s, &A, &b, &c, NULL, NULL, NULL, NULL));
  PetscCall(TSGetStages(ts, &nstage, &Y));
  PetscCall(TSGetCostGradients(ts, &ncost, &lambda, &mu));
  PetscAssert(ncost == 1 && nstage == s && !ts->vecs_sensi2, PETSC_COMM_SELF, PETSC_ERR_PLIB, "The Runge-Kutta adjoint step takes one cost gradient of first order");
  PetscCall(TSGetTime(ts, &t));
  PetscCall(TSGetTimeStep(ts, &h));
  PetscCall(VecGetArray(lambda[0], &l));
  PetscCall(VecGetArray(mu[0], &m));
  for (PetscInt i = s - 1; i >= 0; i--) {
    PetscReal         *xi = adj->xi + i * n, stage_time = t + h * (1.0 - c[i]); /* as PETSc's: the node of the forward rule */
    PetscBool          read = (PetscBool)(b[i] != 0);
    const PetscScalar *y;

    for (PetscInt k = 0; k < n; k++) adj->sigma[k] = -h * b[i] * l[k];
    for (PetscInt j = i + 1; j < s; j++) {
      if (A[j * s + i] == 0) continue;
      read = PETSC_TRUE;
      for (PetscInt k = 0; k < n; k++) adj->sigma[k] -= h * A[j * s + i] * adj->xi[j * n + k];
    }
    if (!read) {
      PetscCall(PetscArrayzero(xi, n));
      continue;
    }
    PetscCall(VecGetArrayRead(Y[i], &y));
    PetscCall(MbsModelRateAdjoint(model, stage_time, y, adj->sigma, adj->nid, adj->id, adj->rate_work, xi, adj->dmu));
    for (PetscInt k = 0; k < adj->nid; k++) m[k] += adj->dmu[k];
    if (adj->integral->integrand && b[i] != 0) {
      PetscReal r[1];

      PetscCall(PetscArrayzero(adj->drdu, n));
      if (adj->integral->integrand_p) PetscCall(PetscArrayzero(adj->dp_all, model->np)); /* an output that depends on the parameters directly */
      PetscCall(adj->integral->integrand(model, stage_time, y, r, adj->drdu, adj->integral->integrand_p ? adj->dp_all : NULL, adj->integral->ctx));
      for (PetscInt k = 0; k < n; k++) xi[k] -= h * b[i] * adj->drdu[k];
      for (PetscInt k = 0; k < adj->nid && adj->integral->integrand_p; k++) m[k] -= h * b[i] * adj->dp_all[adj->id[k]];
    }
    PetscCall(VecRestoreArrayRead(Y[i], &y));
  }
  for (PetscInt i = 0; i < s; i++)
    for (PetscInt k = 0; k < n; k++) l[k] += adj->xi[i * n + k];
  PetscCall(VecRestoreArray(mu[0], &m));
  PetscCall(VecRestoreArray(lambda[0], &l));
  PetscFunctionReturn(0);
}

/*
  Before the adjoint step back from step point n, lambda is dJ/dU_n of the terms after it: a term of J at this step
  point adds its own derivative there. The backward sweep of a long run-up takes minutes without a word otherwise: a
  progress line.
*/
static PetscErrorCode MbsAdjointMonitor(TS ts, PetscInt step, PetscReal t, Vec U, PetscInt ncost, Vec *lambda, Vec *mu, void *ctx)
{
  MbsAdjointContext *adj = (MbsAdjointContext *)ctx;
  PetscReal          t0 = adj->model->t0, tf = adj->model->tf;
  PetscBool          due;

  PetscFunctionBeginUser;
  if (adj->integral->step_point) {
    const PetscScalar *u;
    PetscScalar       *l, *start = NULL;

    PetscCall(VecGetArrayRead(U, &u));
#if MBS_PETSC_ADJOINT_STEP0_STATE
    if (step == 0) { /* the initial state, where the monitor's U and t are those of step 1 */
      PetscCall(PetscMalloc1(2 * adj->model->n, &start));
      PetscCall(MbsModelInitialState(adj->model, t0, start, start + adj->model->n));
      t = t0;
    }
#endif
    PetscCall(VecGetArray(lambda[0], &l));
    MbsCallUndo(adj->integral->step_point(adj->model, step, t, start ? start : u, l, adj->integral->ctx), PetscFree(start));
    PetscCall(VecRestoreArray(lambda[0], &l));
    if (adj->integral->step_point_p) { /* the term's direct dJ/dp goes straight into the gradient mu */
      PetscCall(PetscArrayzero(adj->dp_all, adj->model->np));
      MbsCallUndo(adj->integral->step_point_p(adj->model, step, t, start ? start : u, adj->dp_all, adj->integral->ctx), PetscFree(start));
      PetscCall(VecGetArray(mu[0], &l));
      for (PetscInt k = 0; k < adj->nid; k++) l[k] += adj->dp_all[adj->id[k]];
      PetscCall(VecRestoreArray(mu[0], &l));
    }
    PetscCall(PetscFree(start));
    PetscCall(VecRestoreArrayRead(U, &u));
  }
  PetscCall(MbsProgressDue(&adj->last_progress, &due));
  if (due) PetscCall(PetscPrintf(PETSC_COMM_SELF, "  adjoint %s: t = %g s of [%g, %g] (%.0f %% done), step %" PetscInt_FMT "\n", adj->model->type, (double)t, (double)t0, (double)tf, (double)(100 * (tf - t) / (tf - t0)), step));
  PetscFunctionReturn(0);
}

/* Called by MbsSimulate_Private() before the TS reads its options: the quadrature of the integrals, and for a gradient
   the trajectory and dF/dp */
static PetscErrorCode MbsAdjointSetUp(TS ts, void *ctx)
{
  MbsAdjointContext *adj = (MbsAdjointContext *)ctx;
  TS                 quadts;
  TSType             type;
  PetscBool          rk, theta;

  PetscFunctionBeginUser;
  PetscCall(TSGetType(ts, &type));
  PetscCall(PetscObjectTypeCompareAny((PetscObject)ts, &theta, TSTHETA, TSCN, TSBEULER, ""));
  PetscCall(PetscObjectTypeCompare((PetscObject)ts, TSRK, &rk));
  PetscCheck(theta || rk, PETSC_COMM_SELF, PETSC_ERR_SUP, "-ts_type %s has no discrete adjoint and no cost integral in PETSc 3.18, which %s needs: use -ts_type cn (the default), theta, beuler or rk (-ts_rk_type tsit5 or 3bs)", type,
             adj->Jp ? "the gradient" : adj->integral->name);
  if (adj->Jp) {
    TSTrajectory trajectory;
    PetscBool    checkpointing;
    PetscMPIInt  rank;
    char         dirname[64];

    PetscCall(TSSetSaveTrajectory(ts));
    PetscCall(TSGetTrajectory(ts, &trajectory));
    PetscCall(MbsTSTrajectoryRegisterStages());
    PetscCall(MbsCheckpointingGiven_Private(&checkpointing));
    PetscCall(TSTrajectorySetType(trajectory, ts, checkpointing ? TSTRAJECTORYMEMORY : MBS_TSTRAJECTORY_STAGES));
    /* every rank integrates its own experiment: a trajectory on disk needs its own directory, and so does every run that
       shares the working directory (PETSc removes it after the adjoint, under a concurrent run's feet) */
    PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
    PetscCall(PetscSNPrintf(dirname, sizeof(dirname), "SA-data-rank%d-pid%d", rank, (int)getpid()));
    PetscCall(TSTrajectorySetDirname(trajectory, dirname));
    /* the Runge-Kutta adjoint step is mbsid's, which forms no dg/dp: TSAdjointSetUp asks for the matrix all the same,
       and the step finds its context with it */
    if (rk) PetscCall(TSSetRHSJacobianP(ts, adj->Jp, NULL, adj));
    else PetscCall(TSSetIJacobianP(ts, adj->Jp, MbsIJacobianP, adj));
  }
  /* a cost on step points only, or one that the Runge-Kutta adjoint step differentiates at its stages itself: no
     quadrature, unless its value is asked for */
  if (!adj->integral->integrand || (rk && adj->Jp && !adj->integral->forward)) PetscFunctionReturn(0);
  PetscCall(TSCreateQuadratureTS(ts, adj->integral->forward, &quadts));
  if (adj->integral->ncomp > 1) { /* PETSc sizes the quadrature by the number of cost gradients, 1 without */
    Vec Q;

    PetscCall(VecCreateSeq(PETSC_COMM_SELF, adj->integral->ncomp, &Q));
    PetscCall(VecSet(Q, 0));
    PetscCall(TSSetSolution(quadts, Q));
    PetscCall(VecDestroy(&Q));
  }
  PetscCall(TSSetRHSFunction(quadts, NULL, MbsCostIntegrand, adj));
  PetscCall(TSSetRHSJacobian(quadts, adj->DRDU, adj->DRDU, MbsCostIntegrandJacobian, adj)); /* TSRK's set-up asks for it */
  if (adj->Jp) PetscCall(TSSetRHSJacobianP(quadts, adj->DRDP, MbsCostIntegrandJacobianP, adj));
  PetscFunctionReturn(0);
}

typedef struct {
  MbsAdjointContext adj;
  MbsSignal         signal;
  TS                ts;
  Vec               lambda, mu;
} MbsGradientObjects;

static PetscErrorCode MbsGradientObjectsDestroy_Private(MbsGradientObjects *o)
{
  PetscFunctionBeginUser;
  PetscCall(VecDestroy(&o->mu));
  PetscCall(VecDestroy(&o->lambda));
  PetscCall(TSDestroy(&o->ts));
  PetscCall(MbsSignalDestroy(&o->signal));
  PetscCall(PetscFree(o->adj.jp_all));
  PetscCall(PetscFree(o->adj.dp_all));
  PetscCall(PetscFree(o->adj.node_work));
  PetscCall(PetscFree5(o->adj.xi, o->adj.sigma, o->adj.dmu, o->adj.drdu, o->adj.rate_work));
  PetscCall(MatDestroy(&o->adj.DRDU));
  PetscCall(MatDestroy(&o->adj.DRDP));
  PetscCall(MatDestroy(&o->adj.Jp));
  PetscFunctionReturn(0);
}

static PetscErrorCode MbsIntegralGradient_Private(MbsGradientObjects *o, MbsModel model, const MbsIntegralCost *integral, PetscInt nid, const PetscInt id[], MbsStateMonitor monitor, void *monitor_ctx, PetscReal Q[], PetscReal U_end[], PetscReal grad[], PetscBool *ok)
{
  MbsAdjointContext *adj    = &o->adj;
  MbsSignal         *signal = &o->signal;

  PetscFunctionBeginUser;
  PetscCheck(integral->ncomp >= 1 && (!grad || integral->ncomp == 1), PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "An integral cost with a gradient has one component, got %" PetscInt_FMT, integral->ncomp);
  PetscCall(MatCreateSeqDense(PETSC_COMM_SELF, model->n, 1, NULL, &adj->DRDU));
  if (grad) {
    PetscCall(MbsJacobianPCreate(model, nid, id, &adj->Jp, &adj->jp_all));
    PetscCall(MatCreateSeqDense(PETSC_COMM_SELF, nid, 1, NULL, &adj->DRDP));
    PetscCall(MatZeroEntries(adj->DRDP));
    PetscCall(MatAssemblyBegin(adj->DRDP, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(adj->DRDP, MAT_FINAL_ASSEMBLY));
    PetscCall(PetscMalloc1(model->np, &adj->dp_all));
  }
  /* a value alone (no gradient, no forward integral) needs neither quadrature nor trajectory */
  PetscCall(MbsSimulate_Private(model, NULL, grad || integral->forward ? MbsAdjointSetUp : NULL, adj, monitor, monitor_ctx, signal, &o->ts));
  *ok = (PetscBool)(signal->reason >= 0 && !signal->nonfinite);
  if (*ok && integral->prepare) PetscCall(integral->prepare(model, signal, integral->ctx, ok));
  if (*ok && Q && integral->forward) {
    TS                 quadts;
    Vec                q;
    const PetscScalar *values;

    PetscCall(TSGetQuadratureTS(o->ts, NULL, &quadts));
    PetscCall(TSGetSolution(quadts, &q));
    PetscCall(VecGetArrayRead(q, &values));
    PetscCall(PetscArraycpy(Q, values, integral->ncomp));
    PetscCall(VecRestoreArrayRead(q, &values));
  }
  if (*ok && U_end) {
    Vec                U;
    const PetscScalar *u;

    PetscCall(TSGetSolution(o->ts, &U));
    PetscCall(VecGetArrayRead(U, &u));
    PetscCall(PetscArraycpy(U_end, u, model->n));
    PetscCall(VecRestoreArrayRead(U, &u));
  }
  if (*ok && grad) {
    Vec                lambda, mu, U;
    const PetscScalar *g, *u;
    PetscScalar       *l;
    SNES               snes;
    TSAdapt            adapt;
    PetscInt           lag, reuse;
    PetscBool          rk;

    PetscCall(VecCreateSeq(PETSC_COMM_SELF, model->n, &o->lambda));
    PetscCall(VecCreateSeq(PETSC_COMM_SELF, nid, &o->mu));
    lambda = o->lambda;
    mu     = o->mu;
    PetscCall(VecSet(lambda, 0));
    PetscCall(VecSet(mu, 0));
    if (integral->terminal) { /* lambda(tf) = dw/dU */
      PetscCall(TSGetSolution(o->ts, &U));
      PetscCall(VecGetArrayRead(U, &u));
      PetscCall(VecGetArrayWrite(lambda, &l));
      PetscCall(integral->terminal(model, u, NULL, l, integral->ctx));
      PetscCall(VecRestoreArrayWrite(lambda, &l));
      PetscCall(VecRestoreArrayRead(U, &u));
    }
    PetscCall(TSSetCostGradients(o->ts, 1, &lambda, &mu));
    PetscCall(PetscTime(&adj->last_progress));
    PetscCall(TSAdjointMonitorSet(o->ts, MbsAdjointMonitor, adj, NULL));
    /* measured: a forward solve with a lagged Jacobian leaves the adjoint solves a stale factorisation, and the
       gradient comes out wrong by orders of magnitude (a lagged forward solve alone is fine) */
    PetscCall(TSGetSNES(o->ts, &snes));
    PetscCall(SNESGetLagJacobian(snes, &lag));
    PetscCheck(lag == 1, PETSC_COMM_SELF, PETSC_ERR_ARG_INCOMP, "-snes_lag_jacobian %" PetscInt_FMT " makes TSAdjoint reuse stale Jacobians: drop it for gradients (simulate may use it)", lag);
    PetscCall(PetscObjectTypeCompare((PetscObject)o->ts, TSRK, &rk));
    if (rk) {
      PetscInt s;

      PetscCall(TSRKGetTableau(o->ts, &s, NULL, NULL, NULL, NULL, NULL, NULL, NULL));
      PetscCall(PetscMalloc5(s * model->n, &adj->xi, model->n, &adj->sigma, nid, &adj->dmu, model->n, &adj->drdu, model->n * (model->np + 1), &adj->rate_work));
      o->ts->ops->adjointstep = MbsTSAdjointStep_RK; /* MBS_PETSC_RK_ADJOINT_FORMS_JACOBIANS */
    }
    /* the sweep may recompute steps from stored step points (simulate.c, the one-stage theta methods): they must be the
       steps taken, which a step control without its history (PETSc does not restore it) would reject or change */
    if (MBS_PETSC_ADJOINT_RECOMPUTE_ADAPTS) {
      PetscCall(TSGetAdapt(o->ts, &adapt));
      PetscCall(TSAdaptSetType(adapt, TSADAPTNONE));
    }
    /* the forward's Newton factors afresh again after the sweep */
    PetscCall(MbsModelGetAdjointKLUReuse(model, &reuse));
    PetscCall(MbsTSSetKLUReuse(o->ts, reuse));
    PetscCall(TSAdjointSolve(o->ts));
    PetscCall(MbsTSSetKLUReuse(o->ts, 0));
    PetscCall(VecGetArrayRead(mu, &g));
    for (PetscInt k = 0; k < nid; k++)
      PetscCheck(!PetscIsInfOrNanReal(g[k]), PETSC_COMM_SELF, PETSC_ERR_FP, "The adjoint gradient of %s with respect to parameter %s of model %s is %g: the adjoint solve overflowed", integral->name, model->param_info[id[k]].name, model->type, (double)g[k]);
    PetscCall(PetscArraycpy(grad, g, nid));
    PetscCall(VecRestoreArrayRead(mu, &g));
    PetscCall(VecGetArrayRead(lambda, &g)); /* now dJ/dU(t0) */
    PetscCall(MbsModelInitialStateGradient(model, model->t0, nid, id, g, grad));
    PetscCall(VecRestoreArrayRead(lambda, &g));
  }
  PetscFunctionReturn(0);
}

/*@C
  MbsIntegralGradient - Integrates the model with the integrals Q = int r(t, U) dt of the integral cost (ncomp
  components, by the integrator's own rule; Q and U_end may be NULL) and, when grad is not NULL, the gradient of
  J = Q_0 + w(U(tf)) with respect to the parameters id[0..nid-1] by one discrete adjoint solve. A failed forward
  integration, or one whose signal the integral cost cannot use (prepare), is not an error: *ok is PETSC_FALSE and Q,
  U_end and grad are left alone.
  The TS reads the options -ts_*. Not collective.
@*/
PetscErrorCode MbsIntegralGradient(MbsModel model, const MbsIntegralCost *integral, PetscInt nid, const PetscInt id[], MbsStateMonitor monitor, void *monitor_ctx, PetscReal Q[], PetscReal U_end[], PetscReal grad[], PetscBool *ok)
{
  MbsGradientObjects o;

  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(&o, sizeof(o)));
  o.adj.model    = model;
  o.adj.integral = integral;
  o.adj.nid      = nid;
  o.adj.id       = id;
  MbsCallCleanup(MbsIntegralGradient_Private(&o, model, integral, nid, id, monitor, monitor_ctx, Q, U_end, grad, ok), MbsGradientObjectsDestroy_Private(&o));
  PetscFunctionReturn(0);
}

typedef struct {
  MbsCost   cost;
  PetscReal J;
} MbsCostIntegral;

/* The cost's density needs the forward signal before the adjoint sweep: J is evaluated there, if the cost can use it */
static PetscErrorCode MbsCostPrepare(MbsModel model, const MbsSignal *signal, void *ctx, PetscBool *usable)
{
  MbsCostIntegral *c = (MbsCostIntegral *)ctx;

  PetscFunctionBeginUser;
  PetscCall(MbsCostSignalUsable(c->cost, signal, usable));
  if (*usable) PetscCall(MbsCostEvaluate(c->cost, signal, &c->J));
  PetscFunctionReturn(0);
}

/* r(t, U) = sum_c w_c r'_c(t, y_c) y_c: any integrand with the right derivative serves; J comes from the cost on the
   forward signal. dr/dp = sum_c w_c r'_c(t, y_c) dy_c/dp of the channels that depend on the parameters directly. */
static PetscErrorCode MbsCostDensityIntegrand(MbsModel model, PetscReal t, const PetscReal u[], PetscReal r[], PetscReal drdu[], PetscReal drdp[], void *ctx)
{
  MbsCostIntegral *c = (MbsCostIntegral *)ctx;

  PetscFunctionBeginUser;
  PetscCall(MbsCostDensity(c->cost, t, u, &r[0], drdu, drdp));
  PetscFunctionReturn(0);
}

/* dJ/dU_n += sum_c w_c dJ_c/dy_c,n dy_c/dU_n at a step point the cost reads */
static PetscErrorCode MbsCostStepPointDerivative(MbsModel model, PetscInt step, PetscReal t, const PetscReal u[], PetscReal dJdu[], void *ctx)
{
  MbsCostIntegral *c = (MbsCostIntegral *)ctx;

  PetscFunctionBeginUser;
  PetscCall(MbsCostStepPoint(c->cost, step, t, u, dJdu));
  PetscFunctionReturn(0);
}

/* dJ/dp = sum_c w_c dJ_c/dy_c,n dy_c/dp at a step point the cost reads, for channels that depend on the parameters
   directly */
static PetscErrorCode MbsCostStepPointDerivativeP(MbsModel model, PetscInt step, PetscReal t, const PetscReal u[], PetscReal dJdp[], void *ctx)
{
  MbsCostIntegral *c = (MbsCostIntegral *)ctx;

  PetscFunctionBeginUser;
  PetscCall(MbsCostStepPointP(c->cost, step, t, u, dJdp));
  PetscFunctionReturn(0);
}

/*@C
  MbsGradient - The cost J of the model's current parameters and, when grad is not NULL, dJ/dp of the parameters
  id[0..nid-1] by one adjoint solve (a cost that simulates nothing, frf, by its own gradient). A failed forward integration, or a signal the cost cannot use (an adaptive step that
  aliases an analysed frequency, MbsCostSignalUsable()), is not an error: *ok is PETSC_FALSE, J is infinite and grad is
  left alone. The TS reads the options -ts_*. Not collective.
@*/
PetscErrorCode MbsGradient(MbsModel model, MbsCost cost, PetscInt nid, const PetscInt id[], PetscReal *J, PetscReal grad[], PetscBool *ok)
{
  MbsCostIntegral c        = {cost, PETSC_INFINITY};
  MbsIntegralCost integral = {"the cost", 1, PETSC_FALSE, NULL, NULL, MbsCostPrepare, &c, NULL, PETSC_FALSE, NULL};
  PetscBool       density, step_point, output_p, simulates;

  PetscFunctionBeginUser;
  PetscCall(MbsCostSimulates(cost, &simulates));
  if (!simulates) { /* a cost on the model itself (frf): its own exact gradient, no forward or adjoint solve */
    PetscCall(MbsCostGradient(cost, nid, id, J, grad, NULL));
    *ok = PETSC_TRUE;
    PetscFunctionReturn(0);
  }
  PetscCall(MbsCostGetAdjointTerms(cost, &density, &step_point));
  PetscCall(MbsModelHasOutputP(model, &output_p));
  integral.integrand    = density ? MbsCostDensityIntegrand : NULL;
  integral.step_point   = step_point ? MbsCostStepPointDerivative : NULL;
  integral.integrand_p  = (PetscBool)(density && output_p);
  integral.step_point_p = step_point && output_p ? MbsCostStepPointDerivativeP : NULL;
  PetscCall(MbsIntegralGradient(model, &integral, nid, id, NULL, NULL, NULL, NULL, grad, ok));
  *J = *ok ? c.J : PETSC_INFINITY;
  PetscFunctionReturn(0);
}
