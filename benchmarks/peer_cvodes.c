static const char help[] = "Peer of mbsid's spectrum cost and adjoint gradient computed with SUNDIALS CVODES (BDF, dense, analytic Jacobians, one adjoint).\n"
                           "Options: -measurement FILE.h5 (required), -band_hz lo,hi, -identify cf,df,dc, -peer_rtol 1e-8, -peer_atol (1e-2 rtol), -peer_nd 500,\n"
                           "-peer_repeat 3, -peer_max_step, -peer_fd (central differences of the peer's own J), -peer_fd_step 1e-4; the model from -model, -p_*, -time_span.\n";

/*
  benchmarks/peer_cvodes: an independent computation of the spectrum cost (squared form) and of its gradient, to
  compare mbsid's accuracy per cost against. Only the model (its explicit rate and derivatives) and the measurement
  reader come from libmbsid; the integration, the Fourier coefficients and the adjoint are CVODES's.

  The model in explicit form U' = g(t, U; p), U(t0) = U0 (independent of p), output y(U). The window is the whole
  interval [t_l, t_u] = [t0, tf], L = t_u - t_l, rectangular; the lines are the measured f_k in -band_hz, harmonics
  k/L, w_k = 2 pi f_k:

    A_k = 2/L int_{t_l}^{t_u} y cos(w_k (t - t_l)) dt,   B_k likewise with sin,
    J   = 1/4 sum_k r_k^2,   r_k = A_k^2 + B_k^2 - Abar_k^2   (Abar_k the measured amplitude),
    alpha_k = dJ/dA_k = r_k A_k,   beta_k = dJ/dB_k = r_k B_k.

  Forward: BDF with the analytic dg/dU, and the 2N integrals of A_k, B_k as CVODES quadratures under error control,
  so J carries the integrator's tolerance and no quadrature rule of ours. Adjoint (continuous, one backward solve
  whatever the number of lines and parameters): with G(t) = sum_k 2/L (alpha_k cos w_k (t - t_l) + beta_k sin w_k (t - t_l)),

    lambda' = -(dg/dU)^T lambda - G(t) (dy/dU)^T,   lambda(tf) = 0,
    mu'     = -(dg/dp)^T lambda,                     mu(tf)     = 0,
    dJ/dp   = mu(t0) = int_{t0}^{tf} (dg/dp)^T lambda dt,

  integrated by CVODES from tf back to t0 (CVodeB) on the Hermite interpolant of the checkpointed forward run. The
  derivation: d/dt (lambda^T dU/dp) = -G dy/dU dU/dp + lambda^T dg/dp, integrated over [t0, tf] with lambda(tf) = 0 and
  dU0/dp = 0, gives sum_k (alpha_k dA_k/dp + beta_k dB_k/dp) = int lambda^T dg/dp dt.

  The adjoint is linear in G, whose size is that of J's residuals times the amplitudes (|G| < 3e-13 in SI units for
  the chain scenario), so lambda and mu would lie far below any absolute tolerance given for U and go uncontrolled
  (the gradient then comes out wrong in its first digit): the backward absolute tolerances are atol times the bound
  s = 2/L sum_k (|alpha_k| + |beta_k|) of |G|, i.e. the same tolerances for the problem scaled to a unit forcing.

  This is the gradient of the continuous J, not of the J computed (mbsid's discrete adjoint differentiates its own
  quadrature exactly): it matches central differences of the computed J only to the integration tolerance.

  Printed: the setup, with -peer_fd central differences of the peer's own J (adaptive steps: use a tight -peer_rtol),
  then one line: J, dJ/dp, the best of -peer_repeat wall times of J alone (forward with quadratures, no adjoint
  storage) and of J with dJ/dp (forward with checkpoints, then the adjoint), and the forward and backward steps.
*/
#include <mbsid.h>
#include <petsctime.h>
#include <stdlib.h>
#include <cvodes/cvodes.h>
#include <nvector/nvector_serial.h>
#include <sunmatrix/sunmatrix_dense.h>
#include <sunlinsol/sunlinsol_dense.h>

