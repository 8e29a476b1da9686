/*
  mbsid identify: the parameters that minimise the cost, by TAO (default bqnkls, the bound-constrained
  quasi-Newton method with a line search; -tao_type and the -tao_* tolerances are honoured) with the adjoint gradient.

  TAO works on scaled variables, x_k = p_k / p_k,0 (or x_k = log(p_k / p_k,0) with -identify_scaling log; a parameter
  that starts at zero or below, a position or a gravity component, is scaled by a size s_k instead, p_k = p_k,0 +
  s_k (x_k - 1): -identify_scale NAME:s, default |p_k,0| or half its bounds' width),
  bounded by the model's physical bounds, and on the scaled cost J / J_0: in SI units J is tiny (1e-14 for
  amplitudes of 1e-4 rad) and would stop TAO at once. J and the gradient are reported unscaled. A forward
  solve that fails during a line search, or whose adaptive steps alias an analysed frequency, is a failed step for TAO
  (a large cost, no descent), not an error.

  At the result, the confidence (confidence.c): standard deviations, correlations and 95 % intervals from the Gauss-Newton
  matrix of the cost's residuals and the noise of the measured values (-noise_sigma, or estimated from the residual).

  With -checkpoint FILE every evaluation is logged and the log written after each iteration (for -tao_type mbslm its
  state instead); SIGTERM, SIGUSR1 or SIGINT stop the run after the current solve with the checkpoint written and exit
  status MBS_EXIT_STOPPED; -restart FILE continues bitwise as the uninterrupted run (checkpoint.c).
*/
#include "commands/commandimpl.h"
#include <petsctao.h>
#include <petsctime.h>

typedef enum {
  MBS_SCALING_LINEAR,
  MBS_SCALING_LOG
} MbsScaling;

static const char *const MbsScalings[] = {"linear", "log", "MbsScaling", "MBS_SCALING_", NULL};

/* The cost TAO sees after a failed forward solve: far above the scaled cost (1 at the start) */
#define MBS_FAILED_STEP_COST 1e10

/* The least-squares form for Gauss-Newton methods (-tao_type mbslm or brgn): residuals and their Jacobian */
typedef struct {
  PetscBool  on;
  PetscInt   m;                 /* residuals */
  Vec        R;                 /* sqrt(2 / J0) rho */
  Mat        J;                 /* dR/dx, m x nid dense */
  PetscReal *x, *R_at_x;        /* the point of the last Jacobian and its residuals, for the residual call that follows */
  PetscReal *x_plain, *R_plain; /* the point of the last residual call and its residuals, of a plain solve */
  PetscBool  plain_set;
  PetscReal *state; /* mbslm's state for the checkpoint (TaoMbsLMGetState), NULL: not saved */
} MbsIdentifyLeastSquares;

typedef struct {
  MbsObjective  obj;
  PetscInt      nid;  /* identified parameters */
  MbsScan       scan; /* NULL without -scan_grid */
  MbsScaling    scaling;
  PetscReal    *p0;            /* initial values */
  PetscReal    *dpdx;          /* linear scaling p = dpdx x + (p0 - dpdx) (MbsIdentifyLinearScaling_Private()); p0 with log */
  char          scale[1024];   /* -identify_scale NAME:s,... */
  PetscReal     J0;            /* cost scale */
  PetscScalar  *x;             /* work: TAO's point */
  PetscReal    *p, *g;         /* work: physical values and gradient */
  PetscReal     gnorm;         /* |dJ/dp| of the last evaluation */
  PetscReal     gnorm0_scaled; /* TAO's gradient norm at the start, for the time estimate */
  MbsCheckpoint ck;            /* the log of evaluations: checkpoint and restart */
  /* history, one entry per iteration */
  PetscInt           nhist, nalloc;
  TaoConvergedReason reason;
  TaoType            tao_type;
  MbsEigenResult     eigen[2];          /* modes at the initial and the identified parameters */
  char               eigen_reason[512]; /* why the eigen check was not computed; empty: it was */
  PetscBool          confidence;
  PetscReal          noise_sigma, confidence_step;
  PetscBool          confidence_differences;
  char               channel_noise[1024]; /* -channel_noise NAME:sigma,... */
  MbsConfidence      conf;
  PetscReal          eigen_expect_hz[2];
  PetscBool          eigen_expect_set, eigen_strict;
  PetscReal         *hist_J, *hist_gnorm, *hist_p, *hist_time;
  Tao                tao;
  Mat                hessian;           /* the Gauss-Newton matrix of a cost that gives one (frf), NULL: none */
  Vec                X, lower, upper;   /* TAO's solution and bounds */
  PetscReal         *final;             /* the identified values */
  PetscReal         *p_lower, *p_upper; /* the parameters' physical bounds */

  MbsIdentifyLeastSquares ls; /* TAO's least-squares methods */
} MbsIdentifyContext;

/* p of TAO's x, clamped to the physical bounds: TAO holds x within its bounds, but p0 exp(log(upper / p0)) (or
   p0 (upper / p0)) may round to one ulp beyond upper, which the model refuses. p0 - dpdx is exactly 0 for a positive
   start, so that p = p0 x exactly there */
static void MbsToPhysical_Private(MbsIdentifyContext *ctx, const PetscScalar x[], PetscReal p[])
{
  for (PetscInt k = 0; k < ctx->nid; k++) {
    p[k] = ctx->scaling == MBS_SCALING_LOG ? ctx->p0[k] * PetscExpReal(x[k]) : ctx->dpdx[k] * x[k] + (ctx->p0[k] - ctx->dpdx[k]);
    p[k] = PetscMin(PetscMax(p[k], ctx->p_lower[k]), ctx->p_upper[k]);
  }
}

