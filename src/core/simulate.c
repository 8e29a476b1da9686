/*
  Forward simulation of a model with PETSc TS.

  Implicit methods see the implicit form F(t, U, U') = 0 (integration_form.c); the default is Crank-Nicolson
  (TSCN, the theta method with theta = 1/2 at the end points). Explicit methods (TSRK with an embedded pair and
  -ts_adapt_type basic: adaptive, higher order) see the rate U' = g(t, U) of an ODE model. PETSc's TSAdjoint
  differentiates TSTHETA and TSRK exactly, on the steps actually taken; any -ts_type, -ts_dt and adaptivity are
  honoured.

  The output is recorded at every accepted step, and at the nodes of the integrator's own quadrature rule
  (mbsid.h, MbsSignal): the step points for the end-point theta methods (cn), the stage for the one-stage theta
  methods (theta, beuler), the stages for Runge-Kutta methods, which are what TSAdjoint integrates a cost with.
  Costs summed over these nodes are the exact discrete functions the adjoint differentiates. When the model has sample
  times (a measured signal a cost compares with), every step sequence, fixed or adaptive, lands on each of them: the
  output there is a step point, whatever the integrator.
*/
#include "core/coreimpl.h"
#include <petsctime.h>

typedef struct {
  MbsModel        model;
  MbsSignal      *signal;
  MbsStateMonitor monitor; /* optional, sees the state of every accepted step */
  void           *monitor_ctx;
  PetscInt        nalloc, nq_alloc;
  PetscInt        channel_alloc, channel_q_alloc; /* entries of each array of signal->yc, signal->yqc */
  PetscReal      *channel_y;                      /* the channels' values at one node */
  PetscLogDouble  last_progress;                  /* wall time of the last progress line [s] */
  /* Methods whose quadrature nodes are stages (Runge-Kutta; the one-stage theta methods, whose b = 1, c = theta): b and
     c, and the stages in the order of c (quadrature nodes in time order); the others weigh the step points by
     step_theta. Set after the options are read. */
  PetscBool        at_stages;
  PetscReal        step_theta, theta_b, theta_c;
  PetscInt         nstage, *stage_order;
  const PetscReal *b, *c;
} MbsSimContext;

/*
  The start of each Newton solve of a theta method: the polynomial through the last order + 1 accepted states,
  extrapolated to the stage's time t_n + c h (c = 1 for the end-point forms, theta otherwise). PETSc starts from U_n,
  an error of O(h) that a lagged Newton, contracting linearly, needs one or two more iterations to remove than it needs
  from the O(h^2) of a line or the O(h^3) of a parabola. Only the start changes: every solve still converges to
  rounding, so the discrete solution and its adjoint are the same. Kept with the SNES (composed), so that the steps an
  adjoint solve recomputes from a checkpoint are predicted as well; states at or after t_n (a rejected step, a
  recomputation, a new solve) are forgotten.
*/
#define MBS_PREDICTOR_MAX_ORDER 4
typedef struct {
  TS               ts;
  PetscInt         order; /* degree of the polynomial: 0 (PETSc's start, U_n) .. MBS_PREDICTOR_MAX_ORDER */
  PetscReal        c;
  PetscInt         nheld, nkeep;                   /* nkeep: order + 2 with algebraic components (the alternating term), else order + 1 */
  PetscReal        t[MBS_PREDICTOR_MAX_ORDER + 2]; /* the states held, the latest first */
  Vec              U[MBS_PREDICTOR_MAX_ORDER + 2];
  Vec              moved, work;  /* U_n minus the start of the last solve; scratch */
  const PetscBool *differential; /* the kinds of the components, with an alternating term for the algebraic ones; NULL: none */
} MbsNewtonPredictor;

/* Newton on a Jacobian lagged across iterations converges linearly, by a factor theta per iteration: the error a step
   dx leaves is about theta/(1 - theta) |dx| (Hairer and Wanner, Solving ODEs II, IV.8), not the |dx|^2 of a fresh
   Jacobian that SNES's step test |dx| < stol |x| assumes. Stopping there left an error of theta stol |x| that moved
   with the parameters as iteration counts changed: near an optimum J was noisy and TAO stalled. */
typedef struct {
  PetscReal           last_step; /* |dx| of this solve's previous iteration (0 at its first) */
  PetscReal           theta;     /* the last contraction measured, for the first iteration of the next solve */
  PetscReal           f_start;   /* |F| at U_n, where PETSc starts, estimated when a predictor starts elsewhere (else 0) */
  MbsNewtonPredictor *predictor; /* NULL: PETSc's start */
  PetscInt            lag;       /* SNES's schedule: a fresh Jacobian every lag iterations, across steps */
  TS                  ts;
  const PetscBool    *differential; /* the model's, NULL: no algebraic component (MbsLaggedNewtonScaledNorms_Private) */
} MbsLaggedNewton;

typedef struct {
  MbsSimContext   sim;
  TS              ts;
  Vec             U, Udot;
  Mat             J;
  MbsLaggedNewton newton;
} MbsSimObjects;

/*
  Tsitouras's 5(4) pair (Comput. Math. Appl. 62 (2011) 770-775), FSAL, registered as -ts_rk_type tsit5 while PETSc
  3.18's adjoint got dJ/dp wrong on the inner b_i = 0 of its own fifth-order pairs (5dp, 5f, 5bs); mbsid's own adjoint
  step (adjoint.c) takes those too now, and tsit5 stays the method the tests and design use. The error estimate is
  sum (b_i - bhat_i) k_i with the published differences b - bhat.
*/
static PetscErrorCode MbsTSRKRegisterTsit5_Private(void)
{
  static PetscBool registered = PETSC_FALSE;
  const PetscReal  A[7][7]    = {
        {0,                     0,                   0,                  0,                    0,                     0,                 0},
        {0.161,                 0,                   0,                  0,                    0,                     0,                 0},
        {-0.008480655492356989, 0.335480655492357,   0,                  0,                    0,                     0,                 0},
        {2.897153057105493,     -6.359448489975075,  4.3622954328695815, 0,                    0,                     0,                 0},
        {5.325864828439257,     -11.748883564062828, 7.4955393428898365, -0.09249506636175525, 0,                     0,                 0},
        {5.86145544294642,      -12.92096931784711,  8.159367898576159,  -0.071584973281401,   -0.028269050394068383, 0,                 0},
        {0.09646076681806523,   0.01,                0.4798896504144996, 1.379008574103742,    -3.290069515436081,    2.324710524099774, 0}
  };
  const PetscReal b_minus_bhat[7] = {-0.00178001105222577714, -0.0008164344596567469, 0.007880878010261995, -0.1447110071732629, 0.5823571654525552, -0.45808210592918697, 1.0 / 66};
  PetscReal       bhat[7];

  PetscFunctionBeginUser;
  if (registered) PetscFunctionReturn(0);
  for (PetscInt i = 0; i < 7; i++) bhat[i] = A[6][i] - b_minus_bhat[i];
  PetscCall(TSRKRegister("tsit5", 5, 7, &A[0][0], NULL, NULL, bhat, 0, NULL));
  registered = PETSC_TRUE;
  PetscFunctionReturn(0);
}

/* The methods that take the explicit rate U' = g(t, U) (TSSetRHSFunction) instead of the implicit form */
static PetscBool MbsTSTypeIsExplicit(TSType type)
{
  const char *explicit_types[] = {TSRK, TSEULER, TSSSP};
  PetscBool   match            = PETSC_FALSE;

  for (size_t i = 0; i < PETSC_STATIC_ARRAY_LENGTH(explicit_types) && !match; i++) PetscCallAbort(PETSC_COMM_SELF, PetscStrcmp(type, explicit_types[i], &match));
  return match;
}

/* What the sparse path keeps with its AIJ matrix (composed with it, so it lives as long as the TS that uses it) */
typedef struct {
  PetscInt  *entry; /* the dense index (i + j n) of each stored entry, in the matrix's CSR order */
  PetscInt   nnz;
  PetscReal *mass; /* dF/dU' at each stored entry (a constant-mass model); NULL: no shifted reuse */
  PetscReal *key;  /* t, shift and U (n) of the Jacobian last assembled (t PETSC_MAX_REAL: none yet) */
} MbsSparseJacobian;

static PetscErrorCode MbsSparseJacobianDestroy_Private(void *ctx)
{
  MbsSparseJacobian *sj = (MbsSparseJacobian *)ctx;

  PetscFunctionBeginUser;
  PetscCall(PetscFree(sj->entry));
  PetscCall(PetscFree2(sj->mass, sj->key));
  PetscCall(PetscFree(sj));
  PetscFunctionReturn(0);
}

static PetscErrorCode MbsSparseJacobianGet_Private(Mat J, MbsSparseJacobian **sj)
{
  PetscContainer container;

  PetscFunctionBeginUser;
  PetscCall(PetscObjectQuery((PetscObject)J, "MbsSparseJacobian", (PetscObject *)&container));
  PetscCheck(container, PETSC_COMM_SELF, PETSC_ERR_PLIB, "The sparse Jacobian lost its index (MbsSparseJacobianCreate_Private)");
  PetscCall(PetscContainerGetPointer(container, (void **)sj));
  PetscFunctionReturn(0);
}

/* The dense index of each stored entry of the AIJ J, in its CSR order (after every change of its pattern) */
static PetscErrorCode MbsSparseJacobianIndex_Private(MbsModel model, Mat J, MbsSparseJacobian *sj)
{
  const PetscInt *ia, *ja;
  PetscInt        nrow;
  PetscBool       done;

  PetscFunctionBeginUser;
  PetscCall(MatGetRowIJ(J, 0, PETSC_FALSE, PETSC_FALSE, &nrow, &ia, &ja, &done));
  PetscCheck(done, PETSC_COMM_SELF, PETSC_ERR_LIB, "The sparse Jacobian of model %s gives no row structure", model->type);
  PetscCall(PetscFree(sj->entry));
  PetscCall(PetscMalloc1(ia[nrow], &sj->entry));
  sj->nnz = ia[nrow];
  for (PetscInt i = 0; i < nrow; i++)
    for (PetscInt k = ia[i]; k < ia[i + 1]; k++) sj->entry[k] = i + ja[k] * nrow;
  PetscCall(MatRestoreRowIJ(J, 0, PETSC_FALSE, PETSC_FALSE, &nrow, &ia, &ja, &done));
  PetscFunctionReturn(0);
}