typedef struct {
  MbsModel                model;
  const MbsParameterInfo *info;
  PetscInt                n, np, nid, nline;
  PetscInt               *id;                   /* identified parameters */
  PetscReal               t0, tf, L;            /* window = [t0, tf] [s] */
  PetscReal              *w, *measured;         /* w_k [rad/s], Abar_k */
  PetscReal              *alpha, *beta;         /* dJ/dA_k, dJ/dB_k of the last forward pass */
  PetscReal              *jac, *jac_p, *dydu;   /* n x n, n x np, n */
  PetscReal               rtol, atol, max_step; /* max_step [s], 0: none */
  PetscInt                nd;                   /* steps between checkpoints */
  PetscErrorCode          ierr;                 /* the first PETSc error inside a CVODES callback */
  SUNContext              sunctx;
} PeerCtx;

typedef struct {
  long steps, steps_backward;
} PeerStats;

/* A callback cannot return a PETSc error to PETSc through CVODES: it keeps the first one for PeerCheckFlag and
   tells CVODES the failure is unrecoverable (a positive return would make CVODES retry with a smaller step) */
#define PeerCallbackCall(ctx, call) \
  do { \
    PetscErrorCode ierr_ = (call); \
    if (ierr_) { \
      if (!(ctx)->ierr) (ctx)->ierr = ierr_; \
      return -1; \
    } \
  } while (0)

static PetscErrorCode PeerCheckFlag(PeerCtx *ctx, int flag, const char call[], char *(*flag_name)(long int))
{
  char  name[64];
  char *text;

  PetscFunctionBeginUser;
  PetscCall(ctx->ierr);
  if (flag >= 0) PetscFunctionReturn(0);
  text = flag_name(flag);
  PetscCall(PetscStrncpy(name, text ? text : "unknown", sizeof(name)));
  free(text); /* SUNDIALS allocates the name with malloc */
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_LIB, "CVODES call %s failed with flag %d (%s)", call, flag, name);
}

#define PeerCallCV(ctx, call)   PetscCall(PeerCheckFlag((ctx), (call), #call, CVodeGetReturnFlagName))
#define PeerCallCVLS(ctx, call) PetscCall(PeerCheckFlag((ctx), (call), #call, CVodeGetLinReturnFlagName))
#define PeerCheckNew(ptr, call) PetscCheck((ptr), PETSC_COMM_SELF, PETSC_ERR_MEM, "SUNDIALS %s returned NULL (out of memory?)", call)

static int PeerRhs(sunrealtype t, N_Vector u, N_Vector udot, void *data)
{
  PeerCtx *ctx = (PeerCtx *)data;

  PeerCallbackCall(ctx, MbsModelRate(ctx->model, t, N_VGetArrayPointer(u), N_VGetArrayPointer(udot)));
  return 0;
}

/* SUNDIALS' dense matrix is column-major like the model's dg/dU, so it is written in place */
static int PeerJacobian(sunrealtype t, N_Vector u, N_Vector udot, SUNMatrix J, void *data, N_Vector tmp1, N_Vector tmp2, N_Vector tmp3)
{
  PeerCtx *ctx = (PeerCtx *)data;

  PeerCallbackCall(ctx, MbsModelRateJacobian(ctx->model, t, N_VGetArrayPointer(u), SUNDenseMatrix_Data(J)));
  return 0;
}

/* The integrands of A_k and B_k without their factor 2/L: y cos(w_k (t - t_l)) and y sin(w_k (t - t_l)) */
static int PeerQuadratureRhs(sunrealtype t, N_Vector u, N_Vector qdot, void *data)
{
  PeerCtx   *ctx = (PeerCtx *)data;
  PetscReal *q   = N_VGetArrayPointer(qdot), y;

  PeerCallbackCall(ctx, MbsModelOutput(ctx->model, t, N_VGetArrayPointer(u), &y, NULL));
  for (PetscInt k = 0; k < ctx->nline; k++) {
    q[k]              = y * PetscCosReal(ctx->w[k] * (t - ctx->t0));
    q[ctx->nline + k] = y * PetscSinReal(ctx->w[k] * (t - ctx->t0));
  }
  return 0;
}

