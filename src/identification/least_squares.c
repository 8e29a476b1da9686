/*
  The identification as a least-squares problem, for Gauss-Newton methods (tao_lm.c, TAO's brgn).

  Every experiment's cost is a sum of weighted squares, J_e = sum_i w_i r_i^2 (MbsCostResiduals: the coefficients of
  the spectrum and order costs, the samples of the time cost). The objective's residuals are

    rho = (sqrt(w_i) r_i) of every experiment, in experiment order,   J = sum_e J_e = rho^T rho,

  and their Jacobian drho/dp = sqrt(w_i) dr_i/dp, so that dJ/dp = 2 (drho/dp)^T rho (which equals the adjoint gradient)
  and H = 2 (drho/dp)^T (drho/dp) is J's Gauss-Newton Hessian.

  dr/dp comes from the forward sensitivities S = dU/dp of the identified parameters, by PETSc's TSForward on the theta
  methods: the derivative of the discrete solution itself,

    dF/dU S + dF/dU' S' + dF/dp = 0,   S(t0) = dU(t0)/dp,

  on the integrator's own steps (one more linear solve per parameter and step with the step's Jacobian, and dF/dp:
  first derivatives only, where the sensitivity-extended system of sensitivity.c needs second ones). At every step point
  the outputs move by the tangent dy_c/dp_k = dy_c/dU S e_k + dy_c/dp_k; the signal of these tangents, one per
  parameter, gives the residuals' derivatives through the cost (MbsCostResidualsTangent: any cost that provides its
  residuals and their derivatives along a tangent signal; an FRF cost can plug in the same way). The costs integrate
  the output over the quadrature nodes of the integrator, which are the step points for cn, beuler and the end-point
  theta methods: those are the methods supported (the one-stage theta and the Runge-Kutta methods have their nodes at
  stages, where TSForward gives no sensitivity).

  Experiments are computed by their ranks; each rank contributes its experiments' blocks at the offsets of the
  experiment order and every other entry as zero, so the sum over ranks is exact and rho and its Jacobian are bitwise
  the same on any number of ranks.
*/
#include "identification/identificationimpl.h"
#include <petsctime.h>

/* The forward sensitivities of one solve and the tangent outputs recorded at its step points */
typedef struct {
  MbsModel        model;
  PetscInt        nid;
  const PetscInt *id;
  TS              ts;          /* the solve's, while it runs */
  Mat             Jp, S;       /* dF/dp (n x nid) and dU/dp (n x nid, dense) */
  PetscReal      *jp_all;      /* dense models: dF/dp of every parameter */
  PetscReal      *dydu, *dydp; /* n, np */
  PetscInt       *nonzero;     /* n: where dydu is not zero */
  PetscBool       output_p;    /* some output depends on the parameters directly */
  PetscBool       optional;    /* a method without forward sensitivities declines rather than fails */
  PetscBool       declined;
  PetscInt        nout; /* outputs recorded: y, then the model's channels */
  PetscInt        nstep, nalloc;
  PetscReal      *dy; /* tangents at the step points: [step][output][k] */
} MbsForwardSensitivity;

static PetscErrorCode MbsForwardIJacobianP(TS ts, PetscReal t, Vec U, Vec Udot, PetscReal shift, Mat A, void *ctx)
{
  MbsForwardSensitivity *fs = (MbsForwardSensitivity *)ctx;

  PetscFunctionBeginUser;
  PetscCall(MbsJacobianPCompute(fs->model, fs->nid, fs->id, fs->jp_all, t, U, Udot, A));
  PetscFunctionReturn(0);
}