/*
  The model's dense Jacobian (work, MbsModelGetJacobianWork()) into the AIJ B: every stored entry straight into B's values, each
  taken out of the dense array; what is left non-zero lies outside the pattern (a state made it non-zero), extends it
  and takes a new index. Every stored entry is overwritten, so an entry a past state made non-zero keeps no old value.
*/
static PetscErrorCode MbsSparseJacobianGather_Private(MbsModel model, PetscReal work[], Mat B, MbsSparseJacobian *sj)
{
  PetscReal *a;
  PetscInt   n = model->n, outside = 0;

  PetscFunctionBeginUser;
  PetscCall(MatSeqAIJGetArrayWrite(B, &a));
  for (PetscInt k = 0; k < sj->nnz; k++) {
    a[k]               = work[sj->entry[k]];
    work[sj->entry[k]] = 0;
  }
  PetscCall(MatSeqAIJRestoreArrayWrite(B, &a));
  for (PetscInt i = 0; i < n * n; i++) outside += work[i] != 0;
  if (!outside) PetscFunctionReturn(0);
  for (PetscInt i = 0; i < n * n; i++)
    if (work[i] != 0) PetscCall(MatSetValue(B, i % n, i / n, work[i], INSERT_VALUES));
  PetscCall(MatAssemblyBegin(B, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(B, MAT_FINAL_ASSEMBLY));
  PetscCall(PetscInfo(NULL, "Model %s: %" PetscInt_FMT " entries of the Jacobian outside its pattern extend it\n", model->type, outside));
  PetscCall(MbsSparseJacobianIndex_Private(model, B, sj));
  PetscCall(PetscFree2(sj->mass, sj->key)); /* aligned with the former pattern */
  PetscFunctionReturn(0);
}

/*
  Whether B still holds the Jacobian the last call assembled at the same (t, U), with another shift only; then it is
  shifted in place by (shift - last shift) dF/dU' (constant for a constant-mass model, whose dF/dU does not depend on
  U'). An adjoint step of CN asks for the Jacobian at U_n with one shift, the next step at the same U_n with another.
  Nothing but this callback writes into the TS's Jacobian (PETSc's adjoint only multiplies with it).
*/
static PetscErrorCode MbsSparseJacobianShift_Private(PetscInt n, PetscReal t, const PetscReal u[], PetscReal shift, Mat B, MbsSparseJacobian *sj, PetscBool *shifted)
{
  PetscReal *a;

  PetscFunctionBeginUser;
  *shifted = PETSC_FALSE;
  if (!sj->mass || t != sj->key[0]) PetscFunctionReturn(0);
  for (PetscInt i = 0; i < n; i++)
    if (u[i] != sj->key[2 + i]) PetscFunctionReturn(0);
  PetscCall(MatSeqAIJGetArray(B, &a));
  for (PetscInt k = 0; k < sj->nnz; k++) a[k] += (shift - sj->key[1]) * sj->mass[k];
  PetscCall(MatSeqAIJRestoreArray(B, &a));
  sj->key[1] = shift;
  *shifted   = PETSC_TRUE;
  PetscFunctionReturn(0);
}

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
  PetscBool          sparse;

  PetscFunctionBeginUser;
  PetscCall(VecGetArrayRead(U, &u));
  PetscCall(VecGetArrayRead(Udot, &udot));
  PetscCall(MbsModelGetJacobianSettings(model, &sparse, NULL, NULL, NULL));
  if (sparse) {
    MbsSparseJacobian *sj;
    PetscBool          shifted;
    PetscReal         *work;

    PetscCall(MbsSparseJacobianGet_Private(B, &sj));
    PetscCall(MbsSparseJacobianShift_Private(model->n, t, u, shift, B, sj, &shifted));
    if (!shifted && MbsModelHasSparseJacobian(model)) PetscCall(MbsModelJacobianMat(model, t, u, udot, shift, B));
    else if (!shifted) {
      PetscCall(MbsModelGetJacobianWork(model, &work));
      PetscCall(MbsModelFormJacobian(model, t, u, udot, shift, work));
      PetscCall(MbsSparseJacobianGather_Private(model, work, B, sj));
    }
    if (!shifted && sj->mass) {
      sj->key[0] = t;
      sj->key[1] = shift;
      PetscCall(PetscArraycpy(sj->key + 2, u, model->n));
    }
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

static PetscErrorCode MbsRHSFunction(TS ts, PetscReal t, Vec U, Vec G, void *ctx)
{
  MbsModel           model = (MbsModel)ctx;
  const PetscScalar *u;
  PetscScalar       *g;

  PetscFunctionBeginUser;
  PetscCall(VecGetArrayRead(U, &u));
  PetscCall(VecGetArrayWrite(G, &g));
  PetscCall(MbsModelRate(model, t, u, g));
  PetscCall(VecRestoreArrayWrite(G, &g));
  PetscCall(VecRestoreArrayRead(U, &u));
  PetscFunctionReturn(0);
}

/* Appends (t, y[, w]) to arrays of *nalloc entries (PetscMalloc2 of t, y or PetscMalloc3 of t, y, w), doubling them when full */
static PetscErrorCode MbsAppend_Private(PetscInt *n, PetscInt *nalloc, PetscReal **t, PetscReal **y, PetscReal **w, PetscReal t_new, PetscReal y_new, PetscReal w_new)
{
  PetscFunctionBeginUser;
  if (*n == *nalloc) {
    PetscInt   nalloc_new = PetscMax(1024, 2 * *nalloc);
    PetscReal *t_grown, *y_grown, *w_grown = NULL;

    if (w) PetscCall(PetscMalloc3(nalloc_new, &t_grown, nalloc_new, &y_grown, nalloc_new, &w_grown));
    else PetscCall(PetscMalloc2(nalloc_new, &t_grown, nalloc_new, &y_grown));
    PetscCall(PetscArraycpy(t_grown, *t, *n));
    PetscCall(PetscArraycpy(y_grown, *y, *n));
    if (w) {
      PetscCall(PetscArraycpy(w_grown, *w, *n));
      PetscCall(PetscFree3(*t, *y, *w));
      *w = w_grown;
    } else PetscCall(PetscFree2(*t, *y));
    *t      = t_grown;
    *y      = y_grown;
    *nalloc = nalloc_new;
  }
  (*t)[*n] = t_new;
  (*y)[*n] = y_new;
  if (w) (*w)[*n] = w_new;
  (*n)++;
  PetscFunctionReturn(0);
}

/* Stores every output channel at U as entry i of the arrays yc[c] of *nalloc entries, doubling them when full */
static PetscErrorCode MbsRecordChannels_Private(MbsSimContext *sim, PetscInt nchannel, PetscInt i, PetscInt *nalloc, PetscReal **yc, PetscReal t, const PetscScalar u[])
{
  PetscFunctionBeginUser;
  PetscCall(MbsModelChannelValues(sim->model, nchannel, NULL, t, u, sim->channel_y));
  for (PetscInt c = 0; c < nchannel; c++) {
    if (i == *nalloc) PetscCall(PetscRealloc(PetscMax(1024, 2 * *nalloc) * sizeof(PetscReal), &yc[c]));
    yc[c][i] = sim->channel_y[c];
  }
  if (i == *nalloc) *nalloc = PetscMax(1024, 2 * *nalloc);
  PetscFunctionReturn(0);
}

/*
  The rule by which PETSc 3.18 integrates a cost (TSForwardCostIntegral, and its derivative in TSAdjointStep), which the
  recorded nodes must be: Runge-Kutta methods the stages t_n + c_i h with b_i h. The theta methods in their end-point
  form (cn, -ts_theta_endpoint) the step points, (1 - theta) h at t_n and theta h at t_n+1; in their one-stage form
  (theta, beuler) the stage t_n + theta h, U_n + theta (U_n+1 - U_n), with h: for theta = 1 (beuler) the step's end
  point, the rectangle rule. Methods without an adjoint (bdf, euler, ssp) get the trapezoid rule.
*/
static PetscErrorCode MbsQuadratureRuleSetUp_Private(TS ts, MbsSimContext *sim)
{
  PetscBool rk, theta, endpoint = PETSC_FALSE;
  PetscReal value = 0.5;

  PetscFunctionBeginUser;
  PetscCall(PetscObjectTypeCompare((PetscObject)ts, TSRK, &rk));
  PetscCall(PetscObjectTypeCompareAny((PetscObject)ts, &theta, TSTHETA, TSCN, TSBEULER, ""));
  if (theta) {
    PetscCall(TSThetaGetEndpoint(ts, &endpoint));
    PetscCall(TSThetaGetTheta(ts, &value));
  }
  sim->step_theta = value;
  sim->at_stages  = (PetscBool)(rk || (theta && !endpoint && value != 1));
  if (rk) PetscCall(TSRKGetTableau(ts, &sim->nstage, NULL, &sim->b, &sim->c, NULL, NULL, NULL, NULL));
  else if (sim->at_stages) {
    sim->theta_b = 1;
    sim->theta_c = value;
    sim->nstage  = 1;
    sim->b       = &sim->theta_b;
    sim->c       = &sim->theta_c;
  }
  if (!sim->at_stages) PetscFunctionReturn(0);
  PetscCall(PetscMalloc1(sim->nstage, &sim->stage_order));
  for (PetscInt i = 0; i < sim->nstage; i++) sim->stage_order[i] = i;
  for (PetscInt i = 1; i < sim->nstage; i++) /* insertion sort by c: a few stages */
    for (PetscInt j = i; j > 0 && sim->c[sim->stage_order[j - 1]] > sim->c[sim->stage_order[j]]; j--) {
      PetscInt k = sim->stage_order[j];

      sim->stage_order[j]     = sim->stage_order[j - 1];
      sim->stage_order[j - 1] = k;
    }
  PetscFunctionReturn(0);
}

/* The quadrature nodes of the step just accepted: its stages with b_i != 0, in the order of c */
static PetscErrorCode MbsRecordStages_Private(TS ts, MbsSimContext *sim, PetscReal t)
{
  MbsSignal *signal = sim->signal;
  PetscReal  t_prev, h;
  PetscInt   nstage;
  Vec       *Y;

  PetscFunctionBeginUser;
  if (signal->n < 2) PetscFunctionReturn(0); /* the initial state: no step yet */
  PetscCall(TSGetStages(ts, &nstage, &Y));
  t_prev = signal->t[signal->n - 2];
  h      = t - t_prev;
  for (PetscInt k = 0; k < sim->nstage; k++) {
    PetscInt           i = sim->stage_order[k];
    const PetscScalar *u;
    PetscReal          y, node;

    if (sim->b[i] == 0) continue;
    /* PETSc sums the rows of A into c: 5bs's c_7 = 1 + 2e-16 would put its node past the next step's first */
    node = t_prev + PetscMin(sim->c[i], 1) * h;
    PetscCall(VecGetArrayRead(Y[i], &u));
    PetscCall(MbsModelOutput(sim->model, node, u, &y, NULL));
    PetscCall(MbsRecordChannels_Private(sim, signal->nchannel, signal->nq, &sim->channel_q_alloc, signal->yqc, node, u));
    PetscCall(VecRestoreArrayRead(Y[i], &u));
    PetscCall(MbsAppend_Private(&signal->nq, &sim->nq_alloc, &signal->tq, &signal->yq, &signal->wq, node, y, sim->b[i] * h));
  }
  PetscFunctionReturn(0);
}

/*
  Adaptive steps of a DAE: the error estimate covers the differential components only. The algebraic ones (the
  multipliers of engine4, its massless nodes) follow the differential ones and carry no local error of their own
  that a step size could control; their size (forces of 1e3 N m) would make any common tolerance meaningless.
*/
static PetscErrorCode MbsDAETolerances_Private(MbsModel model, TS ts)
{
  PetscReal        atol, rtol;
  Vec              vatol, vrtol;
  PetscScalar     *a, *r;
  const PetscBool *differential;

  PetscFunctionBeginUser;
  PetscCall(MbsModelGetDifferentialInfo(model, &differential, NULL, NULL));
  for (PetscInt i = 0; i < model->n; i++) {
    if (differential[i]) continue;
    PetscCall(TSGetTolerances(ts, &atol, NULL, &rtol, NULL));
    PetscCall(VecCreateSeq(PETSC_COMM_SELF, model->n, &vatol));
    PetscCall(VecDuplicate(vatol, &vrtol));
    PetscCall(VecGetArrayWrite(vatol, &a));
    PetscCall(VecGetArrayWrite(vrtol, &r));
    for (PetscInt k = 0; k < model->n; k++) {
      a[k] = differential[k] ? atol : PETSC_INFINITY;
      r[k] = differential[k] ? rtol : 0;
    }
    PetscCall(VecRestoreArrayWrite(vrtol, &r));
    PetscCall(VecRestoreArrayWrite(vatol, &a));
    PetscCall(TSSetTolerances(ts, PETSC_DECIDE, vatol, PETSC_DECIDE, vrtol));
    PetscCall(VecDestroy(&vatol));
    PetscCall(VecDestroy(&vrtol));
    break;
  }
  PetscFunctionReturn(0);
}

/*
  PETSc 3.18's two-level checkpointing (-ts_trajectory_stride) counts fixed steps (adaptive ones, and the extra steps that
  end on measured samples between them, overrun its stack), and its recomputed Runge-Kutta steps give first-same-as-last
  tableaus (tsit5) a wrong adjoint: all are refused. So is a stride that does not divide the number of steps: without
  revolve (max_cps_ram >= stride, or unset) its stack holds stride - 1 checkpoints, and the last, shorter stride leaves
  one of its own there when the sweep loads the stride before it (1200 steps in strides of 7: "Maximum stack size (6)
  exceeded", then a segfault); a stride longer than the run loads a stride never stored (dJ/dp 160 % off). The number
  is the one PETSc plans, ceil((tf - t0)/dt), also where the solve takes one step fewer by stretching its last step
  (0.07 s in steps of 0.01 s is 7.000000000000001 steps: 8 planned, 7 taken): the checkpoints follow the plan (-time_span
  0,0.07005 in strides of 7 overruns the stack, in strides of 4 or 8 matches central differences; stride_planned_steps).
*/
#define MBS_LAST_STEP_STRETCH 0.01 /* PETSc 3.18's TSAdaptChoose stretches a last step by up to 1 % (matchstepfac[0]) */
static PetscErrorCode MbsCheckCheckpointing_Private(MbsModel model, TS ts)
{
  TSTrajectory     trajectory;
  TSAdaptType      adapt_type;
  TSAdapt          adapt;
  PetscBool        stride, fixed, rk;
  PetscReal        dt, ratio;
  PetscInt         nsample, size = 0, nstep;
  const PetscReal *sample_t;

  PetscFunctionBeginUser;
  PetscCall(TSGetTrajectory(ts, &trajectory));
  PetscCall(PetscOptionsHasName(NULL, NULL, "-ts_trajectory_stride", &stride));
  if (!trajectory || !stride) PetscFunctionReturn(0);
  PetscCall(TSGetAdapt(ts, &adapt));
  PetscCall(TSAdaptGetType(adapt, &adapt_type));
  PetscCall(PetscStrcmp(adapt_type, TSADAPTNONE, &fixed));
  PetscCall(PetscObjectTypeCompare((PetscObject)ts, TSRK, &rk));
  PetscCheck(!rk, PETSC_COMM_SELF, PETSC_ERR_SUP, "-ts_trajectory_stride (two-level checkpointing) recomputes Runge-Kutta steps, where PETSc 3.18's adjoint is wrong for tsit5; with -ts_type rk keep the trajectory in memory (drop -ts_trajectory_stride)");
  PetscCheck(fixed, PETSC_COMM_SELF, PETSC_ERR_SUP, "-ts_trajectory_stride (two-level checkpointing) needs fixed steps (-ts_adapt_type none); with adaptive steps keep the trajectory in memory (drop -ts_trajectory_stride)");
  PetscCall(TSGetTimeStep(ts, &dt));
  PetscCall(MbsModelGetSampleTimes(model, &nsample, &sample_t, NULL));
  for (PetscInt i = 0; i < nsample; i++) { /* a sample between the fixed steps adds a step there */
    PetscReal k = (sample_t[i] - model->t0) / dt;

    PetscCheck(PetscAbsReal(k - PetscFloorReal(k + 0.5)) <= 1e-6, PETSC_COMM_SELF, PETSC_ERR_SUP, "-ts_trajectory_stride (two-level checkpointing) counts the fixed steps of -ts_dt %g s, but the measured sample at t = %g s, which the time cost makes a step end on, lies between two of them: give a -ts_dt that divides the sample times or drop -ts_trajectory_stride", (double)dt, (double)sample_t[i]);
  }
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-ts_trajectory_stride", &size, NULL));
  ratio = (model->tf - model->t0) / dt;
  nstep = (PetscInt)PetscCeilReal(ratio); /* as PETSc plans its checkpoints, even where the solve takes one fewer */
  if (size > 1 && nstep % size) {
    PetscInt below = PetscMin(size, nstep), above;
    char     nearest[64], spans[160] = "", taken[160] = "";

    while (below > 1 && nstep % below) below--; /* the divisors of nstep nearest the stride; 1 is no two-level stride */
    above = below;
    if (below < size && size < nstep)
      for (above = size; nstep % above;) above++;
    if (below > 1 && below < above) PetscCall(PetscSNPrintf(nearest, sizeof(nearest), "e.g. %" PetscInt_FMT " or %" PetscInt_FMT, below, above));
    else PetscCall(PetscSNPrintf(nearest, sizeof(nearest), "e.g. %" PetscInt_FMT, above));
    for (PetscInt m = (nstep / size) * size; m <= nstep + size; m += size) { /* spans that PETSc plans in m steps, all taken */
      for (PetscInt nudge = 0; m >= size && nudge < 2; nudge++) {            /* t0 + m dt as typed may hold a sliver more */
        char      tf[32], span[80];
        PetscReal r;

        PetscCall(PetscSNPrintf(tf, sizeof(tf), "%.15g", (double)(model->t0 + m * dt * (1 - nudge * 1e-13))));
        r = (strtod(tf, NULL) - model->t0) / dt;
        if (PetscCeilReal(r) != m || r - (m - 1) < MBS_LAST_STEP_STRETCH) continue;
        PetscCall(PetscSNPrintf(span, sizeof(span), "%s-time_span %.15g,%s", spans[0] ? " or " : ", e.g. ", (double)model->t0, tf));
        PetscCall(MbsStrlcat(spans, span, sizeof(spans)));
        break;
      }
    }
    if (ratio - (nstep - 1) < MBS_LAST_STEP_STRETCH)
      PetscCall(PetscSNPrintf(taken, sizeof(taken), " (%.16g rounded up; the solve stretches its last step and takes %" PetscInt_FMT ", but the checkpoints follow the %" PetscInt_FMT ")", (double)ratio, nstep - 1, nstep));
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP, "-ts_trajectory_stride %" PetscInt_FMT " (two-level checkpointing) must divide the number of fixed steps, %" PetscInt_FMT " for -time_span [%g, %g] s in steps of -ts_dt %g s as PETSc 3.18 counts them%s: it overruns its checkpoint stack on a shorter last stride. Give a stride that divides %" PetscInt_FMT " (%s), or a -time_span of a multiple of %" PetscInt_FMT " steps%s (-NAME_ts_trajectory_stride and -NAME_time_span set them for experiment NAME only)", size, nstep,
            (double)model->t0, (double)model->tf, (double)dt, taken, nstep, nearest, size, spans);
  }
  PetscFunctionReturn(0);
}
/*
  PETSc 3.18's trajectory in memory keeps the stages of a step, and restores its end state U_n+1 only for methods whose
  last stage is that state. The adjoint of a one-stage theta method recovers U_n from the stage and U_n+1, so from the
  second step back it works on a stale U_n+1 and evaluates dF/dp at a wrong U' (dJ/dm of oscillator2 came out 1e3
  times too large, of the wrong sign). Keeping the step points instead, from which the adjoint sweep recomputes each
  step (one more forward step per step), restores both; the trajectory on disk keeps both anyway.
*/
static PetscErrorCode MbsTrajectoryKeepStepPoints_Private(TS ts, const MbsSimContext *sim)
{
  TSTrajectory trajectory;
  PetscBool    rk, memory;

  PetscFunctionBeginUser;
  PetscCall(TSGetTrajectory(ts, &trajectory));
  if (!trajectory || !sim->at_stages) PetscFunctionReturn(0);
  PetscCall(PetscObjectTypeCompare((PetscObject)ts, TSRK, &rk));
  PetscCall(PetscObjectTypeCompare((PetscObject)trajectory, TSTRAJECTORYMEMORY, &memory));
  if (!rk && memory) PetscCall(TSTrajectorySetSolutionOnly(trajectory, PETSC_TRUE));
  PetscFunctionReturn(0);
}

/* More fixed steps than a solve may take: 10^7 steps are 1000 s at the 0.1 ms of the stiffest model, and hold
   gigabytes of trajectory; more would run for days */
#define MBS_MAX_FIXED_STEPS 1e7

/*@C
  MbsCheckFixedStepCount - Refuses a -time_span that takes more than 10^7 fixed steps of dt; a command calls it before
  its first solve, the integrator's set-up for every solve. Not collective.
@*/
PetscErrorCode MbsCheckFixedStepCount(MbsModel model, PetscReal dt)
{
  PetscFunctionBeginUser;
  PetscCheck((model->tf - model->t0) / dt <= MBS_MAX_FIXED_STEPS, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-time_span [%g, %g] s in steps of -ts_dt %g s is %.3g steps, more than the %g one solve may take (each is kept for the adjoint and the spectrum): shorten -time_span or lengthen -ts_dt",
             (double)model->t0, (double)model->tf, (double)dt, (double)((model->tf - model->t0) / dt), (double)MBS_MAX_FIXED_STEPS);
  PetscFunctionReturn(0);
}

/* A step that the simulation or the model cannot take is the user's error, named as such (one huge step would
   report an amplitude of 0 with success), and so is a number of fixed steps that would run for days */
static PetscErrorCode MbsCheckTimeStep_Private(MbsModel model, TS ts)
{
  PetscReal dt, dt_max;
  TSAdapt   adapt;
  PetscBool fixed;

  PetscFunctionBeginUser;
  PetscCall(MbsModelGetStepCaps(model, &dt_max, NULL));
  PetscCall(TSGetTimeStep(ts, &dt));
  PetscCall(TSGetAdapt(ts, &adapt));
  PetscCall(PetscObjectTypeCompare((PetscObject)adapt, TSADAPTNONE, &fixed));
  PetscCheck(dt > 0 && !PetscIsInfOrNanReal(dt), PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-ts_dt must be a positive time step [s], got %g", (double)dt);
  PetscCheck(dt <= model->tf - model->t0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-ts_dt %g s is longer than the simulated interval [%g, %g] s of model %s (-time_span)", (double)dt, (double)model->t0, (double)model->tf, model->type);
  PetscCheck(!fixed || dt_max <= 0 || dt <= dt_max * (1 + 1e-12), PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-ts_dt %g s exceeds the largest step %g s of model %s (its step cap; see the model's spec)", (double)dt, (double)dt_max, model->type);
  if (fixed) PetscCall(MbsCheckFixedStepCount(model, dt));
  PetscFunctionReturn(0);
}

/* Replays the frozen step points: the next step ends at the next one */
static PetscErrorCode MbsReplayStep(TS ts)
{
  MbsModel         model;
  PetscInt         step, nfrozen;
  const PetscReal *frozen_t;

  PetscFunctionBeginUser;
  PetscCall(TSGetApplicationContext(ts, &model));
  PetscCall(MbsModelGetFrozenSteps(model, &nfrozen, &frozen_t));
  PetscCall(TSGetStepNumber(ts, &step));
  if (step + 1 < nfrozen) PetscCall(TSSetTimeStep(ts, frozen_t[step + 1] - frozen_t[step]));
  PetscFunctionReturn(0);
}

/*
  The step *step from t to take instead of dt: one that ends on the next sample time (MbsModelGetSampleTimes()) or tf
  rather than pass it; a step that would end within 0.1 % of it is stretched onto it (up to the model's step cap), so
  that no sliver of a step follows.
*/
static PetscErrorCode MbsStepOntoSample_Private(MbsModel model, PetscReal t, PetscReal dt, PetscReal *step)
{
  PetscReal        tol = MBS_SAMPLE_RTOL * (model->tf - model->t0), target, reach, dt_max;
  PetscInt         k, nsample;
  const PetscReal *sample_t;

  PetscFunctionBeginUser;
  PetscCall(MbsModelGetSampleTimes(model, &nsample, &sample_t, NULL));
  PetscCall(MbsModelGetStepCaps(model, &dt_max, NULL));
  k      = MbsLowerBound(sample_t, nsample, t + tol);
  target = k < nsample ? PetscMin(sample_t[k], model->tf) : model->tf;
  reach  = dt_max > 0 ? PetscMin(dt * (1 + 1e-3), PetscMax(dt, dt_max)) : dt * (1 + 1e-3);
  *step  = target - t > tol && t + reach >= target ? target - t : dt;
  PetscFunctionReturn(0);
}

/* Steps onto the measured samples: the next step ends on the next one it would pass (the fixed step resumes after it) */
static PetscErrorCode MbsSampleStep(TS ts)
{
  MbsModel  model;
  PetscReal t, dt, sample_dt, step;

  PetscFunctionBeginUser;
  PetscCall(TSGetApplicationContext(ts, &model));
  PetscCall(TSGetTime(ts, &t));
  PetscCall(TSGetTimeStep(ts, &dt));
  PetscCall(MbsModelGetSampleTimes(model, NULL, NULL, &sample_dt));
  PetscCall(MbsStepOntoSample_Private(model, t, sample_dt > 0 ? sample_dt : dt, &step));
  PetscCall(TSSetTimeStep(ts, step));
  PetscFunctionReturn(0);
}

/* Records y at every accepted step (and the stages of a Runge-Kutta step), and prints a progress line at most every
   10 s of wall time. */
static PetscErrorCode MbsRecordOutput(TS ts, PetscInt step, PetscReal t, Vec U, void *ctx)
{
  MbsSimContext     *sim    = (MbsSimContext *)ctx;
  MbsSignal         *signal = sim->signal;
  const PetscScalar *u;
  PetscReal          y;
  PetscBool          due;

  PetscFunctionBeginUser;
  PetscCall(VecGetArrayRead(U, &u));
  PetscCall(MbsModelOutput(sim->model, t, u, &y, NULL));
  PetscCall(MbsRecordChannels_Private(sim, signal->nchannel, signal->n, &sim->channel_alloc, signal->yc, t, u));
  PetscCall(MbsAppend_Private(&signal->n, &sim->nalloc, &signal->t, &signal->y, NULL, t, y, 0));
  if (sim->monitor) PetscCall(sim->monitor(sim->model, step, t, u, sim->monitor_ctx));
  PetscCall(VecRestoreArrayRead(U, &u));
  if (sim->at_stages) PetscCall(MbsRecordStages_Private(ts, sim, t));
  if (PetscIsInfOrNanReal(y)) {
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

/* The quadrature nodes of a method that weighs the step points (MbsQuadratureRuleSetUp_Private) */
static PetscErrorCode MbsStepPointNodes_Private(const MbsSimContext *sim, MbsSignal *signal)
{
  PetscFunctionBeginUser;
  signal->nq = signal->n;
  PetscCall(PetscMalloc3(signal->n, &signal->tq, signal->n, &signal->yq, signal->n, &signal->wq));
  PetscCall(PetscArraycpy(signal->tq, signal->t, signal->n));
  PetscCall(PetscArraycpy(signal->yq, signal->y, signal->n));
  for (PetscInt c = 0; c < signal->nchannel; c++) {
    PetscCall(PetscMalloc1(signal->n, &signal->yqc[c]));
    PetscCall(PetscArraycpy(signal->yqc[c], signal->yc[c], signal->n));
  }
  PetscCall(MbsQuadratureWeights(signal->n, signal->t, sim->step_theta, signal->wq));
  PetscFunctionReturn(0);
}

/* The sparse index kept with J (composed with it, so that it lives as long as J) */
static PetscErrorCode MbsSparseJacobianAttach_Private(Mat J, MbsSparseJacobian **sj)
{
  PetscContainer container;

  PetscFunctionBeginUser;
  PetscCall(PetscNew(sj));
  PetscCall(PetscContainerCreate(PETSC_COMM_SELF, &container));
  PetscCall(PetscContainerSetPointer(container, *sj));
  PetscCall(PetscContainerSetUserDestroy(container, MbsSparseJacobianDestroy_Private));
  PetscCall(PetscObjectCompose((PetscObject)J, "MbsSparseJacobian", (PetscObject)container));
  PetscCall(PetscContainerDestroy(&container));
  PetscFunctionReturn(0);
}

/*
  A model that assembles its Jacobian sparse itself (MbsModelHasSparseJacobian: the large described models) makes its
  own AIJ, with a pattern that holds for every state; dF/dU' at each stored entry, for the shifted reuse, is
  (J(shift S) - J(shift 0)) / S as below. Nothing dense of size n x n is made.
*/
static PetscErrorCode MbsSparseJacobianCreateModel_Private(MbsModel model, const PetscReal u0[], Mat *J)
{
  const PetscReal    S = 1048576;
  MbsSparseJacobian *sj;
  PetscReal         *udot, *a;
  MatInfo            info;

  PetscFunctionBeginUser;
  PetscCall(MbsModelJacobianCreate(model, u0, J));
  PetscCall(MbsSparseJacobianAttach_Private(*J, &sj));
  PetscCall(MatGetInfo(*J, MAT_LOCAL, &info));
  sj->nnz = (PetscInt)info.nz_used;
  PetscCall(PetscInfo(NULL, "Model %s: sparse Jacobian assembled by the model, %" PetscInt_FMT " of %" PetscInt_FMT " entries\n", model->type, sj->nnz, model->n * model->n));
  PetscCall(PetscMalloc2(sj->nnz, &sj->mass, model->n + 2, &sj->key));
  PetscCall(PetscCalloc1(model->n, &udot));
  PetscCall(MbsModelJacobianMat(model, model->t0, u0, udot, S, *J));
  PetscCall(MatSeqAIJGetArrayRead(*J, (const PetscScalar **)&a));
  PetscCall(PetscArraycpy(sj->mass, a, sj->nnz));
  PetscCall(MatSeqAIJRestoreArrayRead(*J, (const PetscScalar **)&a));
  PetscCall(MbsModelJacobianMat(model, model->t0, u0, udot, 0.0, *J));
  PetscCall(MatSeqAIJGetArrayRead(*J, (const PetscScalar **)&a));
  for (PetscInt k = 0; k < sj->nnz; k++) sj->mass[k] = (sj->mass[k] - a[k]) / S;
  PetscCall(MatSeqAIJRestoreArrayRead(*J, (const PetscScalar **)&a));
  sj->key[0] = PETSC_MAX_REAL; /* no time of the solve: nothing assembled yet */
  PetscCall(PetscFree(udot));
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
  PetscInt           n = model->n, nnz = 0, *row_nnz;
  PetscReal         *u, *udot, *work[2];
  PetscRandom        rnd;
  PetscBool         *used, constant_mass;
  MbsSparseJacobian *sj;

  PetscFunctionBeginUser;
  if (MbsModelHasSparseJacobian(model)) {
    PetscCall(MbsSparseJacobianCreateModel_Private(model, u0, J));
    PetscFunctionReturn(0);
  }
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
  PetscCall(MatCreateSeqAIJ(PETSC_COMM_SELF, n, n, 0, row_nnz, J));
  PetscCall(MatSetOption(*J, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE)); /* a state may make an entry non-zero outside the pattern */
  for (PetscInt j = 0; j < n; j++)
    for (PetscInt i = 0; i < n; i++)
      if (used[i + j * n]) PetscCall(MatSetValue(*J, i, j, 0.0, INSERT_VALUES));
  PetscCall(MatAssemblyBegin(*J, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*J, MAT_FINAL_ASSEMBLY));
  PetscCall(PetscInfo(NULL, "Model %s: sparse Jacobian with %" PetscInt_FMT " of %" PetscInt_FMT " entries\n", model->type, nnz, n * n));
  PetscCall(MbsSparseJacobianAttach_Private(*J, &sj));
  PetscCall(MbsSparseJacobianIndex_Private(model, *J, sj));
  PetscCall(MbsModelGetDifferentialInfo(model, NULL, &constant_mass, NULL));
  if (constant_mass) { /* dF/dU' = (J(shift S) - J(shift 0)) / S, exact to rounding for S a power of two */
    const PetscReal S = 1048576;

    PetscCall(MbsModelFormJacobian(model, model->t0, u0, udot, S, work[0]));
    PetscCall(MbsModelFormJacobian(model, model->t0, u0, udot, 0.0, work[1]));
    PetscCall(PetscMalloc2(sj->nnz, &sj->mass, n + 2, &sj->key));
    for (PetscInt k = 0; k < sj->nnz; k++) sj->mass[k] = (work[0][sj->entry[k]] - work[1][sj->entry[k]]) / S;
    sj->key[0] = PETSC_MAX_REAL; /* no time of the solve: nothing assembled yet */
  }
  PetscCall(PetscFree(row_nnz));
  PetscCall(PetscFree2(work[0], work[1]));
  PetscCall(PetscFree3(u, udot, used));
  PetscFunctionReturn(0);
}

static PetscErrorCode MbsNewtonPredictorDestroy_Private(void *ctx)
{
  MbsNewtonPredictor *pred = (MbsNewtonPredictor *)ctx;

  PetscFunctionBeginUser;
  for (PetscInt i = 0; i < pred->nkeep; i++) PetscCall(VecDestroy(&pred->U[i]));
  PetscCall(VecDestroy(&pred->moved));
  PetscCall(VecDestroy(&pred->work));
  PetscCall(PetscFree(pred));
  PetscFunctionReturn(0);
}

/* w: Lagrange's basis of the n times t at s */
static void MbsLagrangeWeights_Private(PetscInt n, const PetscReal t[], PetscReal s, PetscReal w[])
{
  for (PetscInt i = 0; i < n; i++) {
    w[i] = 1;
    for (PetscInt j = 0; j < n; j++)
      if (j != i) w[i] *= (s - t[j]) / (t[i] - t[j]);
  }
}

/*
  The algebraic components of a DAE (the multipliers of a model file) take the polynomial plus an alternating term
  a (-1)^n, from one more state: a theta method with theta = 1/2 does not damp a component of them that alternates in
  sign from step to step (it solves only for their mean over a step), and every Newton error left in them stays in it.
  On the chain (CN, 2.5 ms) the parabola through the multipliers mu missed by 5e-7 to 1e-6, the largest error of the
  start. The weights mix the polynomials through the latest order + 1 states and through the order + 1 before the
  latest, both exact on polynomials, to be exact on (-1)^n as well: (-1)^n is 1 at the latest state, -1 at the next
  and 0 at the midpoint between them, so 1 - 2c at the stage.
*/
static PetscErrorCode MbsNewtonPredictAlternating_Private(MbsNewtonPredictor *pred, PetscReal s, const PetscReal latest[], Vec X)
{
  const PetscInt     m = pred->order + 1;
  PetscReal          before[MBS_PREDICTOR_MAX_ORDER + 1], weight[MBS_PREDICTOR_MAX_ORDER + 2], alt_latest = 0, alt_before = 0, mix;
  const PetscScalar *u[MBS_PREDICTOR_MAX_ORDER + 2];
  PetscScalar       *x;
  PetscInt           n;

  PetscFunctionBeginUser;
  MbsLagrangeWeights_Private(m, pred->t + 1, s, before);
  for (PetscInt i = 0; i < m; i++) { /* each on (-1)^i at held state i (the latest: 0) */
    alt_latest += (i % 2 ? -1 : 1) * latest[i];
    alt_before += (i % 2 ? 1 : -1) * before[i];
  }
  if (PetscAbsReal(alt_latest - alt_before) < PETSC_SMALL) PetscFunctionReturn(0); /* steps too uneven to tell the two apart */
  mix = (1 - 2 * pred->c - alt_before) / (alt_latest - alt_before);
  for (PetscInt i = 0; i <= m; i++) weight[i] = (i < m ? mix * latest[i] : 0) + (i > 0 ? (1 - mix) * before[i - 1] : 0);
  PetscCall(VecGetLocalSize(X, &n));
  PetscCall(VecGetArray(X, &x));
  for (PetscInt i = 0; i <= m; i++) PetscCall(VecGetArrayRead(pred->U[i], &u[i]));
  for (PetscInt k = 0; k < n; k++) {
    if (pred->differential[k]) continue;
    x[k] = 0;
    for (PetscInt i = 0; i <= m; i++) x[k] += weight[i] * u[i][k];
  }
  for (PetscInt i = 0; i <= m; i++) PetscCall(VecRestoreArrayRead(pred->U[i], &u[i]));
  PetscCall(VecRestoreArray(X, &x));
  PetscFunctionReturn(0);
}

static PetscErrorCode MbsNewtonPredict(SNES snes, Vec X, void *ctx)
{
  MbsNewtonPredictor *pred = (MbsNewtonPredictor *)ctx;
  PetscReal           t, h, s, weight[MBS_PREDICTOR_MAX_ORDER + 1];
  PetscInt            npoly;
  Vec                 U, oldest;

  PetscFunctionBeginUser;
  PetscCall(TSGetTime(pred->ts, &t));
  PetscCall(TSGetTimeStep(pred->ts, &h));
  PetscCall(TSGetSolution(pred->ts, &U));
  while (pred->nheld && pred->t[0] >= t) { /* forget the latest */
    oldest = pred->U[0];
    for (PetscInt i = 1; i < pred->nheld; i++) {
      pred->t[i - 1] = pred->t[i];
      pred->U[i - 1] = pred->U[i];
    }
    pred->U[--pred->nheld] = oldest;
  }
  oldest = pred->U[pred->nkeep - 1];
  for (PetscInt i = pred->nkeep - 1; i > 0; i--) {
    pred->t[i] = pred->t[i - 1];
    pred->U[i] = pred->U[i - 1];
  }
  pred->t[0] = t;
  pred->U[0] = oldest;
  PetscCall(VecCopy(U, pred->U[0]));
  pred->nheld = PetscMin(pred->nheld + 1, pred->nkeep);
  npoly       = PetscMin(pred->nheld, pred->order + 1);
  s           = t + pred->c * h;
  MbsLagrangeWeights_Private(npoly, pred->t, s, weight);
  PetscCall(VecSet(X, 0));
  PetscCall(VecMAXPY(X, npoly, weight, pred->U));
  /* order 0: steps an adjoint recomputes start from U_n alone (MbsSimulateSolve_Private sets it after the forward solve) */
  if (pred->differential && pred->order > 0 && pred->nheld == pred->order + 2) PetscCall(MbsNewtonPredictAlternating_Private(pred, s, weight, X));
  PetscCall(VecWAXPY(pred->moved, -1, X, U));
  PetscFunctionReturn(0);
}

/* Puts the predictor of the given order on the SNES of a theta method (other methods keep PETSc's start); U: like the
   states; differential: the components' kinds when the algebraic ones are multipliers (MbsLaggedNewton), else NULL */
static PetscErrorCode MbsNewtonPredictorSetUp_Private(TS ts, Vec U, PetscInt order, const PetscBool differential[], MbsNewtonPredictor **predictor)
{
  MbsNewtonPredictor *pred;
  PetscContainer      container;
  SNES                snes;
  PetscBool           theta, endpoint;
  PetscReal           value;

  PetscFunctionBeginUser;
  *predictor = NULL;
  PetscCall(PetscObjectTypeCompareAny((PetscObject)ts, &theta, TSTHETA, TSCN, TSBEULER, ""));
  if (!theta || !order) PetscFunctionReturn(0);
  PetscCall(TSThetaGetEndpoint(ts, &endpoint));
  PetscCall(TSThetaGetTheta(ts, &value));
  PetscCall(PetscNew(&pred));
  pred->ts    = ts;
  pred->order = order;
  pred->c     = endpoint ? 1 : value;
  /* only theta = 1/2 leaves the alternating component undamped (other thetas damp it by (1 - theta)/theta a step) */
  pred->differential = value == 0.5 ? differential : NULL;
  pred->nkeep        = order + (pred->differential ? 2 : 1);
  PetscCall(PetscContainerCreate(PETSC_COMM_SELF, &container));
  PetscCall(PetscContainerSetPointer(container, pred));
  PetscCall(PetscContainerSetUserDestroy(container, MbsNewtonPredictorDestroy_Private));
  PetscCall(TSGetSNES(ts, &snes));
  PetscCall(PetscObjectCompose((PetscObject)snes, "MbsNewtonPredictor", (PetscObject)container));
  PetscCall(PetscContainerDestroy(&container));
  for (PetscInt i = 0; i < pred->nkeep; i++) PetscCall(VecDuplicate(U, &pred->U[i]));
  PetscCall(VecDuplicate(U, &pred->moved));
  PetscCall(VecDuplicate(U, &pred->work));
  PetscCall(SNESSetComputeInitialGuess(snes, MbsNewtonPredict, pred));
  *predictor = pred;
  PetscFunctionReturn(0);
}

/* the error a lagged Newton may leave, relative to |x|, near what fresh Jacobians leave after SNES's tests; steps below
   MBS_LAGGED_NEWTON_ROUNDING |x| (some 50 ulp) are rounding, whose ratios say nothing of a contraction */
#define MBS_LAGGED_NEWTON_ERROR    1e-15
#define MBS_LAGGED_NEWTON_ROUNDING 1e-14
/* A Jacobian serves lag iterations across steps, or until an iteration contracts by less than this (as CVODE's modified
   Newton refreshes on a poor rate); measured on the chain (lag 20), a refresh at any contraction above 0.005 costs
   more Jacobians than it saves iterations */
#define MBS_LAGGED_NEWTON_REFRESH 0.5

/*
  SNES's relative residual test reduces |F| by rtol from where the solve starts, and its divergence test stops at divtol
  times that. A predictor starts nearer the solution, where |F| is smaller by the same factor as the error (a linear
  model: 1e-5 of it on bushing2), so that rtol of it lies below the residual's rounding and the test never passes:
  every solve took one more iteration, to be stopped by its step. The reference of both stays |F| at U_n, PETSc's
  start, estimated from the start X by F(X) + J (U_n - X) with the last Jacobian (one product, no residual).
*/
static PetscErrorCode MbsLaggedNewtonStartResidual_Private(SNES snes, MbsLaggedNewton *newton)
{
  MbsNewtonPredictor *pred = newton->predictor;
  Mat                 A;
  Vec                 F;
  PetscBool           assembled;

  PetscFunctionBeginUser;
  newton->f_start = 0;
  if (!pred || pred->nheld < 2) PetscFunctionReturn(0); /* started at U_n: SNES's own reference */
  PetscCall(SNESGetJacobian(snes, &A, NULL, NULL, NULL));
  PetscCall(MatAssembled(A, &assembled));
  if (!assembled) PetscFunctionReturn(0);
  PetscCall(SNESGetFunction(snes, &F, NULL, NULL));
  PetscCall(MatMultAdd(A, pred->moved, F, pred->work));
  PetscCall(VecNorm(pred->work, NORM_2, &newton->f_start));
  PetscFunctionReturn(0);
}

/*
  The norms of the iterate and the step that the lagged test takes, with the algebraic components (the multipliers of a
  model file) scaled by the step h, as RADAU5 scales its index-2 components in its error and Newton tests (Hairer and
  Wanner, Solving ODEs II, VI.8): their errors reach the differential components only times h. Unscaled, the
  multipliers' error decided alone: on the chain the first iteration leaves an error of 1e-8 in them that the next
  removes to 1e-12, while the differential components are at 1e-13, so that |dx| contracted by 0.1 to 0.5 and the
  test asked for a third iteration that changed the coordinates by 2e-15.
*/
static PetscErrorCode MbsLaggedNewtonScaledNorms_Private(SNES snes, MbsLaggedNewton *newton, PetscReal *xnorm, PetscReal *snorm)
{
  Vec                X, Y;
  const PetscScalar *x, *y;
  PetscReal          h, xx = 0, yy = 0, w;
  PetscInt           n;

  PetscFunctionBeginUser;
  PetscCall(TSGetTimeStep(newton->ts, &h));
  PetscCall(SNESGetSolution(snes, &X));
  PetscCall(SNESGetSolutionUpdate(snes, &Y));
  PetscCall(VecGetLocalSize(X, &n));
  PetscCall(VecGetArrayRead(X, &x));
  PetscCall(VecGetArrayRead(Y, &y));
  for (PetscInt k = 0; k < n; k++) {
    w = newton->differential[k] ? 1 : h;
    xx += w * w * PetscRealPart(x[k] * PetscConj(x[k]));
    yy += w * w * PetscRealPart(y[k] * PetscConj(y[k]));
  }
  PetscCall(VecRestoreArrayRead(Y, &y));
  PetscCall(VecRestoreArrayRead(X, &x));
  *xnorm = PetscSqrtReal(xx);
  *snorm = PetscSqrtReal(yy);
  PetscFunctionReturn(0);
}

/* SNES's tests, but their verdict "converged" on the step or the residual holds after a lagged iteration only if the
   error left (MbsLaggedNewton) is below MBS_LAGGED_NEWTON_ERROR |x|. On the chain the residual test alone stopped at
   |F| = 1e-13 after steps of 5e-6 contracting by 2.5e-3: an error of 1e-8 */
static PetscErrorCode MbsSNESConvergedLagged(SNES snes, PetscInt it, PetscReal xnorm, PetscReal snorm, PetscReal fnorm, SNESConvergedReason *reason, void *ctx)
{
  MbsLaggedNewton *newton = (MbsLaggedNewton *)ctx;
  PetscReal        theta  = newton->theta, rtol, divtol;
  PetscBool        early, measured; /* measured: this solve's contraction, from two steps above rounding */
  PetscInt         lag;

  PetscFunctionBeginUser;
  PetscCall(SNESGetTolerances(snes, NULL, &rtol, NULL, NULL, NULL));
  PetscCall(SNESGetDivergenceTolerance(snes, &divtol));
  if (it > 0 && newton->differential) PetscCall(MbsLaggedNewtonScaledNorms_Private(snes, newton, &xnorm, &snorm));
  PetscCall(SNESConvergedDefault(snes, it, xnorm, snorm, fnorm, reason, NULL));
  if (it == 0) {
    newton->last_step = 0;
    PetscCall(MbsLaggedNewtonStartResidual_Private(snes, newton));
    PetscFunctionReturn(0);
  }
  if (*reason == SNES_CONVERGED_ITERATING && fnorm <= rtol * newton->f_start) *reason = SNES_CONVERGED_FNORM_RELATIVE;
  if (*reason == SNES_DIVERGED_DTOL && fnorm <= divtol * newton->f_start) *reason = SNES_CONVERGED_ITERATING;
  /* a solve's first step says nothing of the error it leaves, the less the nearer a predictor started (a quartic's on
     the chain: 1e-11 |x|, below SNES's step test, while the contraction carried from the last solve understated that
     of a Jacobian grown older and J moved by 3e-11): its residual's verdict alone counts */
  if (newton->last_step == 0 && *reason == SNES_CONVERGED_SNORM_RELATIVE) *reason = SNES_CONVERGED_ITERATING;
  measured = (PetscBool)(newton->last_step > MBS_LAGGED_NEWTON_ROUNDING * xnorm && snorm > MBS_LAGGED_NEWTON_ROUNDING * xnorm);
  if (newton->last_step > 0) theta = newton->theta = snorm / newton->last_step;
  newton->last_step = snorm;
  early             = (PetscBool)((*reason == SNES_CONVERGED_SNORM_RELATIVE || *reason == SNES_CONVERGED_FNORM_RELATIVE) && snorm > MBS_LAGGED_NEWTON_ROUNDING * xnorm);
  if (early && theta < 1 && theta / (1 - theta) * snorm > MBS_LAGGED_NEWTON_ERROR * xnorm) *reason = SNES_CONVERGED_ITERATING;
  PetscCall(SNESGetLagJacobian(snes, &lag));
  if (lag == -1) PetscCall(SNESSetLagJacobian(snes, newton->lag));                                                                   /* the fresh Jacobian asked for below is in: back to the schedule */
  if (*reason == SNES_CONVERGED_ITERATING && measured && theta > MBS_LAGGED_NEWTON_REFRESH) PetscCall(SNESSetLagJacobian(snes, -2)); /* a fresh Jacobian for the next iteration */
  PetscFunctionReturn(0);
}

/* The work of MbsSimulate_Private(): every object it creates is in o, which the caller frees */
static PetscErrorCode MbsSimulateSolve_Private(MbsSimObjects *o, MbsModel model, const char prefix[], MbsTSSetUpFn setup, void *setup_ctx, MbsSignal *signal)
{
  MbsSimContext   *sim = &o->sim;
  TS               ts;
  TSAdapt          adapt;
  SNES             snes;
  Vec              U, Udot;
  Mat              J;
  PetscScalar     *u, *udot;
  char             type[64] = TSCN;
  TSType           chosen;
  PetscBool        explicit_form, refused, sparse, multipliers, usable;
  PetscInt         lag, predictor, nsample, nfrozen;
  const PetscReal *sample_t, *frozen_t;

  PetscFunctionBeginUser;
  PetscCall(MbsModelGetJacobianSettings(model, &sparse, &lag, &predictor, &multipliers));
  PetscCall(MbsModelGetSampleTimes(model, &nsample, &sample_t, NULL));
  PetscCall(MbsModelGetFrozenSteps(model, &nfrozen, &frozen_t));
  /* the method decides the form the TS sees, so it is read before the TS is configured */
  PetscCall(PetscOptionsGetString(NULL, prefix, "-ts_type", type, sizeof(type), NULL));
  explicit_form = MbsTSTypeIsExplicit(type);
  PetscCall(PetscTime(&sim->last_progress));
  PetscCall(VecCreateSeq(PETSC_COMM_SELF, model->n, &o->U));
  PetscCall(VecDuplicate(o->U, &o->Udot));
  U    = o->U;
  Udot = o->Udot;
  PetscCall(VecGetArrayWrite(U, &u));
  PetscCall(VecGetArrayWrite(Udot, &udot));
  PetscCall(MbsModelInitialStateTry(model, model->t0, u, udot, &usable));
  if (!usable) { /* parameters outside the model's domain: a diverged solve, which MbsSignalCheck() explains */
    PetscCall(VecRestoreArrayWrite(Udot, &udot));
    PetscCall(VecRestoreArrayWrite(U, &u));
    signal->reason = TS_DIVERGED_NONLINEAR_SOLVE;
    signal->t_end  = model->t0;
    PetscFunctionReturn(0);
  }
  /* the explicit form needs no Jacobian: the Runge-Kutta adjoint takes products with dg/dU (adjoint.c) */
  if (sparse && !explicit_form) PetscCall(MbsSparseJacobianCreate_Private(model, u, &o->J));
  else if (!explicit_form) PetscCall(MatCreateSeqDense(PETSC_COMM_SELF, model->n, model->n, NULL, &o->J));
  J = o->J;
  PetscCall(VecRestoreArrayWrite(Udot, &udot));
  PetscCall(VecRestoreArrayWrite(U, &u));

  PetscCall(MbsTSRKRegisterTsit5_Private());
  PetscCall(TSCreate(PETSC_COMM_SELF, &o->ts));
  ts = o->ts;
  PetscCall(TSSetOptionsPrefix(ts, prefix));
  PetscCall(TSSetType(ts, type));
  PetscCall(TSSetProblemType(ts, TS_NONLINEAR));
  if (explicit_form) {
    PetscCall(TSSetRHSFunction(ts, NULL, MbsRHSFunction, model));
  } else {
    PetscCall(TSSetIFunction(ts, NULL, MbsIFunction, model));
    PetscCall(TSSetIJacobian(ts, J, J, MbsIJacobian, model));
  }
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
  if (lag > 1) { /* a fresh Jacobian at least every lag iterations, across steps, and sooner on a poor contraction */
    SNESLineSearch   linesearch;
    const PetscBool *differential;

    PetscCall(SNESSetLagJacobian(snes, lag));
    PetscCall(SNESSetLagJacobianPersists(snes, PETSC_TRUE));
    o->newton.lag = lag;
    /* full steps, as CVODE's and IDA's modified Newton takes them: a contraction of less than half brings a fresh
       Jacobian instead. The backtracking line search's slope, a product with the Jacobian at every iteration, cost
       the chain 10 % of its forward solve and never shortened a step */
    PetscCall(SNESGetLineSearch(snes, &linesearch));
    PetscCall(SNESLineSearchSetType(linesearch, SNESLINESEARCHBASIC));
    o->newton.theta = 0.5; /* unknown before the first solve's second iteration: assume a slow contraction */
    o->newton.ts    = ts;
    PetscCall(MbsModelGetDifferentialInfo(model, &differential, NULL, NULL));
    for (PetscInt k = 0; k < model->n && differential && multipliers; k++)
      if (!differential[k]) o->newton.differential = differential;
    PetscCall(SNESSetConvergenceTest(snes, MbsSNESConvergedLagged, &o->newton, NULL));
  }
  if (sparse) {
    KSP       ksp;
    PC        pc;
    PetscBool petsc_klu;

    PetscCall(SNESGetKSP(snes, &ksp));
    PetscCall(KSPSetType(ksp, KSPPREONLY));
    PetscCall(KSPGetPC(ksp, &pc));
    PetscCall(MbsModelGetPetscKLU(model, &petsc_klu));
    if (petsc_klu) {
      PetscCall(PCSetType(pc, PCLU));
      PetscCall(PCFactorSetMatSolverType(pc, MATSOLVERKLU));
    } else PetscCall(MbsPCSetKLURefactor(pc));
  }
  PetscCall(TSGetAdapt(ts, &adapt));
  if (MbsModelStepCap(model) > 0) PetscCall(TSAdaptSetStepLimits(adapt, PETSC_DEFAULT, MbsModelStepCap(model)));
  PetscCall(TSMonitorSet(ts, MbsRecordOutput, sim, NULL));
  if (setup) PetscCall(setup(ts, setup_ctx));
  PetscCall(TSSetFromOptions(ts));
  if (nfrozen) { /* the steps of the recorded run, whatever the adaptivity would choose now */
    PetscCall(TSAdaptSetType(adapt, TSADAPTNONE));
    PetscCall(TSSetTimeStep(ts, frozen_t[1] - frozen_t[0]));
    PetscCall(TSSetApplicationContext(ts, model));
    PetscCall(TSSetPostStep(ts, MbsReplayStep));
  }
  PetscCall(MbsDAETolerances_Private(model, ts));
  PetscCall(MbsCheckTimeStep_Private(model, ts));
  if (MBS_PETSC_STRIDE_FIXED_STEPS_ONLY) PetscCall(MbsCheckCheckpointing_Private(model, ts));
  if (nsample && !nfrozen) { /* frozen steps already land on the samples */
    PetscReal dt, step;
    PetscBool fixed;

    PetscCall(PetscObjectTypeCompare((PetscObject)adapt, TSADAPTNONE, &fixed));
    PetscCall(TSGetTimeStep(ts, &dt));
    PetscCall(MbsModelSetSampleStep(model, fixed ? dt : 0));
    PetscCall(MbsStepOntoSample_Private(model, model->t0, dt, &step));
    PetscCall(TSSetTimeStep(ts, step));
    PetscCall(TSSetApplicationContext(ts, model));
    PetscCall(TSSetPostStep(ts, MbsSampleStep));
  }
  PetscCall(TSGetType(ts, &chosen));
  PetscCheck(explicit_form == MbsTSTypeIsExplicit(chosen), PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "Time integrator %s was chosen after model %s was set up for %s; give it with -ts_type", chosen, model->type, type);
  PetscCall(MbsQuadratureRuleSetUp_Private(ts, sim));
  if (MBS_PETSC_THETA_STALE_END_STATE) PetscCall(MbsTrajectoryKeepStepPoints_Private(ts, sim));
  /* SNES's own step test, which fresh Jacobians take, stops as soon as a step falls below 1e-8 |x|, assuming it came from
     far: a predicted start meets it at once and leaves that step's square as the error (on maxwell_rotation with beuler
     the central differences of two solves moved by 6e-11 of the sensitivity). Only the lagged test guards the error */
  if (lag > 1) PetscCall(MbsNewtonPredictorSetUp_Private(ts, U, predictor, o->newton.differential, &o->newton.predictor));

  refused = MbsSolveRefused(model, NULL, 0);
  if (!refused) PetscCall(TSSolve(ts, U));
  if (lag > 1) { /* an adjoint solve of this TS needs the exact Jacobian of every step (SNESComputeJacobian obeys the lag) */
    PetscCall(SNESSetLagJacobian(snes, 1));
    PetscCall(SNESSetLagJacobianPersists(snes, PETSC_FALSE));
    PetscCall(SNESSetConvergenceTest(snes, SNESConvergedDefault, NULL, NULL)); /* o->newton dies with this call */
    /* steps an adjoint recomputes (two-level checkpointing) take that test, which a predicted start fools (above) */
    if (o->newton.predictor) o->newton.predictor->order = 0;
  }
  PetscCall(TSGetConvergedReason(ts, &signal->reason));
  if (refused) signal->reason = TS_DIVERGED_NONLINEAR_SOLVE;
  PetscCall(TSGetTime(ts, &signal->t_end));
  PetscCall(TSGetStepNumber(ts, &signal->steps));
  PetscCall(TSGetStepRejections(ts, &signal->rejects));
  if (!sim->at_stages) PetscCall(MbsStepPointNodes_Private(sim, signal));
  if (signal->reason >= 0) PetscCall(MbsModelRecordFrozenSteps(model, signal->n, signal->t));
  PetscFunctionReturn(0);
}

/* Frees what a solve created, on success as on failure; a kept TS only after a success */
static PetscErrorCode MbsSimulateEnd_Private(MbsSimObjects *o, PetscErrorCode failed, MbsSignal *signal, TS *ts_keep)
{
  PetscFunctionBeginUser;
  if (o->ts) PetscCall(TSMonitorCancel(o->ts)); /* its context lives on the caller's stack */
  PetscCall(PetscFree(o->sim.stage_order));
  PetscCall(PetscFree(o->sim.channel_y));
  if (ts_keep && !failed) *ts_keep = o->ts;
  else PetscCall(TSDestroy(&o->ts));
  PetscCall(MatDestroy(&o->J));
  PetscCall(VecDestroy(&o->Udot));
  PetscCall(VecDestroy(&o->U));
  if (failed) PetscCall(MbsSignalDestroy(signal));
  PetscFunctionReturn(0);
}

/*
  Integrates the model and records its output. setup (may be NULL) configures the TS before the options are
  read, e.g. for an adjoint solve; with ts_keep the TS is returned after the solve (caller destroys it),
  otherwise destroyed. A failed integration is not an error here: signal->reason < 0 says so. An error leaves
  nothing allocated, no signal either.
*/
PetscErrorCode MbsSimulate_Private(MbsModel model, const char prefix[], MbsTSSetUpFn setup, void *setup_ctx, MbsStateMonitor monitor, void *monitor_ctx, MbsSignal *signal, TS *ts_keep)
{
  MbsSimObjects  o;
  PetscErrorCode ierr;

  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(&o, sizeof(o)));
  o.sim.model       = model;
  o.sim.signal      = signal;
  o.sim.monitor     = monitor;
  o.sim.monitor_ctx = monitor_ctx;
  PetscCall(PetscMemzero(signal, sizeof(*signal)));
  PetscCall(MbsModelGetNumChannels(model, &signal->nchannel));
  PetscCall(PetscCalloc2(signal->nchannel, &signal->yc, signal->nchannel, &signal->yqc));
  PetscCall(PetscMalloc1(signal->nchannel, &o.sim.channel_y));
  ierr = MbsSimulateSolve_Private(&o, model, prefix, setup, setup_ctx, signal);
  MbsCallCleanup(ierr, MbsSimulateEnd_Private(&o, ierr, signal, ts_keep));
  PetscFunctionReturn(0);
}

/*@C
  MbsSimulateHelp - With -help, lists the time-integration options mbsid honours, with the values the options and the
  model give them (PETSc's own listing would add every option of the solvers inside the integrator). Not collective.
@*/
PetscErrorCode MbsSimulateHelp(MbsModel model)
{
  TS          ts;
  TSAdapt     adapt;
  TSType      type;
  TSAdaptType adapt_type;
  PetscReal   dt, rtol, atol, dt_min, dt_max;
  char        method[128] = "";
  PetscBool   rk, theta;

  PetscFunctionBeginUser;
  PetscCall(MbsTSRKRegisterTsit5_Private());
  PetscCall(TSCreate(PETSC_COMM_SELF, &ts));
  PetscCall(TSSetType(ts, TSCN));
  PetscCall(TSSetTimeStep(ts, model->dt));
  PetscCall(TSSetMaxTime(ts, model->tf));
  PetscCall(TSGetAdapt(ts, &adapt));
  if (MbsModelStepCap(model) > 0) PetscCall(TSAdaptSetStepLimits(adapt, PETSC_DEFAULT, MbsModelStepCap(model)));
  PetscCall(MbsHelpMute(PETSC_TRUE));
  PetscCall(TSSetFromOptions(ts));
  PetscCall(MbsHelpMute(PETSC_FALSE));
  PetscCall(TSGetType(ts, &type));
  PetscCall(TSGetTimeStep(ts, &dt));
  PetscCall(TSGetTolerances(ts, &atol, NULL, &rtol, NULL));
  PetscCall(TSAdaptGetType(adapt, &adapt_type));
  PetscCall(TSAdaptGetStepLimits(adapt, &dt_min, &dt_max));
  PetscCall(PetscObjectTypeCompare((PetscObject)ts, TSRK, &rk));
  PetscCall(PetscObjectTypeCompareAny((PetscObject)ts, &theta, TSTHETA, TSCN, TSBEULER, ""));
  if (rk) {
    TSRKType rk_type;

    PetscCall(TSRKGetType(ts, &rk_type));
    PetscCall(PetscSNPrintf(method, sizeof(method), "  -ts_rk_type <%s>: Runge-Kutta tableau: tsit5, 5dp, 5f, 5bs, 6vr, 4, 3bs, 2a, ... (TSRKSetType)\n", rk_type));
  } else if (theta) {
    PetscReal value;

    PetscCall(TSThetaGetTheta(ts, &value));
    PetscCall(PetscSNPrintf(method, sizeof(method), "  -ts_theta_theta <%g>: Theta of the theta method (TSThetaSetTheta)\n", (double)value));
  }
  PetscCall(PetscHelpPrintf(PETSC_COMM_WORLD, "----------------------------------------\nTime integration (PETSc TS; doc/time-integration.md):\n"));
  PetscCall(PetscHelpPrintf(PETSC_COMM_WORLD, "  -ts_type <%s>: Method: cn, theta, beuler (implicit, any model); rk, euler, ssp (explicit, ODE models); gradients exact with cn, theta, beuler, rk, refused with the others (TSSetType)\n%s", type, method));
  PetscCall(PetscHelpPrintf(PETSC_COMM_WORLD, "  -ts_dt <%g>: Time step [s], the first one of adaptive steps (TSSetTimeStep)\n", (double)dt));
  PetscCall(PetscHelpPrintf(PETSC_COMM_WORLD, "  -ts_adapt_type <%s>: Step control: none (fixed steps) or basic (TSAdaptSetType)\n", adapt_type));
  PetscCall(PetscHelpPrintf(PETSC_COMM_WORLD, "  -ts_rtol <%g>: Relative tolerance of the adaptive step control (TSSetTolerances)\n", (double)rtol));
  PetscCall(PetscHelpPrintf(PETSC_COMM_WORLD, "  -ts_atol <%g>: Absolute tolerance of the adaptive step control (TSSetTolerances)\n", (double)atol));
  PetscCall(PetscHelpPrintf(PETSC_COMM_WORLD, "  -ts_adapt_dt_min <%g>: Smallest adaptive step [s] (TSAdaptSetStepLimits)\n", (double)dt_min));
  PetscCall(PetscHelpPrintf(PETSC_COMM_WORLD, "  -ts_adapt_dt_max <%g>: Largest adaptive step [s] (default: the model's cap, and just below the Nyquist step 1/(2 f) of the highest frequency a spectrum cost analyses) (TSAdaptSetStepLimits)\n", (double)dt_max));
  PetscCall(PetscHelpPrintf(PETSC_COMM_WORLD, "  -ts_monitor: Print every step (TSMonitorSet)\n"));
  PetscCall(PetscHelpPrintf(PETSC_COMM_WORLD, "  -ts_trajectory_type <stages>: Where adjoint gradients keep the forward trajectory: stages (mbsid's own, in memory), memory (PETSc's; the default with checkpointing options, -ts_trajectory_stride, "
                                              "-ts_trajectory_max_cps_ram, ...) or basic (disk) (TSTrajectorySetType)\n"));
  PetscCall(TSDestroy(&ts));
  PetscFunctionReturn(0);
}

/*@C
  MbsSignalCheck - Raises an error that says where and why the integration that produced the signal failed. Not collective.
@*/
PetscErrorCode MbsSignalCheck(MbsModel model, const MbsSignal *signal)
{
  char refusal[256];

  PetscFunctionBeginUser;
  PetscCheck(!signal->nonfinite, PETSC_COMM_SELF, PETSC_ERR_FP, "Model %s: output %s is not finite at t = %g s (step %" PetscInt_FMT ")", model->type, model->output_name, (double)signal->t_end, signal->steps);
  PetscCheck(signal->reason >= 0 || !MbsSolveRefused(model, refusal, sizeof(refusal)), PETSC_COMM_SELF, PETSC_ERR_NOT_CONVERGED, "The forward solve of model %s was refused: %s", model->type, refusal);
  PetscCheck(signal->reason >= 0 || !MbsModelStartRefusal(model), PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "%s", MbsModelStartRefusal(model));
  PetscCheck(signal->reason >= 0, PETSC_COMM_SELF, PETSC_ERR_NOT_CONVERGED, "Time integration of model %s failed at t = %g s of [%g, %g]: %s; try a smaller -ts_dt or -ts_adapt_type basic", model->type, (double)signal->t_end, (double)model->t0,
             (double)model->tf, TSConvergedReasons[signal->reason]);
  PetscFunctionReturn(0);
}

/*@C
  MbsSimulate - Integrates the model over its time span and records the output; monitor (may be NULL) sees the
  state after every accepted step. The TS reads the options with the given prefix (NULL: -ts_*). A failed
  integration is an error, and leaves no signal. Not collective (a TS on PETSC_COMM_SELF).
@*/
PetscErrorCode MbsSimulate(MbsModel model, const char prefix[], MbsStateMonitor monitor, void *monitor_ctx, MbsSignal *signal)
{
  PetscFunctionBeginUser;
  PetscCall(MbsSimulate_Private(model, prefix, NULL, NULL, monitor, monitor_ctx, signal, NULL));
  MbsCallUndo(MbsSignalCheck(model, signal), MbsSignalDestroy(signal));
  PetscFunctionReturn(0);
}

PetscErrorCode MbsSignalDestroy(MbsSignal *signal)
{
  PetscFunctionBeginUser;
  PetscCall(PetscFree2(signal->t, signal->y));
  PetscCall(PetscFree3(signal->tq, signal->yq, signal->wq));
  for (PetscInt c = 0; c < signal->nchannel; c++) {
    PetscCall(PetscFree(signal->yc[c]));
    PetscCall(PetscFree(signal->yqc[c]));
  }
  PetscCall(PetscFree2(signal->yc, signal->yqc));
  signal->n = signal->nq = signal->nchannel = 0;
  PetscFunctionReturn(0);
}

/*@C
  MbsSignalGetChannel - A view of output channel c of a signal as a signal of that channel alone (y, yq are the
  channel's; nothing is copied, so the view lives as long as the signal and is not destroyed). A signal without
  channels is its own channel 0. Not collective.
@*/
PetscErrorCode MbsSignalGetChannel(const MbsSignal *signal, PetscInt c, MbsSignal *view)
{
  PetscFunctionBeginUser;
  *view = *signal;
  if (!signal->nchannel) {
    PetscCheck(c == 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "The signal has one output channel, not channel %" PetscInt_FMT, c);
    PetscFunctionReturn(0);
  }
  PetscCheck(c >= 0 && c < signal->nchannel, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "The signal has no output channel %" PetscInt_FMT " (%" PetscInt_FMT " channels)", c, signal->nchannel);
  view->y        = signal->yc[c];
  view->yq       = signal->yqc[c];
  view->nchannel = 0;
  view->yc = view->yqc = NULL;
  PetscFunctionReturn(0);
}