static int PeerAdjointRhs(sunrealtype t, N_Vector u, N_Vector lambda, N_Vector lambda_dot, void *data)
{
  PeerCtx         *ctx = (PeerCtx *)data;
  const PetscReal *l   = N_VGetArrayPointer(lambda);
  PetscReal       *ld = N_VGetArrayPointer(lambda_dot), y, G = 0;
  PetscInt         n = ctx->n;

  PeerCallbackCall(ctx, MbsModelRateJacobian(ctx->model, t, N_VGetArrayPointer(u), ctx->jac));
  PeerCallbackCall(ctx, MbsModelOutput(ctx->model, t, N_VGetArrayPointer(u), &y, ctx->dydu));
  for (PetscInt k = 0; k < ctx->nline; k++) G += 2 / ctx->L * (ctx->alpha[k] * PetscCosReal(ctx->w[k] * (t - ctx->t0)) + ctx->beta[k] * PetscSinReal(ctx->w[k] * (t - ctx->t0)));
  for (PetscInt i = 0; i < n; i++) {
    ld[i] = -G * ctx->dydu[i];
    for (PetscInt j = 0; j < n; j++) ld[i] -= ctx->jac[j + n * i] * l[j];
  }
  return 0;
}

/* d(lambda')/d(lambda) = -(dg/dU)^T */
static int PeerAdjointJacobian(sunrealtype t, N_Vector u, N_Vector lambda, N_Vector lambda_dot, SUNMatrix JB, void *data, N_Vector tmp1, N_Vector tmp2, N_Vector tmp3)
{
  PeerCtx   *ctx = (PeerCtx *)data;
  PetscReal *B   = SUNDenseMatrix_Data(JB);
  PetscInt   n   = ctx->n;

  PeerCallbackCall(ctx, MbsModelRateJacobian(ctx->model, t, N_VGetArrayPointer(u), ctx->jac));
  for (PetscInt i = 0; i < n; i++)
    for (PetscInt j = 0; j < n; j++) B[i + n * j] = -ctx->jac[j + n * i];
  return 0;
}

static int PeerAdjointQuadratureRhs(sunrealtype t, N_Vector u, N_Vector lambda, N_Vector mu_dot, void *data)
{
  PeerCtx         *ctx = (PeerCtx *)data;
  const PetscReal *l   = N_VGetArrayPointer(lambda);
  PetscReal       *md  = N_VGetArrayPointer(mu_dot);
  PetscInt         n   = ctx->n;

  PeerCallbackCall(ctx, MbsModelRateJacobianP(ctx->model, t, N_VGetArrayPointer(u), ctx->jac_p));
  for (PetscInt k = 0; k < ctx->nid; k++) {
    const PetscReal *column = ctx->jac_p + n * ctx->id[k];

    md[k] = 0;
    for (PetscInt i = 0; i < n; i++) md[k] -= column[i] * l[i];
  }
  return 0;
}

/* BDF with the dense solver and the analytic Jacobian, as the forward and the backward problem both use it */
static PetscErrorCode PeerSetLinearSolver(PeerCtx *ctx, N_Vector x, SUNMatrix *A, SUNLinearSolver *LS)
{
  PetscFunctionBeginUser;
  *A = SUNDenseMatrix((sunindextype)ctx->n, (sunindextype)ctx->n, ctx->sunctx);
  PeerCheckNew(*A, "SUNDenseMatrix");
  *LS = SUNLinSol_Dense(x, *A, ctx->sunctx);
  PeerCheckNew(*LS, "SUNLinSol_Dense");
  PetscFunctionReturn(0);
}

/* J from the forward quadratures q = (int y cos, int y sin), and the coefficient adjoints alpha_k, beta_k */
static PetscErrorCode PeerCost(PeerCtx *ctx, const PetscReal q[], PetscReal *J)
{
  PetscFunctionBeginUser;
  *J = 0;
  for (PetscInt k = 0; k < ctx->nline; k++) {
    PetscReal A = 2 / ctx->L * q[k], B = 2 / ctx->L * q[ctx->nline + k], r = A * A + B * B - ctx->measured[k] * ctx->measured[k];

    *J += 0.25 * r * r;
    ctx->alpha[k] = r * A;
    ctx->beta[k]  = r * B;
  }
  PetscFunctionReturn(0);
}