/* Called by MbsSimulate_Private() before the TS reads its options: dF/dp and S(t0) for TSForward */
static PetscErrorCode MbsForwardSetUp(TS ts, void *ctx)
{
  MbsForwardSensitivity *fs = (MbsForwardSensitivity *)ctx;
  TSType                 type;
  PetscBool              theta;

  PetscFunctionBeginUser;
  PetscCall(TSGetType(ts, &type));
  PetscCall(PetscObjectTypeCompareAny((PetscObject)ts, &theta, TSTHETA, TSCN, TSBEULER, ""));
  if (!theta && fs->optional) {
    fs->declined = PETSC_TRUE;
    PetscFunctionReturn(0);
  }
  PetscCheck(theta, PETSC_COMM_SELF, PETSC_ERR_SUP, "-ts_type %s: the Jacobian of the residuals (Gauss-Newton, -tao_type %s) comes from forward sensitivities on the step points, which need -ts_type cn (the default), beuler or theta with -ts_theta_endpoint", type, TAOMBSLM);
  fs->ts = ts;
  PetscCall(TSSetIJacobianP(ts, fs->Jp, MbsForwardIJacobianP, fs));
  PetscCall(TSForwardSetSensitivities(ts, fs->nid, fs->S));
  PetscFunctionReturn(0);
}

/* y_o and dy_o/dU (o = 0: the model's output, o > 0: channel o - 1) and, for an output that depends on them, dy_o/dp */
static PetscErrorCode MbsForwardOutput_Private(MbsForwardSensitivity *fs, PetscInt o, PetscReal t, const PetscReal u[])
{
  PetscReal y;

  PetscFunctionBeginUser;
  if (o == 0) PetscCall(MbsModelOutput(fs->model, t, u, &y, fs->dydu));
  else PetscCall(MbsModelChannelOutput(fs->model, o - 1, t, u, &y, fs->dydu));
  if (!fs->output_p) PetscFunctionReturn(0);
  if (o == 0) PetscCall(MbsModelOutputP(fs->model, t, u, fs->dydp));
  else PetscCall(MbsModelChannelOutputP(fs->model, o - 1, t, u, fs->dydp));
  PetscFunctionReturn(0);
}

/* The tangent outputs dy_o/dp_k = dy_o/dU S e_k + dy_o/dp_k at a step point: the TS has stepped S along with U */
static PetscErrorCode MbsForwardRecord(MbsModel model, PetscInt step, PetscReal t, const PetscReal u[], void *ctx)
{
  static PetscLogEvent   event = -1; /* -log_view: the tangent outputs beside TSForwardStep's sensitivities */
  MbsForwardSensitivity *fs    = (MbsForwardSensitivity *)ctx;
  PetscInt               n = model->n, nid = fs->nid, stride = fs->nout * nid;
  Mat                    S;
  const PetscScalar     *s;

  PetscFunctionBeginUser;
  if (fs->declined) PetscFunctionReturn(0);
  if (event < 0) PetscCall(PetscLogEventRegister("MbsTangentOutput", TS_CLASSID, &event));
  PetscCall(PetscLogEventBegin(event, 0, 0, 0, 0));
  if (fs->nstep == fs->nalloc) {
    PetscReal *dy;

    fs->nalloc = PetscMax(1024, 2 * fs->nalloc);
    PetscCall(PetscMalloc1(fs->nalloc * stride, &dy));
    PetscCall(PetscArraycpy(dy, fs->dy, fs->nstep * stride));
    PetscCall(PetscFree(fs->dy));
    fs->dy = dy;
  }
  PetscCall(TSForwardGetSensitivities(fs->ts, NULL, &S));
  PetscCall(MatDenseGetArrayRead(S, &s));
  for (PetscInt o = 0; o < fs->nout; o++) {
    PetscReal *dy  = fs->dy + fs->nstep * stride + o * nid;
    PetscInt   nnz = 0;

    PetscCall(MbsForwardOutput_Private(fs, o, t, u));
    /* an accelerometer sees the coordinates of its body's elements only: the product over them alone */
    for (PetscInt i = 0; i < n; i++)
      if (fs->dydu[i] != 0) fs->nonzero[nnz++] = i;
    for (PetscInt k = 0; k < nid; k++) {
      const PetscScalar *s_k = s + k * n;

      dy[k] = fs->output_p ? fs->dydp[fs->id[k]] : 0;
      for (PetscInt a = 0; a < nnz; a++) dy[k] += fs->dydu[fs->nonzero[a]] * s_k[fs->nonzero[a]];
    }
  }
  PetscCall(MatDenseRestoreArrayRead(S, &s));
  fs->nstep++;
  PetscCall(PetscLogEventEnd(event, 0, 0, 0, 0));
  PetscFunctionReturn(0);
}