/*
  The linear scaling p = dpdx x + shift of each identified parameter, x = 1 at the start p0: dpdx is the size
  -identify_scale gives, else p0 for a positive start (p = p0 x exactly then), |p0| for a negative one (a
  position, a gravity component) and half the width of the parameter's bounds at p0 = 0 (which must then be finite and
  not empty)
*/
static PetscErrorCode MbsIdentifyLinearScaling_Private(MbsIdentifyContext *ctx)
{
  const char **names;
  MPI_Comm     comm;

  PetscFunctionBeginUser;
  PetscCall(MbsObjectiveGetComm(ctx->obj, &comm));
  PetscCall(PetscMalloc1(ctx->nid, &names));
  for (PetscInt k = 0; k < ctx->nid; k++) {
    const MbsParameterInfo *info;

    PetscCall(MbsObjectiveGetParameterInfo(ctx->obj, k, &info));
    names[k]     = info->name;
    ctx->dpdx[k] = ctx->p0[k] > 0 ? ctx->p0[k] : ctx->p0[k] < 0 ? -ctx->p0[k] : (info->upper - info->lower) / 2;
  }
  MbsCallUndo(MbsNamedValues(comm, "-identify_scale", ctx->scale, "identified parameter", "-identify", ctx->nid, names, ctx->dpdx), PetscFree(names));
  PetscCall(PetscFree(names));
  for (PetscInt k = 0; k < ctx->nid; k++) {
    const MbsParameterInfo *info;

    PetscCall(MbsObjectiveGetParameterInfo(ctx->obj, k, &info));
    PetscCheck(ctx->dpdx[k] < 1e100, comm, PETSC_ERR_ARG_OUTOFRANGE, "Parameter %s starts at 0 and has no finite bounds to take its size from: give it with -identify_scale %s:SIZE [%s], the size of the changes expected", info->name, info->name, info->unit);
    PetscCheck(ctx->dpdx[k] > 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "Parameter %s starts at 0 and its bounds [%g, %g] %s fix it there: leave it out of -identify, or widen its bounds", info->name, (double)info->lower, (double)info->upper, info->unit);
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode MbsIdentifyObjective(Tao tao, Vec X, PetscReal *f, Vec G, void *ptr)
{
  MbsIdentifyContext *ctx = (MbsIdentifyContext *)ptr;
  MbsObjective        obj = ctx->obj;
  const PetscScalar  *x;
  PetscScalar        *g;
  PetscReal           J;
  PetscBool           ok, replayed;

  PetscFunctionBeginUser;
  PetscCall(VecGetArrayRead(X, &x));
  MbsToPhysical_Private(ctx, x, ctx->p);
  PetscCall(PetscArraycpy(ctx->x, x, ctx->nid));
  PetscCall(VecRestoreArrayRead(X, &x));
  PetscCall(MbsCheckpointReplay(ctx->ck, ctx->x, &J, ctx->g, &ok, &replayed)); /* returns MBS_ERR_INTERRUPTED on a stop request */
  if (!replayed) {
    PetscCall(MbsObjectiveEvaluate(obj, ctx->p, &J, ctx->g, &ok));
    PetscCall(MbsCheckpointRecord(ctx->ck, ctx->x, J, ctx->g, ok));
  }
  PetscCall(VecGetArrayWrite(G, &g));
  if (!ok) {
    MPI_Comm comm;

    PetscCall(MbsObjectiveGetComm(obj, &comm));
    PetscCall(PetscPrintf(comm, "  forward solve failed, or its steps alias an analysed frequency, at trial parameters; reported to TAO as a failed step\n"));
    *f = MBS_FAILED_STEP_COST;
    for (PetscInt k = 0; k < ctx->nid; k++) g[k] = 0;
  } else {
    *f         = J / ctx->J0;
    ctx->gnorm = 0;
    for (PetscInt k = 0; k < ctx->nid; k++) {
      /* dJ/dx = dJ/dp dp/dx, dp/dx = dpdx (linear) or p (log) */
      g[k] = ctx->g[k] * (ctx->scaling == MBS_SCALING_LOG ? ctx->p[k] : ctx->dpdx[k]) / ctx->J0;
      ctx->gnorm += ctx->g[k] * ctx->g[k];
    }
    ctx->gnorm = PetscSqrtReal(ctx->gnorm);
  }
  PetscCall(VecRestoreArrayWrite(G, &g));
  PetscFunctionReturn(0);
}

/*
  The Gauss-Newton matrix of J/J0 in TAO's variables, G_x = D G_p D / J0 with D = diag(dp/dx), for a cost that gives G_p
  (frf): with it TAO's Newton methods (bntr, bnls) take Gauss-Newton steps in a trust region or along a line, the
  Levenberg-Marquardt idea for least squares. The term dJ/dp d2p/dx2 of log scaling, which vanishes with the residual
  at a fit to exact data, is left out as the residuals' curvature is.
*/
static PetscErrorCode MbsIdentifyHessian(Tao tao, Vec X, Mat H, Mat Hpre, void *ptr)
{
  MbsIdentifyContext *ctx = (MbsIdentifyContext *)ptr;
  const PetscScalar  *x;
  PetscReal           J, *G;
  PetscInt            nid = ctx->nid;
  PetscBool           ok;
  MPI_Comm            comm;

  PetscFunctionBeginUser;
  PetscCall(VecGetArrayRead(X, &x));
  MbsToPhysical_Private(ctx, x, ctx->p);
  PetscCall(VecRestoreArrayRead(X, &x));
  PetscCall(PetscMalloc1(nid * nid, &G));
  MbsCallUndo(MbsObjectiveEvaluateGaussNewton(ctx->obj, ctx->p, &J, ctx->g, G, &ok), PetscFree(G));
  PetscCall(MbsObjectiveGetComm(ctx->obj, &comm));
  for (PetscInt k = 0; k < nid; k++)
    for (PetscInt l = 0; l < nid; l++) {
      PetscReal dk = ctx->scaling == MBS_SCALING_LOG ? ctx->p[k] : ctx->dpdx[k], dl = ctx->scaling == MBS_SCALING_LOG ? ctx->p[l] : ctx->dpdx[l];

      PetscCall(MatSetValue(H, k, l, G[k * nid + l] * dk * dl / ctx->J0, INSERT_VALUES));
    }
  PetscCall(PetscFree(G));
  PetscCall(MatAssemblyBegin(H, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(H, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(0);
}

/*
  The residuals TAO's least-squares methods see, R = sqrt(2 / J0) rho with J = rho^T rho (least_squares.c), so that
  1/2 |R|^2 = J / J0 is the scaled cost of the other methods, and dR/dx = sqrt(2 / J0) drho/dp dp/dx. A Jacobian's solve
  gives the residuals too: they are kept for the residual call at the same point. Where a residual call came first (the
  trial step that mbslm then takes), its residuals stay those of the point: the solve with sensitivities refreshes the
  Jacobian of every step, where a plain solve lags it, so their states differ within Newton's tolerance (3e-13 of J0 in
  J on the 300-parameter ring), and the iteration's J is then the plain solve's, which the result's J repeats. A failed
  trial solve gives residuals of 1e10 each, a failed step.
*/
static PetscErrorCode MbsIdentifyLeastSquares_Private(MbsIdentifyContext *ctx, Vec X, Vec R, Mat J)
{
  MbsIdentifyLeastSquares *ls    = &ctx->ls;
  PetscInt                 nid   = ctx->nid, m;
  PetscReal                scale = PetscSqrtReal(2 / ctx->J0), *rho, *jac = NULL;
  const PetscScalar       *x;
  PetscScalar             *r;
  PetscBool                ok, same = (PetscBool)(!J && ls->x), plain = (PetscBool)(J && ls->plain_set);
  MPI_Comm                 comm;

  PetscFunctionBeginUser;
  PetscCall(MbsObjectiveGetComm(ctx->obj, &comm));
  PetscCall(VecGetArrayRead(X, &x));
  MbsToPhysical_Private(ctx, x, ctx->p);
  for (PetscInt k = 0; same && k < nid; k++) same = (PetscBool)(ls->x[k] == x[k]);
  for (PetscInt k = 0; plain && k < nid; k++) plain = (PetscBool)(ls->x_plain[k] == x[k]);
  if (J) {
    if (!ls->x) PetscCall(PetscMalloc2(nid, &ls->x, ls->m, &ls->R_at_x));
    PetscCall(PetscArraycpy(ls->x, x, nid));
  } else if (!same) {
    if (!ls->x_plain) PetscCall(PetscMalloc2(nid, &ls->x_plain, ls->m, &ls->R_plain));
    PetscCall(PetscArraycpy(ls->x_plain, x, nid));
  }
  PetscCall(VecRestoreArrayRead(X, &x));
  PetscCall(VecGetArrayWrite(R, &r));
  if (same) {
    PetscCall(PetscArraycpy(r, ls->R_at_x, ls->m));
    PetscCall(VecRestoreArrayWrite(R, &r));
    PetscFunctionReturn(0);
  }
  MbsCallUndo(MbsCheckpointStopIfRequested(ctx->ck), VecRestoreArrayWrite(R, &r)); /* MBS_ERR_INTERRUPTED on a stop request */
  PetscCall(MbsObjectiveLeastSquares(ctx->obj, ctx->p, (PetscBool)(J != NULL), &m, &rho, J ? &jac : NULL, &ok));
  PetscCheck(ok || !J, comm, PETSC_ERR_NOT_CONVERGED, "The forward solve with sensitivities failed at parameters whose plain solve succeeded");
  if (!ok) PetscCall(PetscPrintf(comm, "  forward solve failed, or its steps alias an analysed frequency, at trial parameters; a rejected step\n"));
  PetscCheck(!ok || m == ls->m, comm, PETSC_ERR_PLIB, "%" PetscInt_FMT " residuals, %" PetscInt_FMT " at the start", m, ls->m);
  for (PetscInt i = 0; i < ls->m; i++) r[i] = ok ? scale * rho[i] : 1e10;
  if (plain) PetscCall(PetscArraycpy(r, ls->R_plain, ls->m));
  if (!J) PetscCall(PetscArraycpy(ls->R_plain, r, ls->m));
  ls->plain_set = (PetscBool)(!J && ok);
  PetscCall(VecRestoreArrayWrite(R, &r));
  if (J) {
    PetscScalar *a;

    PetscCall(VecGetArrayRead(R, &x));
    PetscCall(PetscArraycpy(ls->R_at_x, x, m));
    PetscCall(VecRestoreArrayRead(R, &x));
    PetscCall(MatDenseGetArrayWrite(J, &a));
    ctx->gnorm = 0;
    for (PetscInt k = 0; k < nid; k++) {
      PetscReal dp_dx = ctx->scaling == MBS_SCALING_LOG ? ctx->p[k] : ctx->dpdx[k], g = 0;

      for (PetscInt i = 0; i < m; i++) {
        a[i + k * m] = scale * jac[i * nid + k] * dp_dx;
        g += 2 * ls->R_at_x[i] / scale * jac[i * nid + k]; /* J^T R of the residuals TAO has (mbslm: the trial step's) */
      }
      ctx->gnorm += g * g;
    }
    ctx->gnorm = PetscSqrtReal(ctx->gnorm);
    PetscCall(MatDenseRestoreArrayWrite(J, &a));
    PetscCall(MatAssemblyBegin(J, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(J, MAT_FINAL_ASSEMBLY));
  }
  PetscCall(PetscFree(rho));
  PetscCall(PetscFree(jac));
  PetscFunctionReturn(0);
}

static PetscErrorCode MbsIdentifyResidual(Tao tao, Vec X, Vec R, void *ptr)
{
  PetscFunctionBeginUser;
  PetscCall(MbsIdentifyLeastSquares_Private((MbsIdentifyContext *)ptr, X, R, NULL));
  PetscFunctionReturn(0);
}

static PetscErrorCode MbsIdentifyResidualJacobian(Tao tao, Vec X, Mat J, Mat Jpre, void *ptr)
{
  MbsIdentifyContext *ctx = (MbsIdentifyContext *)ptr;

  PetscFunctionBeginUser;
  PetscCall(MbsIdentifyLeastSquares_Private(ctx, X, ctx->ls.R, J));
  PetscFunctionReturn(0);
}

/* The history up to the saved iteration from the restart file's /iterations (data: J, gnorm, time, params; dims: theirs) */
static PetscErrorCode MbsIdentifyRestoreHistory_Private(MbsIdentifyContext *ctx, const char restart[], const PetscReal state[], const PetscInt dims[], PetscReal *data[])
{
  PetscInt nid = ctx->nid, rows[4];
  MPI_Comm comm;

  PetscFunctionBeginUser;
  PetscCall(MbsObjectiveGetComm(ctx->obj, &comm));
  for (PetscInt i = 0; i < 4; i++) rows[i] = dims[2 * i];
  PetscCheck(rows[0] == rows[1] && rows[1] == rows[2] && rows[2] == rows[3] && dims[7] == nid && rows[0] == (PetscInt)state[nid + MBS_LM_STATE_NITER] + 1, comm, PETSC_ERR_FILE_UNEXPECTED, "Checkpoint '%s': /iterations holds %" PetscInt_FMT ", %" PetscInt_FMT ", %" PetscInt_FMT " and %" PetscInt_FMT " x %" PetscInt_FMT " values, its state is of iteration %g of %" PetscInt_FMT " parameters (a damaged checkpoint?)", restart, rows[0], rows[1], rows[2], rows[3], dims[7], (double)state[nid + MBS_LM_STATE_NITER], nid);
  ctx->nhist = ctx->nalloc = rows[0];
  PetscCall(PetscMalloc4(ctx->nalloc, &ctx->hist_J, ctx->nalloc, &ctx->hist_gnorm, ctx->nalloc * nid, &ctx->hist_p, ctx->nalloc, &ctx->hist_time));
  PetscCall(PetscArraycpy(ctx->hist_J, data[0], ctx->nhist));
  PetscCall(PetscArraycpy(ctx->hist_gnorm, data[1], ctx->nhist));
  PetscCall(PetscArraycpy(ctx->hist_time, data[2], ctx->nhist));
  PetscCall(PetscArraycpy(ctx->hist_p, data[3], ctx->nhist * nid));
  PetscFunctionReturn(0);
}

/*
  A restart of mbslm: TAO's point, the method's state and the history up to the iteration the checkpoint saved; the
  solve continues from there without evaluating at that point again.
*/
static PetscErrorCode MbsIdentifyRestoreLM_Private(MbsIdentifyContext *ctx, Tao tao)
{
  PetscInt         nid = ctx->nid, nstate, dims[8] = {0, 1, 0, 1, 0, 1, 0, 1}, rank[4] = {1, 1, 1, 2};
  const PetscReal *state;
  PetscReal       *data[4];
  PetscScalar     *x;
  const char      *restart;
  const char      *names[4] = {"/iterations/J", "/iterations/gnorm", "/iterations/time", "/iterations/params"};
  MPI_Comm         comm;

  PetscFunctionBeginUser;
  PetscCall(MbsObjectiveGetComm(ctx->obj, &comm));
  PetscCall(MbsCheckpointGetFiles(ctx->ck, NULL, &restart));
  PetscCall(MbsCheckpointGetState(ctx->ck, &nstate, &state));
  PetscCheck(nstate == nid + MBS_LM_STATE_SIZE(nid), comm, PETSC_ERR_FILE_UNEXPECTED, "Checkpoint '%s' holds no state of -tao_type %s for %" PetscInt_FMT " parameters (/checkpoint/state has %" PetscInt_FMT " values, expected %" PetscInt_FMT ")", restart, TAOMBSLM, nid, nstate, nid + MBS_LM_STATE_SIZE(nid));
  PetscCall(VecGetArrayWrite(ctx->X, &x));
  for (PetscInt k = 0; k < nid; k++) x[k] = state[k];
  PetscCall(VecRestoreArrayWrite(ctx->X, &x));
  PetscCall(TaoMbsLMSetState(tao, nid, state + nid));
  ctx->gnorm0_scaled = state[nid + MBS_LM_STATE_GNORM0];
  PetscCall(MbsCheckpointReadRestart(ctx->ck, 4, names, rank, dims, data));
  MbsCallCleanup(MbsIdentifyRestoreHistory_Private(ctx, restart, state, dims, data), MbsCheckpointRestartFree(4, data));
  PetscCall(PetscPrintf(comm, "Restart from '%s': Levenberg-Marquardt continues after iteration %" PetscInt_FMT " (J %.6e, lambda %g) from its saved state, without solving there again\n", restart, ctx->nhist - 1, (double)ctx->hist_J[ctx->nhist - 1], (double)state[nid + MBS_LM_STATE_LAMBDA]));
  PetscFunctionReturn(0);
}

/*
  For TAO's least-squares methods (mbslm, brgn): the residual routine and its Jacobian, with the number of residuals
  counted by the start's record. mbslm's checkpoint is its state; brgn keeps its state inside TAO, where only a log of
  every residual vector and Jacobian could rebuild it: no checkpoint.
*/
static PetscErrorCode MbsIdentifySetLeastSquares_Private(MbsIdentifyContext *ctx, Tao tao)
{
  MbsIdentifyLeastSquares *ls = &ctx->ls;
  PetscBool                simulates, lm;
  MbsCost                  cost;
  const char              *checkpoint, *restart;
  MPI_Comm                 comm;

  PetscFunctionBeginUser;
  PetscCall(PetscObjectTypeCompareAny((PetscObject)tao, &ls->on, TAOMBSLM, TAOBRGN, ""));
  if (!ls->on) PetscFunctionReturn(0);
  PetscCall(PetscObjectTypeCompare((PetscObject)tao, TAOMBSLM, &lm));
  PetscCall(MbsObjectiveGetComm(ctx->obj, &comm));
  PetscCall(MbsObjectiveGetCost(ctx->obj, &cost));
  PetscCall(MbsCostSimulates(cost, &simulates));
  PetscCheck(simulates, comm, PETSC_ERR_SUP, "-cost frf gives no residual vector for -tao_type mbslm or brgn; its Gauss-Newton matrix serves TAO's Newton methods instead: use -tao_type bnls or bntr");
  PetscCall(MbsCheckpointGetFiles(ctx->ck, &checkpoint, &restart));
  PetscCheck(lm || (!checkpoint[0] && !restart[0]), comm, PETSC_ERR_SUP, "-checkpoint and -restart: -tao_type brgn keeps its state inside TAO, which a checkpoint cannot restore; -tao_type %s (Levenberg-Marquardt on the same residuals) saves its state in the checkpoint", TAOMBSLM);
  PetscCall(VecCreateSeq(PETSC_COMM_SELF, ls->m, &ls->R));
  PetscCall(MatCreateSeqDense(PETSC_COMM_SELF, ls->m, ctx->nid, NULL, &ls->J));
  PetscCall(TaoSetResidualRoutine(tao, ls->R, MbsIdentifyResidual, ctx));
  PetscCall(TaoSetJacobianResidualRoutine(tao, ls->J, ls->J, MbsIdentifyResidualJacobian, ctx));
  PetscCall(PetscPrintf(comm, "Least squares: %" PetscInt_FMT " residuals, their Jacobian from forward sensitivities\n", ls->m));
  if (checkpoint[0]) PetscCall(PetscMalloc1(ctx->nid + MBS_LM_STATE_SIZE(ctx->nid), &ls->state));
  if (restart[0]) PetscCall(MbsIdentifyRestoreLM_Private(ctx, tao));
  PetscFunctionReturn(0);
}

/* One progress line per iteration, and the history for the result file */
static PetscErrorCode MbsIdentifyMonitor(Tao tao, void *ptr)
{
  MbsIdentifyContext *ctx = (MbsIdentifyContext *)ptr;
  MbsObjective        obj = ctx->obj;
  PetscInt            its, max_it, nid = ctx->nid;
  MPI_Comm            comm;
  PetscReal           f, gnorm_scaled, cnorm, step, gatol, grtol, gttol, remaining, elapsed;
  TaoConvergedReason  reason;
  const PetscScalar  *x;
  Vec                 X;
  char               *line, value[64];
  size_t              size = 128;

  PetscFunctionBeginUser;
  PetscCall(TaoGetSolutionStatus(tao, &its, &f, &gnorm_scaled, &cnorm, &step, &reason));
  if (its < ctx->nhist) PetscFunctionReturn(0); /* the iteration a restart of mbslm continues after: in the history */
  PetscCall(TaoGetSolution(tao, &X));
  PetscCall(TaoGetMaximumIterations(tao, &max_it));
  PetscCall(TaoGetTolerances(tao, &gatol, &grtol, &gttol));
  PetscCall(MbsCheckpointElapsed(ctx->ck, &elapsed));
  if (ctx->nhist == ctx->nalloc) {
    PetscReal *J, *gn, *p, *t;

    ctx->nalloc = PetscMax(16, 2 * ctx->nalloc);
    PetscCall(PetscMalloc4(ctx->nalloc, &J, ctx->nalloc, &gn, ctx->nalloc * nid, &p, ctx->nalloc, &t));
    PetscCall(PetscArraycpy(J, ctx->hist_J, ctx->nhist));
    PetscCall(PetscArraycpy(gn, ctx->hist_gnorm, ctx->nhist));
    PetscCall(PetscArraycpy(p, ctx->hist_p, ctx->nhist * nid));
    PetscCall(PetscArraycpy(t, ctx->hist_time, ctx->nhist));
    PetscCall(PetscFree4(ctx->hist_J, ctx->hist_gnorm, ctx->hist_p, ctx->hist_time));
    ctx->hist_J     = J;
    ctx->hist_gnorm = gn;
    ctx->hist_p     = p;
    ctx->hist_time  = t;
  }
  PetscCall(VecGetArrayRead(X, &x));
  MbsToPhysical_Private(ctx, x, &ctx->hist_p[ctx->nhist * nid]);
  PetscCall(VecRestoreArrayRead(X, &x));
  ctx->hist_J[ctx->nhist]     = f * ctx->J0;
  ctx->hist_gnorm[ctx->nhist] = ctx->gnorm;
  ctx->hist_time[ctx->nhist]  = elapsed;
  ctx->nhist++;
  if (ctx->ls.state) {
    PetscCall(VecGetArrayRead(X, &x));
    for (PetscInt k = 0; k < nid; k++) ctx->ls.state[k] = PetscRealPart(x[k]);
    PetscCall(VecRestoreArrayRead(X, &x));
    PetscCall(TaoMbsLMGetState(tao, ctx->ls.state + nid));
    PetscCall(MbsCheckpointSetState(ctx->ck, nid + MBS_LM_STATE_SIZE(nid), ctx->ls.state));
  }
  PetscCall(MbsCheckpointWrite(ctx->ck, "after an accepted iteration"));

  /* remaining iterations: the mean rate of decrease of TAO's gradient norm so far, towards the nearest tolerance */
  if (its == 0) ctx->gnorm0_scaled = gnorm_scaled;
  remaining = max_it - its;
  if (its > 0 && gnorm_scaled > 0) {
    PetscReal target = PetscMax(gatol, PetscMax(grtol * f, gttol * ctx->gnorm0_scaled)), rate = PetscLogReal(ctx->gnorm0_scaled / gnorm_scaled) / its;

    if (rate > 0) remaining = PetscMin(remaining, PetscMax(0, PetscCeilReal(PetscLogReal(gnorm_scaled / target) / rate)));
  }
  /* a line as long as the parameters need (PETSc 3.18's PetscStrlcat overruns a full buffer: hundreds of parameters did) */
  for (PetscInt k = 0; k < nid; k++) size += sizeof(value);
  PetscCall(PetscCalloc1(size, &line));
  PetscCall(PetscSNPrintf(line, size, "  it %3" PetscInt_FMT "  J %.6e  |g| %.3e ", its, (double)(f * ctx->J0), (double)ctx->gnorm));
  for (PetscInt k = 0; k < nid; k++) {
    const MbsParameterInfo *info;

    MbsCallUndo(MbsObjectiveGetParameterInfo(obj, k, &info), PetscFree(line));
    PetscCall(PetscSNPrintf(value, sizeof(value), " %s %.8g", info->name, (double)ctx->hist_p[(ctx->nhist - 1) * nid + k]));
    PetscCall(MbsStrlcat(line, value, size));
  }
  PetscCall(PetscSNPrintf(value, sizeof(value), "  step %.2e  %.1f s  remaining ~%.0f s\n", (double)step, (double)elapsed, its > 0 ? (double)(remaining * elapsed / its) : 0.0));
  PetscCall(MbsStrlcat(line, value, size));
  MbsCallUndo(MbsObjectiveGetComm(obj, &comm), PetscFree(line));
  MbsCallUndo(PetscPrintf(comm, "%s", line), PetscFree(line));
  PetscCall(PetscFree(line));
  PetscFunctionReturn(0);
}

/* /iterations: the history of the TAO iterations so far (also in every checkpoint) */
static PetscErrorCode MbsIdentifyWriteHistory_Private(MbsObjective obj, MbsH5Writer *writer, void *ptr)
{
  MbsIdentifyContext *ctx     = (MbsIdentifyContext *)ptr;
  PetscInt            dims[2] = {ctx->nhist, ctx->nid};
  char                text[64];

  PetscFunctionBeginUser;
  PetscCall(MbsH5WriteReals(writer, "/iterations/J", 1, dims, ctx->hist_J, "cost"));
  PetscCall(MbsH5WriteReals(writer, "/iterations/gnorm", 1, dims, ctx->hist_gnorm, "cost per parameter unit"));
  PetscCall(MbsH5WriteReals(writer, "/iterations/params", 2, dims, ctx->hist_p, "see /parameters/unit"));
  PetscCall(MbsH5WriteReals(writer, "/iterations/time", 1, dims, ctx->hist_time, "s"));
  PetscCall(PetscSNPrintf(text, sizeof(text), "%" PetscInt_FMT, ctx->nhist - 1));
  PetscCall(MbsH5WriteAttribute(writer, "/iterations", "iterations", text));
  PetscFunctionReturn(0);
}

/* The result file's additions: the history, how TAO ended, the eigen check and the scan */
static PetscErrorCode MbsIdentifyWriteIterations_Private(MbsObjective obj, MbsH5Writer *writer, void *ptr)
{
  MbsIdentifyContext *ctx = (MbsIdentifyContext *)ptr;

  PetscFunctionBeginUser;
  PetscCall(MbsIdentifyWriteHistory_Private(obj, writer, ptr));
  PetscCall(MbsH5WriteAttribute(writer, "/iterations", "tao_type", ctx->tao_type));
  PetscCall(MbsH5WriteAttribute(writer, "/iterations", "converged_reason", TaoConvergedReasons[ctx->reason]));
  PetscCall(MbsConfidenceWrite(writer, &ctx->conf));
  PetscCall(MbsEigenWrite(writer, "/eigen/initial", &ctx->eigen[0]));
  PetscCall(MbsEigenWrite(writer, "/eigen/identified", &ctx->eigen[1]));
  if (ctx->eigen_reason[0]) PetscCall(MbsH5WriteAttribute(writer, "/eigen/identified/frequency_hz", "not_computed", ctx->eigen_reason));
  PetscCall(MbsScanWrite(obj, writer, ctx->scan));
  PetscFunctionReturn(0);
}

/*
  The modes at x into result. A model whose modes cannot be formed there (a start that is no static equilibrium, a
  failed eigensolver) leaves result empty and says why in ctx->eigen_reason: the check comes after the
  identification, whose result must not be lost to it. Every rank computes the same modes, so all fail alike.
*/
static PetscErrorCode MbsIdentifyEigen_Private(MbsIdentifyContext *ctx, const PetscReal x[], MbsEigenResult *result)
{
  PetscErrorCode ierr;
  char          *specific = NULL;

  PetscFunctionBeginUser;
  if (ctx->eigen_reason[0]) PetscFunctionReturn(0);
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = MbsObjectiveEigen(ctx->obj, x, result);
  PetscCall(PetscPopErrorHandler());
  if (!ierr) PetscFunctionReturn(0);
  PetscCall(PetscErrorMessage(ierr, NULL, &specific));
  /* what the model or the eigensolver refuse; anything else (memory, a bug) stays an error */
  PetscCheck(ierr == PETSC_ERR_ARG_WRONG || ierr == MBS_ERR_START_REFUSED || ierr == PETSC_ERR_SUP || ierr == PETSC_ERR_NOT_CONVERGED || ierr == PETSC_ERR_MAT_LU_ZRPVT || ierr == PETSC_ERR_LIB, PETSC_COMM_SELF, ierr, "%s", specific ? specific : "the eigen check failed");
  PetscCall(PetscStrncpy(ctx->eigen_reason, specific && specific[0] ? specific : "the eigensolver failed", sizeof(ctx->eigen_reason)));
  PetscCall(MbsEigenResultReset(result));
  PetscFunctionReturn(0);
}

/*
  The modes of the linearisation before and after: each mode's shift, and a flag when the identified system is
  unstable or a mode that started inside -eigen_expect_hz lo,hi has left it (an error with -eigen_strict, as is a check
  that could not be computed).
*/
static PetscErrorCode MbsIdentifyEigenCheck_Private(MbsIdentifyContext *ctx, const PetscReal final[])
{
  MbsObjective obj    = ctx->obj;
  PetscReal   *expect = ctx->eigen_expect_hz;
  PetscBool    set = ctx->eigen_expect_set, flagged = PETSC_FALSE;
  MPI_Comm     comm;
  const char  *name;

  PetscFunctionBeginUser;
  PetscCall(MbsObjectiveGetComm(obj, &comm));
  PetscCall(MbsIdentifyEigen_Private(ctx, ctx->p0, &ctx->eigen[0]));
  PetscCall(MbsIdentifyEigen_Private(ctx, final, &ctx->eigen[1]));
  if (ctx->eigen_reason[0]) {
    PetscCall(PetscPrintf(comm, "Eigen check of the linearisation not computed: %s\n", ctx->eigen_reason));
    PetscCheck(!ctx->eigen_strict, comm, PETSC_ERR_NOT_CONVERGED, "Eigen check failed (-eigen_strict): %s", ctx->eigen_reason);
    PetscFunctionReturn(0);
  }
  PetscCall(MbsObjectiveGetExperimentName(obj, 0, &name));
  PetscCall(PetscPrintf(comm, "Eigen check of the linearisation (%s):\n  mode   initial [Hz]   identified [Hz]   shift [%%]   damping initial   identified\n", name));
  for (PetscInt i = 0; i < PetscMax(ctx->eigen[0].nmode, ctx->eigen[1].nmode); i++) {
    const MbsEigenResult *a = &ctx->eigen[0], *b = &ctx->eigen[1];

    if (i < a->nmode && i < b->nmode) {
      PetscBool left = (PetscBool)(set && a->frequency_hz[i] >= expect[0] && a->frequency_hz[i] <= expect[1] && (b->frequency_hz[i] < expect[0] || b->frequency_hz[i] > expect[1]));

      PetscCall(PetscPrintf(comm, "  %4" PetscInt_FMT "   %12.6g   %15.6g   %+9.3f   %15.6e   %10.6e%s\n", i + 1, (double)a->frequency_hz[i], (double)b->frequency_hz[i], (double)(100 * (b->frequency_hz[i] / a->frequency_hz[i] - 1)), (double)a->damping_ratio[i],
                            (double)b->damping_ratio[i], left ? "   LEFT the band -eigen_expect_hz" : ""));
      flagged = (PetscBool)(flagged || left);
    } else PetscCall(PetscPrintf(comm, "  %4" PetscInt_FMT "   the number of oscillatory modes changed: %" PetscInt_FMT " -> %" PetscInt_FMT "\n", i + 1, a->nmode, b->nmode));
  }
  for (PetscInt i = 0; i < ctx->eigen[1].nreal; i++) PetscCall(PetscPrintf(comm, "  real eigenvalue after: %.6e 1/s%s\n", (double)ctx->eigen[1].real_eigenvalues[i], ctx->eigen[1].real_eigenvalues[i] == 0 ? " (rigid-body mode)" : ""));
  if (ctx->eigen[1].unstable) PetscCall(PetscPrintf(comm, "  FLAG: the identified system is unstable\n"));
  flagged = (PetscBool)(flagged || ctx->eigen[1].unstable);
  if (!flagged) PetscCall(PetscPrintf(comm, "  eigen check passed%s\n", set ? " (modes stay in -eigen_expect_hz)" : ""));
  PetscCheck(!flagged || !ctx->eigen_strict, comm, PETSC_ERR_NOT_CONVERGED, "Eigen check failed (-eigen_strict): the identified system is unstable or a mode left -eigen_expect_hz %g,%g", (double)expect[0], (double)expect[1]);
  PetscFunctionReturn(0);
}

/* -help lists the optimiser options mbsid honours with their values (PETSc's listing would add every option of the
   solvers inside TAO, hundreds of lines) */
static PetscErrorCode MbsIdentifyTaoHelp_Private(Tao tao)
{
  TaoType           type;
  TaoLineSearch     ls;
  TaoLineSearchType ls_type;
  PetscReal         gatol, grtol, gttol;
  PetscInt          max_it, max_funcs;

  PetscFunctionBeginUser;
  PetscCall(MbsHelpMute(PETSC_TRUE));
  PetscCall(TaoSetFromOptions(tao));
  PetscCall(MbsHelpMute(PETSC_FALSE));
  PetscCall(TaoGetType(tao, &type));
  PetscCall(TaoGetTolerances(tao, &gatol, &grtol, &gttol));
  PetscCall(TaoGetMaximumIterations(tao, &max_it));
  PetscCall(TaoGetMaximumFunctionEvaluations(tao, &max_funcs));
  PetscCall(TaoGetLineSearch(tao, &ls));
  PetscCall(TaoLineSearchGetType(ls, &ls_type));
  PetscCall(PetscHelpPrintf(PETSC_COMM_WORLD, "----------------------------------------\nOptimiser (PETSc TAO, bound-constrained; its other -tao_* options apply too):\n"));
  PetscCall(PetscHelpPrintf(PETSC_COMM_WORLD, "  -tao_type <%s>: Method: bqnkls, bqnls, blmvm, bncg, ...; Gauss-Newton on the residuals: mbslm (Levenberg-Marquardt), brgn (TaoSetType)\n", type));
  PetscCall(PetscHelpPrintf(PETSC_COMM_WORLD, "  -tao_mbslm_lambda0 <1>, -tao_mbslm_steptol <1e-10>: Levenberg-Marquardt's initial damping (relative to diag(J^T J)) and step tolerance (-tao_type mbslm)\n"));
  PetscCall(PetscHelpPrintf(PETSC_COMM_WORLD, "  -tao_gatol <%g>: Stop when the gradient norm of J/J0 (in the scaled parameters) is below (TaoSetTolerances)\n", (double)gatol));
  PetscCall(PetscHelpPrintf(PETSC_COMM_WORLD, "  -tao_grtol <%g>: Stop when that norm divided by J/J0 is below (TaoSetTolerances)\n", (double)grtol));
  PetscCall(PetscHelpPrintf(PETSC_COMM_WORLD, "  -tao_gttol <%g>: Stop when that norm has fallen by this factor (TaoSetTolerances)\n", (double)gttol));
  PetscCall(PetscHelpPrintf(PETSC_COMM_WORLD, "  -tao_max_it <%" PetscInt_FMT ">: Most iterations (TaoSetMaximumIterations)\n", max_it));
  PetscCall(PetscHelpPrintf(PETSC_COMM_WORLD, "  -tao_max_funcs <%" PetscInt_FMT ">: Most evaluations of J (-1: no limit) (TaoSetMaximumFunctionEvaluations)\n", max_funcs));
  PetscCall(PetscHelpPrintf(PETSC_COMM_WORLD, "  -tao_ls_type <%s>: Line search (TaoLineSearchSetType)\n", ls_type));
  PetscCall(PetscHelpPrintf(PETSC_COMM_WORLD, "  -tao_monitor: TAO's own iteration report, besides mbsid's (TaoSetMonitor)\n"));
  PetscCall(PetscHelpPrintf(PETSC_COMM_WORLD, "  -tao_view: TAO's settings after the solve (TaoView)\n"));
  PetscFunctionReturn(0);
}

/* After TAO: the result's J, the report, the eigen check, the scan and the result file */
static PetscErrorCode MbsIdentifyFinish_Private(MbsIdentifyContext *ctx, Tao tao, const char output[])
{
  MbsObjective       obj = ctx->obj;
  MPI_Comm           comm;
  Vec                X;
  const PetscScalar *x;
  PetscReal         *final, J_final;
  PetscBool          ok;
  PetscInt           nevals, nreplay;

  PetscFunctionBeginUser;
  PetscCall(MbsObjectiveGetComm(obj, &comm));
  PetscCall(PetscMalloc1(ctx->nid, &ctx->final));
  final = ctx->final;
  PetscCall(TaoGetConvergedReason(tao, &ctx->reason));
  PetscCall(TaoGetType(tao, &ctx->tao_type));
  PetscCall(TaoGetSolution(tao, &X));
  PetscCall(VecGetArrayRead(X, &x));
  MbsToPhysical_Private(ctx, x, final);
  PetscCall(VecRestoreArrayRead(X, &x));
  PetscCall(MbsObjectiveEvaluate(obj, final, &J_final, NULL, &ok)); /* the experiments' J at the result */
  /* the last iterate's J is TAO's f J0, of the same plain solve (mbslm: of its trial step) but summed otherwise: the two
     agree to the last bits, which tests/compare_results.py holds them to (/J against the last /iterations/J) */
  if (ok) {
    PetscReal J_last = ctx->hist_J[ctx->nhist - 1];

    PetscCall(PetscPrintf(comm, "J at the result, solved again: %.17g, the last iteration's to a relative %.1e\n", (double)J_final, (double)(J_final != 0 ? PetscAbsReal(J_final - J_last) / PetscAbsReal(J_final) : PetscAbsReal(J_last))));
  }
  PetscCall(MbsObjectiveRecord(obj, 1, NULL));
  PetscCall(MbsObjectiveGetEvaluations(obj, &nevals));
  PetscCall(MbsCheckpointGetCounts(ctx->ck, NULL, &nreplay));
  PetscCall(PetscPrintf(comm, "TAO %s: %s after %" PetscInt_FMT " iterations, %" PetscInt_FMT " forward solves", ctx->reason > 0 ? "converged" : "stopped", TaoConvergedReasons[ctx->reason], ctx->nhist - 1, nevals));
  if (nreplay) {
    const char *restart;

    PetscCall(MbsCheckpointGetFiles(ctx->ck, NULL, &restart));
    PetscCall(PetscPrintf(comm, " and %" PetscInt_FMT " evaluations replayed from '%s'", nreplay, restart));
  }
  PetscCall(PetscPrintf(comm, "\n"));
  for (PetscInt k = 0; k < ctx->nid; k++) {
    const MbsParameterInfo *info;

    PetscCall(MbsObjectiveGetParameterInfo(obj, k, &info));
    PetscCall(PetscPrintf(comm, "  %-6s initial %-14.8g identified %-14.10g %s\n", info->name, (double)ctx->p0[k], (double) final[k], info->unit));
  }
  PetscCall(PetscPrintf(comm, "J: initial %.6e, identified %.6e\n", (double)ctx->J0, (double)ctx->hist_J[ctx->nhist - 1]));
  if (ctx->confidence) {
    PetscCall(MbsObjectiveConfidence(obj, final, ctx->dpdx, ctx->noise_sigma, ctx->channel_noise, ctx->confidence_differences, ctx->confidence_step, &ctx->conf));
    PetscCall(MbsConfidenceView(obj, &ctx->conf));
  }
  PetscCall(MbsIdentifyEigenCheck_Private(ctx, final));
  if (ctx->scan) PetscCall(MbsScanRun(ctx->scan));
  PetscCall(MbsObjectiveWriteFile(obj, output, ctx->p0, final, MbsIdentifyWriteIterations_Private, ctx));
  PetscCall(PetscPrintf(comm, "Wrote %s\n", output));
  PetscFunctionReturn(0);
}

static PetscErrorCode MbsIdentifyContextDestroy_Private(MbsIdentifyContext *ctx)
{
  PetscFunctionBeginUser;
  PetscCall(PetscFree(ctx->final));
  PetscCall(PetscFree2(ctx->ls.x, ctx->ls.R_at_x));
  PetscCall(PetscFree2(ctx->ls.x_plain, ctx->ls.R_plain));
  PetscCall(PetscFree(ctx->ls.state));
  PetscCall(VecDestroy(&ctx->ls.R));
  PetscCall(MatDestroy(&ctx->ls.J));
  PetscCall(PetscFree3(ctx->p_lower, ctx->p_upper, ctx->dpdx));
  PetscCall(PetscFree4(ctx->hist_J, ctx->hist_gnorm, ctx->hist_p, ctx->hist_time));
  PetscCall(MbsConfidenceReset(&ctx->conf));
  PetscCall(MbsEigenResultReset(&ctx->eigen[0]));
  PetscCall(MbsEigenResultReset(&ctx->eigen[1]));
  PetscCall(PetscFree4(ctx->p0, ctx->p, ctx->g, ctx->x));
  PetscCall(MbsCheckpointDestroy(&ctx->ck));
  PetscCall(VecDestroy(&ctx->upper));
  PetscCall(VecDestroy(&ctx->lower));
  PetscCall(VecDestroy(&ctx->X));
  PetscCall(MatDestroy(&ctx->hessian));
  PetscCall(TaoDestroy(&ctx->tao));
  PetscCall(MbsScanDestroy(&ctx->scan));
  PetscCall(MbsObjectiveDestroy(&ctx->obj));
  PetscFunctionReturn(0);
}

static PetscErrorCode MbsIdentifyRun_Private(MPI_Comm comm, MbsIdentifyContext *ctx)
{
  MbsObjective   obj;
  MbsModel       model;
  MbsCost        cost;
  const char    *cost_type;
  Tao            tao;
  Vec            X, lower, upper;
  PetscScalar   *x, *lo, *hi;
  PetscBool      help, ok, simulates;
  char           output[PETSC_MAX_PATH_LEN] = "identify.h5";
  PetscLogStage  stage;
  PetscInt       nexpect;
  PetscErrorCode ierr;

  PetscFunctionBeginUser;
  ctx->confidence      = PETSC_TRUE;
  ctx->confidence_step = 1e-5;
  MbsOptionsBegin(comm, NULL, "mbsid identify: parameters that minimise the cost", "identify");
  PetscCall(MbsOptionsOutputFile(PetscOptionsObject, "-o", "Result file (HDF5)", output, sizeof(output)));
  PetscCall(PetscOptionsEnum("-identify_scaling", "TAO variables: p/p0 (linear) or log(p/p0) (log, for parameters spanning decades)", "", MbsScalings, (PetscEnum)ctx->scaling, (PetscEnum *)&ctx->scaling, NULL));
  PetscCall(
    PetscOptionsString("-identify_scale", "Sizes s of the parameters named, NAME:s,... [each parameter's unit]: linear scaling p = p0 + s (x - 1); default p0 > 0, |p0| below zero, half the bounds' width at 0", "", ctx->scale, ctx->scale, sizeof(ctx->scale), NULL));
  nexpect = 2;
  PetscCall(MbsOptionsRealArray(PetscOptionsObject, "-eigen_expect_hz", "Band lo,hi [Hz] that the modes starting inside must not leave (eigen check; default: none)", "", 0, ctx->eigen_expect_hz, &nexpect, &ctx->eigen_expect_set));
  PetscCall(PetscOptionsBool("-eigen_strict", "Fail (non-zero exit) when the eigen check flags the result", "", ctx->eigen_strict, &ctx->eigen_strict, NULL));
  PetscCall(PetscOptionsBool("-confidence", "Standard deviations, correlations and 95 % intervals of the result (Gauss-Newton; 1 forward solve per experiment, 1 + 2 n with differences)", "MbsObjectiveConfidence", ctx->confidence, &ctx->confidence, NULL));
  PetscCall(
    PetscOptionsReal("-noise_sigma", "Standard deviation of the noise of each measured value (signal sample or amplitude) of every channel [its unit]; 0: estimated from the residual, per channel", "MbsObjectiveConfidence", ctx->noise_sigma, &ctx->noise_sigma, NULL));
  PetscCall(PetscOptionsString("-channel_noise", "Noise of the measured values of the channels named, as NAME:sigma,... [each channel's unit]; the others: -noise_sigma", "MbsObjectiveConfidence", ctx->channel_noise, ctx->channel_noise, sizeof(ctx->channel_noise), NULL));
  PetscCall(PetscOptionsBool("-confidence_differences", "dr/dp of the confidence by central differences, also where the method has forward sensitivities (cn, beuler, end-point theta)", "MbsObjectiveConfidence", ctx->confidence_differences, &ctx->confidence_differences, NULL));
  PetscCall(PetscOptionsReal("-confidence_step", "Relative step of the central differences dr/dp of the confidence", "MbsObjectiveConfidence", ctx->confidence_step, &ctx->confidence_step, NULL));
  MbsOptionsEnd();
  PetscCheck(ctx->noise_sigma >= 0 && !PetscIsInfOrNanReal(ctx->noise_sigma), comm, PETSC_ERR_ARG_OUTOFRANGE, "-noise_sigma must be >= 0 (0: estimated from the residual), got %g", (double)ctx->noise_sigma);
  PetscCheck(ctx->confidence_step > 0 && ctx->confidence_step < 0.1, comm, PETSC_ERR_ARG_OUTOFRANGE, "-confidence_step must lie in (0, 0.1), got %g", (double)ctx->confidence_step);
  PetscCheck(!ctx->eigen_expect_set || (nexpect == 2 && ctx->eigen_expect_hz[1] >= ctx->eigen_expect_hz[0]), comm, PETSC_ERR_ARG_WRONG, "-eigen_expect_hz needs lo,hi [Hz] with lo <= hi");
  PetscCall(MbsObjectiveCreate(comm, &ctx->obj, &help));
  obj = ctx->obj;
  PetscCall(MbsObjectiveGetNumParameters(obj, &ctx->nid));
  PetscCall(MbsScanCreate(obj, &ctx->scan));
  if (ctx->scan) PetscCall(MbsObjectiveSetIdleWork(obj, MbsScanWorkAhead, ctx->scan)); /* ranks without an experiment scan meanwhile */
  PetscCall(MbsCheckpointCreate(obj, MbsIdentifyWriteHistory_Private, ctx, &ctx->ck));
  PetscCall(MbsTaoRegisterLM());
  PetscCall(TaoCreate(PETSC_COMM_SELF, &ctx->tao));
  tao = ctx->tao;
  PetscCall(TaoSetType(tao, TAOBQNKLS));
  PetscCall(TaoSetMaximumIterations(tao, 100));
  if (help) {
    PetscCall(MbsIdentifyTaoHelp_Private(tao));
    PetscFunctionReturn(0);
  }
  PetscCall(MbsOptionsCheckUnused(comm, PETSC_FALSE));
  PetscCall(MbsObjectiveGetCost(obj, &cost));
  PetscCall(MbsCostSimulates(cost, &simulates));
  PetscCheck(simulates || !ctx->confidence, comm, PETSC_ERR_SUP, "The confidence of a result needs the cost's residuals, which -cost frf does not provide: give -confidence false");
  if (ctx->confidence) PetscCall(MbsObjectiveCheckChannelNoise(obj, ctx->channel_noise));
  PetscCall(MbsObjectiveGetModel(obj, &model));
  PetscCall(MbsModelView(model, PETSC_VIEWER_STDOUT_(comm)));
  PetscCall(PetscMalloc4(ctx->nid, &ctx->p0, ctx->nid, &ctx->p, ctx->nid, &ctx->g, ctx->nid, &ctx->x));
  PetscCall(MbsObjectiveGetValues(obj, ctx->p0));

  PetscCall(PetscLogStageRegister("Identify", &stage));
  PetscCall(PetscLogStagePush(stage));
  PetscCall(MbsObjectiveEvaluate(obj, ctx->p0, &ctx->J0, NULL, &ok));
  if (!ok) PetscCall(MbsObjectiveRecord(obj, 0, NULL)); /* raises the integrator's error with its details */
  PetscCall(MbsObjectiveGetCost(obj, &cost));
  PetscCall(MbsCostGetType(cost, &cost_type));
  PetscCall(PetscPrintf(comm, "Cost %s at the start: J0 = %.6e; TAO minimises J/J0\n", cost_type, (double)ctx->J0));
  PetscCheck(ctx->J0 > 0, comm, PETSC_ERR_ARG_WRONG, "The cost is zero at the start: the model already reproduces the measurement; nothing to identify");
  PetscCall(MbsObjectiveRecord(obj, 0, simulates ? &ctx->ls.m : NULL));

  PetscCall(VecCreateSeq(PETSC_COMM_SELF, ctx->nid, &ctx->X));
  PetscCall(VecDuplicate(ctx->X, &ctx->lower));
  PetscCall(VecDuplicate(ctx->X, &ctx->upper));
  X     = ctx->X;
  lower = ctx->lower;
  upper = ctx->upper;
  PetscCall(PetscMalloc3(ctx->nid, &ctx->p_lower, ctx->nid, &ctx->p_upper, ctx->nid, &ctx->dpdx));
  PetscCheck(ctx->scaling != MBS_SCALING_LOG || !ctx->scale[0], comm, PETSC_ERR_ARG_INCOMP, "-identify_scale %s sizes the linear scaling, but -identify_scaling log scales by the start values: give one of the two", ctx->scale);
  if (ctx->scaling == MBS_SCALING_LINEAR) PetscCall(MbsIdentifyLinearScaling_Private(ctx));
  PetscCall(VecGetArrayWrite(X, &x));
  PetscCall(VecGetArrayWrite(lower, &lo));
  PetscCall(VecGetArrayWrite(upper, &hi));
  for (PetscInt k = 0; k < ctx->nid; k++) {
    const MbsParameterInfo *info;

    PetscCall(MbsObjectiveGetParameterInfo(obj, k, &info));
    ctx->p_lower[k] = info->lower;
    ctx->p_upper[k] = info->upper;
    if (ctx->scaling == MBS_SCALING_LOG) {
      PetscCheck(ctx->p0[k] > 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "Parameter %s starts at %g: -identify_scaling log scales by the start value, which must be positive (the default linear scaling takes any start)", info->name, (double)ctx->p0[k]);
      PetscCheck(info->lower > 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "-identify_scaling log needs a positive lower bound; parameter %s has %g", info->name, (double)info->lower);
      x[k]         = 0;
      ctx->dpdx[k] = ctx->p0[k]; /* the size the confidence measures the parameter in */
      lo[k]        = PetscLogReal(info->lower / ctx->p0[k]);
      hi[k]        = PetscLogReal(info->upper / ctx->p0[k]);
    } else {
      x[k]  = 1;
      lo[k] = (info->lower - (ctx->p0[k] - ctx->dpdx[k])) / ctx->dpdx[k];
      hi[k] = (info->upper - (ctx->p0[k] - ctx->dpdx[k])) / ctx->dpdx[k];
    }
  }
  PetscCall(VecRestoreArrayWrite(upper, &hi));
  PetscCall(VecRestoreArrayWrite(lower, &lo));
  PetscCall(VecRestoreArrayWrite(X, &x));
  PetscCall(TaoSetSolution(tao, X));
  PetscCall(TaoSetVariableBounds(tao, lower, upper));
  PetscCall(TaoSetObjectiveAndGradient(tao, NULL, MbsIdentifyObjective, ctx));
  if (!simulates) { /* a cost with its Gauss-Newton matrix: TAO's Newton methods may use it (-tao_type bntr) */
    PetscCall(MatCreateSeqDense(PETSC_COMM_SELF, ctx->nid, ctx->nid, NULL, &ctx->hessian));
    PetscCall(TaoSetHessian(tao, ctx->hessian, ctx->hessian, MbsIdentifyHessian, ctx));
  }
  PetscCall(TaoSetMonitor(tao, MbsIdentifyMonitor, ctx, NULL));
  PetscCall(TaoSetFromOptions(tao));
  PetscCall(MbsIdentifySetLeastSquares_Private(ctx, tao));
  PetscCall(MbsCheckpointStart(ctx->ck, ctx->J0));
  ierr = TaoSolve(tao);
  PetscCall(PetscLogStagePop());
  if (ierr == MBS_ERR_INTERRUPTED) {
    PetscInt    logged, nevals;
    const char *path;

    PetscCall(MbsCheckpointGetCounts(ctx->ck, &logged, NULL));
    PetscCall(MbsCheckpointGetFiles(ctx->ck, &path, NULL));
    PetscCall(MbsObjectiveGetEvaluations(obj, &nevals));
    if (ctx->ls.state && ctx->nhist > 0) /* mbslm: its state, not a log */
      PetscCall(PetscPrintf(comm, "Stopped after %" PetscInt_FMT " iterations and %" PetscInt_FMT " forward solves; checkpoint '%s' written with the state of iteration %" PetscInt_FMT ". Continue with the same options and -restart %s\n", ctx->nhist - 1, nevals, path, ctx->nhist - 1, path));
    else if (logged) PetscCall(PetscPrintf(comm, "Stopped after %" PetscInt_FMT " iterations and %" PetscInt_FMT " evaluations; checkpoint '%s' written. Continue with the same options and -restart %s\n", ctx->nhist - 1, logged, path, path));
    else PetscCall(PetscPrintf(comm, "Stopped before the first iteration ended: nothing to continue from, no checkpoint written; start again without -restart\n"));
    PetscCall(MbsCommandSetExitStatus(MBS_EXIT_STOPPED));
  } else {
    PetscCall(ierr);
    PetscCall(MbsIdentifyFinish_Private(ctx, tao, output));
  }

  PetscFunctionReturn(0);
}

PetscErrorCode MbsCommandIdentify(MPI_Comm comm)
{
  MbsIdentifyContext ctx;

  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(&ctx, sizeof(ctx)));
  MbsCallCleanup(MbsIdentifyRun_Private(comm, &ctx), MbsIdentifyContextDestroy_Private(&ctx));
  PetscFunctionReturn(0);
}