/* The backward problem on the checkpointed forward run of cvode: grad = dJ/dp of the identified parameters */
static PetscErrorCode PeerAdjoint(PeerCtx *ctx, void *cvode, PetscReal grad[], long *steps)
{
  N_Vector        lambda, mu;
  SUNMatrix       A;
  SUNLinearSolver LS;
  sunrealtype     t;
  PetscReal       scale = 0, atol_b;
  int             which;

  PetscFunctionBeginUser;
  for (PetscInt k = 0; k < ctx->nline; k++) scale += 2 / ctx->L * (PetscAbsReal(ctx->alpha[k]) + PetscAbsReal(ctx->beta[k]));
  atol_b = ctx->atol * (scale > 0 ? scale : 1);
  lambda = N_VNew_Serial((sunindextype)ctx->n, ctx->sunctx);
  PeerCheckNew(lambda, "N_VNew_Serial");
  mu = N_VNew_Serial((sunindextype)ctx->nid, ctx->sunctx);
  PeerCheckNew(mu, "N_VNew_Serial");
  N_VConst(0, lambda);
  N_VConst(0, mu);
  PeerCallCV(ctx, CVodeCreateB(cvode, CV_BDF, &which));
  PeerCallCV(ctx, CVodeInitB(cvode, which, PeerAdjointRhs, ctx->tf, lambda));
  PeerCallCV(ctx, CVodeSStolerancesB(cvode, which, ctx->rtol, atol_b));
  PeerCallCV(ctx, CVodeSetUserDataB(cvode, which, ctx));
  PeerCallCV(ctx, CVodeSetMaxNumStepsB(cvode, which, 100000000)); /* effectively unbounded: [t0, tf] is one CVodeB call */
  if (ctx->max_step > 0) PeerCallCV(ctx, CVodeSetMaxStepB(cvode, which, ctx->max_step));
  PetscCall(PeerSetLinearSolver(ctx, lambda, &A, &LS));
  PeerCallCVLS(ctx, CVodeSetLinearSolverB(cvode, which, LS, A));
  PeerCallCVLS(ctx, CVodeSetJacFnB(cvode, which, PeerAdjointJacobian));
  PeerCallCV(ctx, CVodeQuadInitB(cvode, which, PeerAdjointQuadratureRhs, mu));
  PeerCallCV(ctx, CVodeSetQuadErrConB(cvode, which, SUNTRUE));
  PeerCallCV(ctx, CVodeQuadSStolerancesB(cvode, which, ctx->rtol, atol_b));
  PeerCallCV(ctx, CVodeB(cvode, ctx->t0, CV_NORMAL));
  PeerCallCV(ctx, CVodeGetQuadB(cvode, which, &t, mu));
  PeerCallCV(ctx, CVodeGetNumSteps(CVodeGetAdjCVodeBmem(cvode, which), steps));
  PetscCall(PetscArraycpy(grad, N_VGetArrayPointer(mu), ctx->nid));
  N_VDestroy(lambda);
  N_VDestroy(mu);
  SUNLinSolFree(LS);
  SUNMatDestroy(A);
  PetscFunctionReturn(0);
}