/* dF/dp, S(t0) = dU(t0)/dp (zero but for a model whose consistent initial state depends on its parameters) and work */
static PetscErrorCode MbsForwardSensitivityCreate_Private(MbsModel model, PetscInt nid, const PetscInt id[], MbsForwardSensitivity *fs)
{
  PetscScalar *s;

  PetscFunctionBeginUser;
  fs->model = model;
  fs->nid   = nid;
  fs->id    = id;
  PetscCall(MbsModelGetNumChannels(model, &fs->nout));
  fs->nout++;
  PetscCall(MbsModelHasOutputP(model, &fs->output_p));
  PetscCall(MbsJacobianPCreate(model, nid, id, &fs->Jp, &fs->jp_all));
  PetscCall(PetscMalloc3(model->n, &fs->dydu, model->np, &fs->dydp, model->n, &fs->nonzero));
  PetscCall(MatCreateSeqDense(PETSC_COMM_SELF, model->n, nid, NULL, &fs->S)); /* leading dimension n */
  PetscCall(MatDenseGetArrayWrite(fs->S, &s));
  PetscCall(MbsModelInitialStateP(model, model->t0, nid, id, s));
  PetscCall(MatDenseRestoreArrayWrite(fs->S, &s));
  PetscCall(MatAssemblyBegin(fs->S, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(fs->S, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(0);
}

/*@C
  MbsResidualSetReset - Frees the residuals of a set (the cost stays). Not collective.
@*/
PetscErrorCode MbsResidualSetReset(MbsResidualSet *set)
{
  PetscFunctionBeginUser;
  PetscCall(PetscFree5(set->r, set->w, set->data, set->dr_dd, set->channel));
  set->m = set->ndata = 0;
  PetscFunctionReturn(0);
}

/*@C
  MbsResidualSetCompute - The residuals of the set's cost on a signal it has evaluated (MbsCostEvaluate()), replacing
  those the set held. Not collective.
@*/
PetscErrorCode MbsResidualSetCompute(MbsResidualSet *set, const MbsSignal *signal)
{
  PetscFunctionBeginUser;
  PetscCall(MbsResidualSetReset(set));
  PetscCall(MbsCostResiduals(set->cost, signal, &set->m, &set->ndata, NULL, NULL, NULL, NULL, NULL));
  PetscCall(PetscMalloc5(set->m, &set->r, set->m, &set->w, 2 * set->m, &set->data, 2 * set->m, &set->dr_dd, set->m, &set->channel));
  PetscCall(MbsCostResiduals(set->cost, signal, &set->m, &set->ndata, set->r, set->w, set->data, set->dr_dd, set->channel));
  PetscFunctionReturn(0);
}

/* What one experiment's residuals need, freed whether they were formed or not */
typedef struct {
  MbsForwardSensitivity fs;
  MbsSignal             signal;
  MbsResidualSet        res;
  PetscReal            *ty;      /* tangent outputs, [k][output][step] */
  PetscReal           **ty_c;    /* [k][channel] into ty */
  MbsSignal            *tangent; /* nid */
} MbsLeastSquaresWork;

/* With keep, the residuals formed move there (replacing what it held) */
static PetscErrorCode MbsExperimentLeastSquaresDestroy_Private(MbsLeastSquaresWork *ls, MbsResidualSet *keep)
{
  PetscFunctionBeginUser;
  if (keep && ls->res.r) {
    PetscCall(MbsResidualSetReset(keep));
    *keep = ls->res;
    PetscCall(PetscMemzero(&ls->res, sizeof(ls->res)));
  }
  PetscCall(MatDestroy(&ls->fs.Jp));
  PetscCall(MatDestroy(&ls->fs.S));
  PetscCall(PetscFree(ls->fs.jp_all));
  PetscCall(PetscFree3(ls->fs.dydu, ls->fs.dydp, ls->fs.nonzero));
  PetscCall(PetscFree(ls->fs.dy));
  PetscCall(MbsSignalDestroy(&ls->signal));
  PetscCall(MbsResidualSetReset(&ls->res));
  PetscCall(PetscFree3(ls->ty, ls->ty_c, ls->tangent));
  PetscFunctionReturn(0);
}

/* One tangent signal per parameter: the signal's steps and nodes (the step points) with the tangent outputs */
static PetscErrorCode MbsTangentSignals_Private(MbsLeastSquaresWork *ls)
{
  MbsForwardSensitivity *fs     = &ls->fs;
  const MbsSignal       *signal = &ls->signal;
  PetscInt               n = signal->n, nid = fs->nid, nout = fs->nout, nchannel = signal->nchannel;

  PetscFunctionBeginUser;
  PetscCheck(fs->nstep == n, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Forward sensitivities of model %s: %" PetscInt_FMT " step points recorded, the solve has %" PetscInt_FMT, fs->model->type, fs->nstep, n);
  PetscCheck(signal->nq == n && nchannel == nout - 1, PETSC_COMM_SELF, PETSC_ERR_SUP, "The Jacobian of the residuals needs a method whose quadrature nodes are its step points (-ts_type cn, beuler, or theta with -ts_theta_endpoint)");
  PetscCall(PetscMalloc3(nid * nout * n, &ls->ty, nid * PetscMax(nchannel, 1), &ls->ty_c, nid, &ls->tangent));
  for (PetscInt k = 0; k < nid; k++)
    for (PetscInt o = 0; o < nout; o++)
      for (PetscInt j = 0; j < n; j++) ls->ty[(k * nout + o) * n + j] = fs->dy[(j * nout + o) * nid + k];
  for (PetscInt k = 0; k < nid; k++) {
    MbsSignal *tangent = &ls->tangent[k];

    *tangent     = *signal;
    tangent->y   = ls->ty + k * nout * n;
    tangent->yq  = tangent->y;
    tangent->yc  = ls->ty_c + k * nchannel;
    tangent->yqc = tangent->yc;
    for (PetscInt c = 0; c < nchannel; c++) tangent->yc[c] = ls->ty + (k * nout + 1 + c) * n;
  }
  PetscFunctionReturn(0);
}

/*
  rho (m) of experiment e at the current parameters and, with jacobian, drho/dp (m x nid, row-major), both allocated.
  With available, a method without sensitivities on its quadrature nodes gives rho alone and *available false.
*/
static PetscErrorCode MbsExperimentLeastSquares_Private(MbsObjective obj, PetscInt e, PetscBool jacobian, MbsLeastSquaresWork *ls, PetscInt *m, PetscReal **rho, PetscReal **jac, PetscBool *available, PetscBool *ok)
{
  MbsExperiment *exp = &obj->exp[e];
  PetscInt       nid = obj->nid;
  PetscReal      J;

  PetscFunctionBeginUser;
  ls->fs.optional = (PetscBool)(available != NULL);
  if (jacobian) PetscCall(MbsForwardSensitivityCreate_Private(exp->model, nid, exp->id, &ls->fs));
  PetscCall(MbsSimulate_Private(exp->model, NULL, jacobian ? MbsForwardSetUp : NULL, &ls->fs, jacobian ? MbsForwardRecord : NULL, &ls->fs, &ls->signal, NULL));
  *ok = (PetscBool)(ls->signal.reason >= 0 && !ls->signal.nonfinite);
  if (*ok) PetscCall(MbsCostSignalUsable(exp->cost, &ls->signal, ok));
  if (!*ok) PetscFunctionReturn(0);
  PetscCall(MbsCostEvaluate(exp->cost, &ls->signal, &J));
  ls->res.cost = exp->cost;
  PetscCall(MbsResidualSetCompute(&ls->res, &ls->signal));
  *m = ls->res.m;
  PetscCall(PetscMalloc1(*m, rho));
  for (PetscInt i = 0; i < *m; i++) (*rho)[i] = PetscSqrtReal(ls->res.w[i]) * ls->res.r[i];
  if (available) *available = (PetscBool)(jacobian && !ls->fs.declined && ls->signal.nq == ls->signal.n);
  if (!jacobian || (available && !*available)) PetscFunctionReturn(0);
  PetscCall(MbsTangentSignals_Private(ls));
  PetscCall(PetscMalloc1(*m * nid, jac));
  PetscCall(MbsCostResidualsTangent(exp->cost, &ls->signal, nid, ls->tangent, *jac));
  for (PetscInt i = 0; i < *m; i++)
    for (PetscInt k = 0; k < nid; k++) (*jac)[i * nid + k] *= PetscSqrtReal(ls->res.w[i]);
  PetscFunctionReturn(0);
}

/*@C
  MbsExperimentLeastSquares - rho of experiment e at the objective's current values and, with jacobian, drho/dp from
  forward sensitivities (the file header); see MbsExperimentLeastSquares_Private() for available. With keep (may be
  NULL), the residuals of the same solve go there, whether the Jacobian was available or not. Not collective.
@*/
PetscErrorCode MbsExperimentLeastSquares(MbsObjective obj, PetscInt e, PetscBool jacobian, PetscInt *m, PetscReal **rho, PetscReal **jac, PetscBool *available, MbsResidualSet *keep, PetscBool *ok)
{
  MbsExperiment      *exp = &obj->exp[e];
  MbsLeastSquaresWork ls;
  PetscLogDouble      start, end;

  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(&ls, sizeof(ls)));
  PetscCall(PetscTime(&start));
  PetscCall(MbsExperimentOptionsPush(exp));
  MbsCallCleanup(MbsExperimentLeastSquares_Private(obj, e, jacobian, &ls, m, rho, jac, available, ok), MbsExperimentLeastSquaresDestroy_Private(&ls, keep));
  PetscCall(MbsExperimentOptionsPop(exp));
  PetscCall(PetscTime(&end));
  exp->busy += end - start;
  PetscFunctionReturn(0);
}

/* Each rank's experiments' blocks (m_e rows each, in mine[e]) at their offsets in the experiment order, summed over the ranks */
static PetscErrorCode MbsLeastSquaresGather_Private(MbsObjective obj, PetscBool jacobian, PetscInt m_exp[], PetscReal *mine_rho[], PetscReal *mine_jac[], PetscInt *m, PetscReal **rho, PetscReal **jac)
{
  PetscInt   nid = obj->nid, width = 1 + (jacobian ? nid : 0), offset = 0;
  PetscReal *local, *global;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, m_exp, obj->nexp, MPIU_INT, MPI_SUM, obj->comm));
  *m = 0;
  for (PetscInt e = 0; e < obj->nexp; e++) *m += m_exp[e];
  PetscCall(PetscCalloc1(*m * width, &local));
  for (PetscInt e = 0; e < obj->nexp; offset += m_exp[e], e++) {
    if (!mine_rho[e]) continue;
    PetscCall(PetscArraycpy(local + offset, mine_rho[e], m_exp[e]));
    if (jacobian) PetscCall(PetscArraycpy(local + *m + offset * nid, mine_jac[e], m_exp[e] * nid));
  }
  PetscCall(PetscMalloc1(*m * width, &global));
  PetscCallMPI(MPI_Allreduce(local, global, *m * width, MPIU_REAL, MPIU_SUM, obj->comm));
  PetscCall(PetscFree(local));
  PetscCall(PetscMalloc1(*m, rho));
  PetscCall(PetscArraycpy(*rho, global, *m));
  if (jacobian) {
    PetscCall(PetscMalloc1(*m * nid, jac));
    PetscCall(PetscArraycpy(*jac, global + *m, *m * nid));
  }
  PetscCall(PetscFree(global));
  PetscFunctionReturn(0);
}

typedef struct {
  PetscInt   *m_exp;
  PetscReal **rho, **jac;
  PetscInt    nexp;
} MbsLeastSquaresBlocks;

static PetscErrorCode MbsLeastSquaresBlocksDestroy_Private(MbsLeastSquaresBlocks *b)
{
  PetscFunctionBeginUser;
  for (PetscInt e = 0; e < b->nexp && b->rho; e++) {
    PetscCall(PetscFree(b->rho[e]));
    PetscCall(PetscFree(b->jac[e]));
  }
  PetscCall(PetscFree3(b->m_exp, b->rho, b->jac));
  PetscFunctionReturn(0);
}

static PetscErrorCode MbsObjectiveLeastSquares_Private(MbsObjective obj, const PetscReal x[], PetscBool jacobian, MbsLeastSquaresBlocks *b, PetscInt *m, PetscReal **rho, PetscReal **jac, PetscBool *ok)
{
  PetscMPIInt rank;
  PetscInt    failures = 0;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(obj->comm, &rank));
  b->nexp = obj->nexp;
  PetscCall(PetscCalloc3(obj->nexp, &b->m_exp, obj->nexp, &b->rho, obj->nexp, &b->jac));
  PetscCall(MbsObjectiveSetValues(obj, x));
  for (PetscInt e = 0; e < obj->nexp; e++) {
    PetscBool ok_e;

    if (obj->exp[e].rank != rank) continue;
    PetscCall(MbsExperimentLeastSquares(obj, e, jacobian, &b->m_exp[e], &b->rho[e], &b->jac[e], NULL, NULL, &ok_e));
    if (!ok_e) failures++;
  }
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &failures, 1, MPIU_INT, MPI_SUM, obj->comm));
  obj->nevals++;
  *ok = (PetscBool)(failures == 0);
  if (*ok) PetscCall(MbsLeastSquaresGather_Private(obj, jacobian, b->m_exp, b->rho, b->jac, m, rho, jac));
  PetscFunctionReturn(0);
}

/*@C
  MbsObjectiveLeastSquares - The residuals rho (*m of them) of every experiment in experiment order at the identified
  parameter values x, J = rho^T rho, and with jacobian their Jacobian drho/dx (*m x nid, row-major) from forward
  sensitivities (file header); *rho and *jac are allocated, for the caller to free. A failed forward integration, or a
  signal the cost cannot use, sets *ok = PETSC_FALSE and allocates nothing. Collective.
@*/
PetscErrorCode MbsObjectiveLeastSquares(MbsObjective obj, const PetscReal x[], PetscBool jacobian, PetscInt *m, PetscReal **rho, PetscReal **jac, PetscBool *ok)
{
  MbsLeastSquaresBlocks b;

  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(&b, sizeof(b)));
  *m   = 0;
  *rho = NULL;
  if (jac) *jac = NULL;
  MbsCallCleanup(MbsObjectiveLeastSquares_Private(obj, x, jacobian, &b, m, rho, jac, ok), MbsLeastSquaresBlocksDestroy_Private(&b));
  PetscFunctionReturn(0);
}

typedef struct {
  PetscInt   m;
  PetscReal *rho, *jac, *step_rho[4], *x;
} MbsLeastSquaresCheck;

static PetscErrorCode MbsLeastSquaresCheckDestroy_Private(MbsLeastSquaresCheck *c)
{
  PetscFunctionBeginUser;
  PetscCall(PetscFree(c->rho));
  PetscCall(PetscFree(c->jac));
  PetscCall(PetscFree(c->x));
  for (PetscInt i = 0; i < 4; i++) PetscCall(PetscFree(c->step_rho[i]));
  PetscFunctionReturn(0);
}