/* One evaluation: J and, when grad is not NULL, dJ/dp by one forward run with checkpoints and one adjoint */
static PetscErrorCode PeerEvaluate(PeerCtx *ctx, PetscReal *J, PetscReal grad[], PeerStats *stats)
{
  void           *cvode;
  N_Vector        u, q;
  SUNMatrix       A;
  SUNLinearSolver LS;
  sunrealtype     t;
  int             ncheck;

  PetscFunctionBeginUser;
  ctx->ierr = 0;
  u         = N_VNew_Serial((sunindextype)ctx->n, ctx->sunctx);
  PeerCheckNew(u, "N_VNew_Serial");
  q = N_VNew_Serial((sunindextype)(2 * ctx->nline), ctx->sunctx);
  PeerCheckNew(q, "N_VNew_Serial");
  PetscCall(MbsModelInitialState(ctx->model, ctx->t0, N_VGetArrayPointer(u), ctx->dydu)); /* U'(t0) is not needed: dydu is scratch */
  N_VConst(0, q);

  cvode = CVodeCreate(CV_BDF, ctx->sunctx);
  PeerCheckNew(cvode, "CVodeCreate");
  PeerCallCV(ctx, CVodeInit(cvode, PeerRhs, ctx->t0, u));
  PeerCallCV(ctx, CVodeSetUserData(cvode, ctx));
  PeerCallCV(ctx, CVodeSStolerances(cvode, ctx->rtol, ctx->atol));
  PeerCallCV(ctx, CVodeSetStopTime(cvode, ctx->tf));
  PeerCallCV(ctx, CVodeSetMaxNumSteps(cvode, 100000000)); /* effectively unbounded: [t0, tf] is one CVode call */
  if (ctx->max_step > 0) PeerCallCV(ctx, CVodeSetMaxStep(cvode, ctx->max_step));
  PetscCall(PeerSetLinearSolver(ctx, u, &A, &LS));
  PeerCallCVLS(ctx, CVodeSetLinearSolver(cvode, LS, A));
  PeerCallCVLS(ctx, CVodeSetJacFn(cvode, PeerJacobian));
  PeerCallCV(ctx, CVodeQuadInit(cvode, PeerQuadratureRhs, q));
  PeerCallCV(ctx, CVodeSetQuadErrCon(cvode, SUNTRUE));
  PeerCallCV(ctx, CVodeQuadSStolerances(cvode, ctx->rtol, ctx->atol));
  if (grad) {
    PeerCallCV(ctx, CVodeAdjInit(cvode, (long)ctx->nd, CV_HERMITE));
    PeerCallCV(ctx, CVodeF(cvode, ctx->tf, u, &t, CV_NORMAL, &ncheck));
  } else PeerCallCV(ctx, CVode(cvode, ctx->tf, u, &t, CV_NORMAL));
  PetscCheck(t == ctx->tf, PETSC_COMM_SELF, PETSC_ERR_PLIB, "CVODES stopped at t = %.17g s instead of tf = %.17g s", (double)t, (double)ctx->tf);
  /* read before the backward pass, which re-integrates the forward problem between checkpoints */
  PeerCallCV(ctx, CVodeGetNumSteps(cvode, &stats->steps));
  PeerCallCV(ctx, CVodeGetQuad(cvode, &t, q));
  PetscCall(PeerCost(ctx, N_VGetArrayPointer(q), J));
  stats->steps_backward = 0;
  if (grad) PetscCall(PeerAdjoint(ctx, cvode, grad, &stats->steps_backward));

  CVodeFree(&cvode);
  N_VDestroy(u);
  N_VDestroy(q);
  SUNLinSolFree(LS);
  SUNMatDestroy(A);
  PetscFunctionReturn(0);
}

/* Best wall time of repeat evaluations (of J alone when grad is NULL) */
static PetscErrorCode PeerTime(PeerCtx *ctx, PetscInt repeat, PetscReal *J, PetscReal grad[], PeerStats *stats, PetscLogDouble *best)
{
  PetscFunctionBeginUser;
  *best = PETSC_MAX_REAL;
  for (PetscInt r = 0; r < repeat; r++) {
    PetscLogDouble start, end;

    PetscCall(PetscTime(&start));
    PetscCall(PeerEvaluate(ctx, J, grad, stats));
    PetscCall(PetscTime(&end));
    *best = PetscMin(*best, end - start);
  }
  PetscFunctionReturn(0);
}

/* Central differences of the peer's own J against its adjoint gradient, relative step h */
static PetscErrorCode PeerCheckGradient(PeerCtx *ctx, PetscReal h, const PetscReal grad[])
{
  PetscReal *p, worst = 0;
  PeerStats  stats;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc1(ctx->np, &p));
  PetscCall(MbsModelGetParameters(ctx->model, p));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "Central differences of J, relative step %g:\n  %-8s %-20s %-20s %s\n", (double)h, "param", "adjoint dJ/dp", "central FD dJ/dp", "rel. error"));
  for (PetscInt k = 0; k < ctx->nid; k++) {
    PetscReal p_k = p[ctx->id[k]], dp = h * (p_k != 0 ? PetscAbsReal(p_k) : 1), J_side[2], fd, error;

    for (PetscInt side = 0; side < 2; side++) {
      p[ctx->id[k]] = p_k + (side ? -dp : dp);
      PetscCall(MbsModelSetParameters(ctx->model, p));
      PetscCall(PeerEvaluate(ctx, &J_side[side], NULL, &stats));
    }
    p[ctx->id[k]] = p_k;
    fd            = (J_side[0] - J_side[1]) / (2 * dp);
    error         = PetscAbsReal(grad[k] - fd) / (fd != 0 ? PetscAbsReal(fd) : 1);
    worst         = PetscMax(worst, error);
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  %-8s %-20.12e %-20.12e %.3e\n", ctx->info[ctx->id[k]].name, (double)grad[k], (double)fd, (double)error));
  }
  PetscCall(MbsModelSetParameters(ctx->model, p));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  largest relative error %.3e\n", (double)worst));
  PetscCall(PetscFree(p));
  PetscFunctionReturn(0);
}