static PetscErrorCode MbsLeastSquaresOrFail_Private(MbsObjective obj, const PetscReal x[], PetscBool jacobian, PetscInt *m, PetscReal **rho, PetscReal **jac)
{
  PetscBool ok;

  PetscFunctionBeginUser;
  PetscCall(MbsObjectiveLeastSquares(obj, x, jacobian, m, rho, jac, &ok));
  PetscCheck(ok, obj->comm, PETSC_ERR_NOT_CONVERGED, "The forward simulation of model %s failed during the check of the residuals' Jacobian, or its steps alias an analysed frequency; see -ts_monitor", obj->model->type);
  PetscFunctionReturn(0);
}

static PetscErrorCode MbsObjectiveCheckLeastSquares_Private(MbsObjective obj, const PetscReal x0[], const PetscReal grad[], PetscReal step, PetscReal rtol, MbsLeastSquaresCheck *c)
{
  PetscInt  nid = obj->nid, m;
  PetscReal J = 0, worst = 0, gscale = 0;

  PetscFunctionBeginUser;
  PetscCall(MbsLeastSquaresOrFail_Private(obj, x0, PETSC_TRUE, &c->m, &c->rho, &c->jac));
  PetscCall(PetscMalloc1(nid, &c->x));
  PetscCall(PetscArraycpy(c->x, x0, nid));
  for (PetscInt i = 0; i < c->m; i++) J += c->rho[i] * c->rho[i];
  for (PetscInt k = 0; k < nid; k++) gscale = PetscMax(gscale, PetscAbsReal(grad[k]));
  PetscCall(PetscPrintf(obj->comm, "Residuals: %" PetscInt_FMT ", J = rho^T rho = %.12e\n", c->m, (double)J));
  PetscCall(PetscPrintf(obj->comm, "%-8s %-22s %-22s %-12s %-12s\n", "param", "2 (drho/dp)^T rho", "adjoint dJ/dp", "rel. error", "drho/dp vs central FD (max over residuals / max |FD|)"));
  for (PetscInt k = 0; k < nid; k++) {
    const MbsParameterInfo *info = &obj->model->param_info[obj->id[k]];
    PetscReal               h = step * (x0[k] != 0 ? PetscAbsReal(x0[k]) : 1), g = 0, dmax = 0, emax = 0, e_grad;

    for (PetscInt i = 0; i < 4; i++) { /* x + h, x - h, x + 2h, x - 2h */
      c->x[k] = x0[k] + (i % 2 ? -1 : 1) * (1 + i / 2) * h;
      PetscCall(PetscFree(c->step_rho[i]));
      PetscCall(MbsLeastSquaresOrFail_Private(obj, c->x, PETSC_FALSE, &m, &c->step_rho[i], NULL));
      PetscCheck(m == c->m, obj->comm, PETSC_ERR_PLIB, "%" PetscInt_FMT " residuals at p, %" PetscInt_FMT " at a step of %s", c->m, m, info->name);
    }
    c->x[k] = x0[k];
    for (PetscInt i = 0; i < c->m; i++) {
      PetscReal d = (8 * (c->step_rho[0][i] - c->step_rho[1][i]) - (c->step_rho[2][i] - c->step_rho[3][i])) / (12 * h);

      dmax = PetscMax(dmax, PetscAbsReal(d));
      emax = PetscMax(emax, PetscAbsReal(c->jac[i * nid + k] - d));
      g += 2 * c->rho[i] * c->jac[i * nid + k];
    }
    emax /= PetscMax(dmax, PETSC_SMALL * PETSC_SMALL);
    e_grad = PetscAbsReal(g - grad[k]) / PetscMax(PetscMax(PetscAbsReal(grad[k]), 1e-8 * gscale), PETSC_SMALL * PETSC_SMALL);
    worst  = PetscMax(worst, PetscMax(emax, e_grad));
    PetscCall(PetscPrintf(obj->comm, "%-8s %-22.14e %-22.14e %-12.3e %-12.3e\n", info->name, (double)g, (double)grad[k], (double)e_grad, (double)emax));
  }
  PetscCall(MbsObjectiveSetValues(obj, x0));
  PetscCheck(worst <= rtol, obj->comm, PETSC_ERR_PLIB, "Residual Jacobian check FAILED: largest relative error %.3e exceeds -gradcheck_rtol %g", (double)worst, (double)rtol);
  PetscCall(PetscPrintf(obj->comm, "Residual Jacobian check passed: largest relative error %.3e <= %g\n", (double)worst, (double)rtol));
  PetscFunctionReturn(0);
}

/*@C
  MbsObjectiveCheckLeastSquares - Checks the Jacobian of the residuals at x from forward sensitivities against
  fourth-order central differences of the residuals (relative step step), column by column (largest difference over the
  residuals, relative to the largest difference quotient), and 2 (drho/dp)^T rho against the adjoint gradient grad;
  fails when an error exceeds rtol. Call it on frozen steps (MbsObjectiveFreezeSteps). Collective.
@*/
PetscErrorCode MbsObjectiveCheckLeastSquares(MbsObjective obj, const PetscReal x[], const PetscReal grad[], PetscReal step, PetscReal rtol)
{
  MbsLeastSquaresCheck c;

  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(&c, sizeof(c)));
  MbsCallCleanup(MbsObjectiveCheckLeastSquares_Private(obj, x, grad, step, rtol, &c), MbsLeastSquaresCheckDestroy_Private(&c));
  PetscFunctionReturn(0);
}