/* The measured lines in the band (all of them when band is NULL); each must be a harmonic k/L of the window */
static PetscErrorCode PeerSetUpLines(PeerCtx *ctx, const char path[], const MbsMeasurement *meas, const PetscReal band[])
{
  PetscReal lo, hi;

  PetscFunctionBeginUser;
  PetscCheck(meas->nfreq > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "Measurement file '%s' has no /spectrum, which the spectrum cost compares with", path);
  lo = band ? band[0] : meas->frequency[0];
  hi = band ? band[1] : meas->frequency[meas->nfreq - 1];
  PetscCheck(hi >= lo, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-band_hz %g,%g: lo must not exceed hi", (double)lo, (double)hi);
  PetscCall(PetscMalloc4(meas->nfreq, &ctx->w, meas->nfreq, &ctx->measured, meas->nfreq, &ctx->alpha, meas->nfreq, &ctx->beta));
  ctx->nline = 0;
  for (PetscInt j = 0; j < meas->nfreq; j++) {
    PetscReal f = meas->frequency[j], k = f * ctx->L;

    /* the same tolerances as mbsid's spectrum cost, so that both take the same lines */
    if (f < lo - 1e-9 * ctx->L || f > hi + 1e-9 * ctx->L) continue;
    PetscCheck(PetscAbsReal(k - PetscFloorReal(k + 0.5)) <= 1e-6 * PetscMax(1, k), PETSC_COMM_SELF, PETSC_ERR_ARG_INCOMP, "Measurement file '%s': /spectrum/frequency[%" PetscInt_FMT "] = %g Hz is not a harmonic of the window [%g, %g] s; set -time_span to the interval the measurement was analysed over", path, j, (double)f,
               (double)ctx->t0, (double)ctx->tf);
    ctx->w[ctx->nline]        = 2 * PETSC_PI * f;
    ctx->measured[ctx->nline] = meas->amplitude[j];
    ctx->nline++;
  }
  PetscCheck(ctx->nline > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Measurement file '%s' has no spectrum line in -band_hz %g,%g (its lines: %g to %g Hz)", path, (double)lo, (double)hi, (double)meas->frequency[0], (double)meas->frequency[meas->nfreq - 1]);
  PetscFunctionReturn(0);
}

/* -identify, default every identifiable parameter of the model (cf, df, dc for cart_pendulum_chain) */
static PetscErrorCode PeerSetUpParameters(PeerCtx *ctx, PetscInt nnames, char *names[])
{
  PetscFunctionBeginUser;
  PetscCall(PetscMalloc1(ctx->np, &ctx->id));
  ctx->nid = 0;
  if (nnames == 0) {
    for (PetscInt i = 0; i < ctx->np; i++)
      if (ctx->info[i].identifiable) ctx->id[ctx->nid++] = i;
  }
  for (PetscInt k = 0; k < nnames; k++) {
    PetscCheck(k < ctx->np, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "-identify names more parameters than the model has");
    PetscCall(MbsModelGetParameterIndex(ctx->model, names[k], &ctx->id[k]));
    PetscCheck(ctx->info[ctx->id[k]].identifiable, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "Parameter %s is not identifiable (-identify): the model has no derivative for it", names[k]);
    for (PetscInt l = 0; l < k; l++) PetscCheck(ctx->id[l] != ctx->id[k], PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "Parameter %s appears twice in -identify", names[k]);
    ctx->nid++;
  }
  PetscCheck(ctx->nid > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "Nothing to differentiate: give -identify");
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  PeerCtx        ctx;
  MbsMeasurement meas;
  PeerStats      stats;
  char           path[PETSC_MAX_PATH_LEN] = "", *names[64];
  const char    *type, *output, *unit;
  PetscInt       nnames = PETSC_STATIC_ARRAY_LENGTH(names), nband = 2, repeat = 3;
  PetscReal      band[2] = {0, 0}, fd_step = 1e-4, J, *grad;
  PetscLogDouble time_J, time_grad;
  PetscBool      band_set, identify_set, fd = PETSC_FALSE, chain, has_help;
  PetscMPIInt    size;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCheck(size == 1, PETSC_COMM_WORLD, PETSC_ERR_SUP, "peer_cvodes is serial: run it on one MPI rank");
  PetscCall(PetscMemzero(&ctx, sizeof(ctx)));
  PetscCall(PetscMemzero(&meas, sizeof(meas)));
  PetscCall(MbsModelCreate(PETSC_COMM_WORLD, &ctx.model));
  PetscCall(MbsModelSetFromOptions(ctx.model));
  PetscCall(MbsModelGetType(ctx.model, &type));
  PetscCall(MbsModelGetOutputInfo(ctx.model, &output, &unit));
  PetscCall(MbsModelGetSizes(ctx.model, &ctx.n, NULL, &ctx.np));
  PetscCall(MbsModelGetParameterInfo(ctx.model, &ctx.info));
  PetscCall(MbsModelGetTimeSpan(ctx.model, &ctx.t0, &ctx.tf, NULL));
  ctx.L = ctx.tf - ctx.t0;
  /* the model's step cap (section 10 of cart_pendulum_chain.md: a first step from rest must not jump the pulse) is
     not in the public API, so its value for the chain is repeated here */
  PetscCall(PetscStrcmp(type, "cart_pendulum_chain", &chain));
  ctx.max_step = chain ? 0.05 : 0;
  ctx.rtol     = 1e-8;
  ctx.nd       = 500;

  PetscOptionsBegin(PETSC_COMM_WORLD, NULL, "peer_cvodes: spectrum cost and adjoint gradient with CVODES", "");
  PetscCall(PetscOptionsString("-measurement", "Measurement file (HDF5) with /spectrum (required)", "", path, path, sizeof(path), NULL));
  PetscCall(PetscOptionsRealArray("-band_hz", "Measured lines lo,hi in the cost [Hz] (default: all measured lines)", "", band, &nband, &band_set));
  PetscCall(PetscOptionsStringArray("-identify", "Parameters of the gradient (default: every identifiable one)", "", names, &nnames, &identify_set));
  PetscCall(PetscOptionsReal("-peer_rtol", "Relative tolerance of CVODES, forward and backward, states and quadratures", "", ctx.rtol, &ctx.rtol, NULL));
  ctx.atol = 1e-2 * ctx.rtol; /* the output and the link angles are of order 1e-2 rad */
  PetscCall(PetscOptionsReal("-peer_atol", "Absolute tolerance of the states and forward quadratures (backward: times the forcing bound)", "", ctx.atol, &ctx.atol, NULL));
  PetscCall(PetscOptionsInt("-peer_nd", "Steps between checkpoints of the adjoint", "", ctx.nd, &ctx.nd, NULL));
  PetscCall(PetscOptionsInt("-peer_repeat", "Runs per timing (the best counts)", "", repeat, &repeat, NULL));
  PetscCall(PetscOptionsReal("-peer_max_step", "Largest step [s], 0: none (default: 0.05 for cart_pendulum_chain)", "", ctx.max_step, &ctx.max_step, NULL));
  PetscCall(PetscOptionsBool("-peer_fd", "Check the gradient against central differences of the peer's J", "", fd, &fd, NULL));
  PetscCall(PetscOptionsReal("-peer_fd_step", "Relative step of the central differences", "", fd_step, &fd_step, NULL));
  PetscOptionsEnd();
  PetscCall(PetscOptionsHasHelp(NULL, &has_help));
  if (has_help) {
    for (PetscInt k = 0; identify_set && k < nnames; k++) PetscCall(PetscFree(names[k]));
    PetscCall(MbsModelDestroy(&ctx.model));
    PetscCall(PetscFinalize());
    return 0;
  }
  PetscCheck(path[0], PETSC_COMM_WORLD, PETSC_ERR_ARG_WRONG, "No measurement: give -measurement <file.h5> (e.g. one written by mbsid simulate -save_measurement)");
  PetscCheck(!band_set || nband == 2, PETSC_COMM_WORLD, PETSC_ERR_ARG_SIZ, "-band_hz needs two values lo,hi [Hz]");
  PetscCheck(ctx.rtol > 0 && ctx.atol > 0, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-peer_rtol and -peer_atol must be positive, got %g and %g", (double)ctx.rtol, (double)ctx.atol);
  PetscCheck(ctx.nd >= 1 && repeat >= 1, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-peer_nd and -peer_repeat must be at least 1");
  PetscCheck(ctx.max_step >= 0, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-peer_max_step must not be negative (0: no cap)");
  PetscCheck(fd_step > 0 && fd_step < 0.1, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-peer_fd_step must lie in (0, 0.1), got %g", (double)fd_step);

  PetscCall(MbsMeasurementRead(PETSC_COMM_WORLD, path, &meas));
  PetscCall(PeerSetUpLines(&ctx, path, &meas, band_set ? band : NULL));
  PetscCall(PeerSetUpParameters(&ctx, identify_set ? nnames : 0, names));
  for (PetscInt k = 0; identify_set && k < nnames; k++) PetscCall(PetscFree(names[k]));
  PetscCall(PetscMalloc4(ctx.n * ctx.n, &ctx.jac, ctx.n * ctx.np, &ctx.jac_p, ctx.n, &ctx.dydu, ctx.nid, &grad));
  PetscCheck(SUNContext_Create(NULL, &ctx.sunctx) == 0, PETSC_COMM_SELF, PETSC_ERR_LIB, "SUNDIALS SUNContext_Create failed");

  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "peer_cvodes: model %s (%" PetscInt_FMT " states), output %s [%s], spectrum cost (squared) on the rectangular window [%g, %g] s\n", type, ctx.n, output, unit, (double)ctx.t0, (double)ctx.tf));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  %" PetscInt_FMT " measured lines of %s in [%g, %g] Hz; gradient with respect to", ctx.nline, path, (double)(ctx.w[0] / (2 * PETSC_PI)), (double)(ctx.w[ctx.nline - 1] / (2 * PETSC_PI))));
  for (PetscInt k = 0; k < ctx.nid; k++) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s %s", k ? "," : "", ctx.info[ctx.id[k]].name));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "\n  CVODES %s: BDF, dense LU, analytic Jacobians; rtol %g, atol %g (backward: times the forcing bound); max step %g s (0: none); checkpoint every %" PetscInt_FMT " steps, Hermite\n", SUNDIALS_VERSION,
                        (double)ctx.rtol, (double)ctx.atol, (double)ctx.max_step, ctx.nd));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  times: best of %" PetscInt_FMT " runs [s]; time_J forward with quadratures, time_grad forward with checkpoints + adjoint\n", repeat));

  PetscCall(PeerTime(&ctx, repeat, &J, NULL, &stats, &time_J));
  PetscCall(PeerTime(&ctx, repeat, &J, grad, &stats, &time_grad));
  if (fd) PetscCall(PeerCheckGradient(&ctx, fd_step, grad));

  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "peer_cvodes rtol %g atol %g J %.12e grad ", (double)ctx.rtol, (double)ctx.atol, (double)J));
  for (PetscInt k = 0; k < ctx.nid; k++) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s%.10e", k ? "," : "", (double)grad[k]));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, " time_J %.4f time_grad %.4f steps %ld steps_backward %ld\n", time_J, time_grad, stats.steps, stats.steps_backward));

  SUNContext_Free(&ctx.sunctx);
  PetscCall(PetscFree4(ctx.jac, ctx.jac_p, ctx.dydu, grad));
  PetscCall(PetscFree4(ctx.w, ctx.measured, ctx.alpha, ctx.beta));
  PetscCall(PetscFree(ctx.id));
  PetscCall(MbsMeasurementReset(&meas));
  PetscCall(MbsModelDestroy(&ctx.model));
  PetscCall(PetscFinalize());
  return 0;
}
