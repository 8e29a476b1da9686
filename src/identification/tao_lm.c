/*
  A Levenberg-Marquardt method as a TAO type (-tao_type mbslm) for least-squares problems with simple bounds: the
  residual routine R(x) and its Jacobian J(x) of TaoSetResidualRoutine() and TaoSetJacobianResidualRoutine() (J a dense
  matrix), f = 1/2 |R|^2, g = J^T R, H = J^T J. Each iteration solves, on the free variables F (those not on a bound
  that the gradient pushes against),

    (H_FF + lambda diag(H)_FF) d_F = -g_F        (Marquardt's scaling: the same steps in any scaling of x)

  by Cholesky, projects x + d on the bounds, and takes the step when the actual decrease is a fraction of the
  model's, rho = (f(x) - f(x+)) / (f(x) - m(x+)) > 1e-4, m(x + d) = f + g^T d + 1/2 d^T H d; then lambda <- lambda
  max(1/3, 1 - (2 rho - 1)^3) and nu = 2, otherwise lambda <- nu lambda, nu <- 2 nu and the step is solved again
  (Nielsen's update: K. Madsen, H. B. Nielsen, O. Tingleff, Methods for non-linear least squares problems, 2004,
  section 3.2). A trial point whose residual is not finite is a rejected step. One Jacobian per iteration, one residual
  per trial step. TAO's tests stop it (-tao_gatol, -tao_grtol, -tao_gttol on |g_F|, -tao_max_it), and so does a step
  below -tao_mbslm_steptol (relative to |x| + 1) or a lambda beyond 1e16 that still gives no decrease.

  Between iterations the method is its state: x, f, g, H, lambda, nu, the iteration count and the last step
  (TaoMbsLMGetState). A solve given that state (TaoMbsLMSetState) continues from it bitwise as the run that saved it
  would, without the Jacobian at x: an identification's checkpoint saves it (checkpoint.c), as the log of evaluations
  replayed for the other types would have to hold every residual vector and Jacobian (90 MB each for the 300-parameter
  ring) where the state is n^2 + n + 6 numbers.

  TAO's own brgn (PETSc 3.18, -tao_brgn_regularization_type lm) solves the damped system with an inner bounded Newton
  solver and its line search, whose trial points cost one residual each too; this loop is the textbook method on the
  Jacobian the caller provides, with the bounds by projection.
*/
#include "identification/identificationimpl.h"
#include <petsc/private/taoimpl.h> /* a TAO type of mbsid's own */
#include <petscblaslapack.h>

typedef struct {
  PetscReal  lambda0, steptol;
  PetscReal  f, lambda, nu, step; /* 1/2 |R|^2 at the solution, the damping and its growth, the last step's length */
  PetscReal *restore;             /* a state to continue from (TaoMbsLMSetState), NULL: start at the solution */
  PetscInt   nrestore;            /* the number of variables of that state */
  PetscReal *H, *g, *A, *d;       /* n x n, n, n x n, n */
  PetscInt  *free_index;          /* n */
  Vec        X_trial, R_trial;
} TAO_MbsLM;

/* H = J^T J and g = J^T R from the dense m x n Jacobian */
static PetscErrorCode TaoMbsLMNormal_Private(Tao tao, TAO_MbsLM *lm, PetscInt n)
{
  PetscInt           m, lda;
  const PetscScalar *J, *R;
  PetscScalar       *gradient;

  PetscFunctionBeginUser;
  PetscCall(MatGetSize(tao->ls_jac, &m, NULL));
  PetscCall(MatDenseGetLDA(tao->ls_jac, &lda));
  PetscCall(MatDenseGetArrayRead(tao->ls_jac, &J));
  PetscCall(VecGetArrayRead(tao->ls_res, &R));
  PetscCall(PetscArrayzero(lm->g, n));
  PetscCall(PetscArrayzero(lm->H, n * n));
  /* by blocks of rows that stay in cache for all n (n + 1) / 2 column products, four of them at a time (independent
     sums): column by column, each product streamed two whole columns from memory and waited on its one sum; 3.6 times
     faster for the 37575 x 300 Jacobian of the 300-parameter ring */
  for (PetscInt i0 = 0; i0 < m; i0 += 256) {
    PetscInt i1 = PetscMin(m, i0 + 256);

    for (PetscInt k = 0; k < n; k++) {
      const PetscScalar *Jk = J + k * lda;
      PetscReal         *Hk = lm->H + k * n;
      PetscInt           l  = 0;

      for (PetscInt i = i0; i < i1; i++) lm->g[k] += Jk[i] * R[i];
      for (; l + 3 <= k; l += 4) {
        const PetscScalar *J0 = J + l * lda, *J1 = J0 + lda, *J2 = J1 + lda, *J3 = J2 + lda;
        PetscReal          h0 = 0, h1 = 0, h2 = 0, h3 = 0;

        for (PetscInt i = i0; i < i1; i++) {
          h0 += Jk[i] * J0[i];
          h1 += Jk[i] * J1[i];
          h2 += Jk[i] * J2[i];
          h3 += Jk[i] * J3[i];
        }
        Hk[l] += h0;
        Hk[l + 1] += h1;
        Hk[l + 2] += h2;
        Hk[l + 3] += h3;
      }
      for (; l <= k; l++) {
        const PetscScalar *Jl = J + l * lda;
        PetscReal          h  = 0;

        for (PetscInt i = i0; i < i1; i++) h += Jk[i] * Jl[i];
        Hk[l] += h;
      }
    }
  }
  for (PetscInt k = 0; k < n; k++)
    for (PetscInt l = 0; l < k; l++) lm->H[l * n + k] = lm->H[k * n + l];
  PetscCall(VecRestoreArrayRead(tao->ls_res, &R));
  PetscCall(MatDenseRestoreArrayRead(tao->ls_jac, &J));
  PetscCall(VecGetArrayWrite(tao->gradient, &gradient));
  PetscCall(PetscArraycpy(gradient, lm->g, n));
  PetscCall(VecRestoreArrayWrite(tao->gradient, &gradient));
  PetscFunctionReturn(0);
}

/* The free variables (index in free_index[0..*nfree-1]) and |g_F| */
static PetscErrorCode TaoMbsLMFreeSet_Private(Tao tao, TAO_MbsLM *lm, PetscInt n, PetscInt *nfree, PetscReal *gnorm)
{
  const PetscScalar *x, *xl = NULL, *xu = NULL;

  PetscFunctionBeginUser;
  PetscCall(VecGetArrayRead(tao->solution, &x));
  if (tao->XL) PetscCall(VecGetArrayRead(tao->XL, &xl));
  if (tao->XU) PetscCall(VecGetArrayRead(tao->XU, &xu));
  *nfree = 0;
  *gnorm = 0;
  for (PetscInt k = 0; k < n; k++) {
    PetscBool held = (PetscBool)((xl && x[k] <= xl[k] && lm->g[k] > 0) || (xu && x[k] >= xu[k] && lm->g[k] < 0));

    if (held) continue;
    lm->free_index[(*nfree)++] = k;
    *gnorm += lm->g[k] * lm->g[k];
  }
  *gnorm = PetscSqrtReal(*gnorm);
  if (tao->XU) PetscCall(VecRestoreArrayRead(tao->XU, &xu));
  if (tao->XL) PetscCall(VecRestoreArrayRead(tao->XL, &xl));
  PetscCall(VecRestoreArrayRead(tao->solution, &x));
  PetscFunctionReturn(0);
}

/* d (n, zero outside F) from the damped system on F, projected: X_trial = P(x + d), d = X_trial - x; *factored false
   when the damped matrix is not positive definite (a larger lambda is tried) */
static PetscErrorCode TaoMbsLMStep_Private(Tao tao, TAO_MbsLM *lm, PetscInt n, PetscInt nfree, PetscReal lambda, PetscBool *factored)
{
  PetscBLASInt       nf, one = 1, info;
  PetscReal          dmax = 0;
  const PetscScalar *x, *xl = NULL, *xu = NULL;
  PetscScalar       *xt;

  PetscFunctionBeginUser;
  PetscCall(PetscBLASIntCast(nfree, &nf));
  for (PetscInt k = 0; k < n; k++) dmax = PetscMax(dmax, lm->H[k * n + k]);
  for (PetscInt a = 0; a < nfree; a++) {
    PetscInt k = lm->free_index[a];

    for (PetscInt b = 0; b < nfree; b++) lm->A[a * nfree + b] = lm->H[k * n + lm->free_index[b]];
    /* a parameter the residuals do not see would have no damping: a floor of the largest diagonal */
    lm->A[a * nfree + a] += lambda * PetscMax(lm->H[k * n + k], 1e-12 * dmax);
    lm->d[a] = -lm->g[k];
  }
  *factored = PETSC_TRUE;
  if (nf) {
    PetscCallBLAS("LAPACKpotrf", LAPACKpotrf_("L", &nf, lm->A, &nf, &info));
    *factored = (PetscBool)(info == 0);
    if (!*factored) PetscFunctionReturn(0);
    PetscCallBLAS("LAPACKpotrs", LAPACKpotrs_("L", &nf, &one, lm->A, &nf, lm->d, &nf, &info));
    PetscCheck(info == 0, PETSC_COMM_SELF, PETSC_ERR_LIB, "LAPACK potrs: info %d", (int)info);
  }
  PetscCall(VecGetArrayRead(tao->solution, &x));
  if (tao->XL) PetscCall(VecGetArrayRead(tao->XL, &xl));
  if (tao->XU) PetscCall(VecGetArrayRead(tao->XU, &xu));
  PetscCall(VecGetArrayWrite(lm->X_trial, &xt));
  for (PetscInt k = 0; k < n; k++) xt[k] = x[k];
  for (PetscInt a = 0; a < nfree; a++) { /* d[a] is the step of free_index[a]; below, d[k] that of x_k */
    PetscInt k = lm->free_index[a];

    xt[k] = x[k] + lm->d[a];
    if (xl) xt[k] = PetscMax(xt[k], xl[k]);
    if (xu) xt[k] = PetscMin(xt[k], xu[k]);
  }
  for (PetscInt k = 0; k < n; k++) lm->d[k] = xt[k] - x[k];
  PetscCall(VecRestoreArrayWrite(lm->X_trial, &xt));
  if (tao->XU) PetscCall(VecRestoreArrayRead(tao->XU, &xu));
  if (tao->XL) PetscCall(VecRestoreArrayRead(tao->XL, &xl));
  PetscCall(VecRestoreArrayRead(tao->solution, &x));
  PetscFunctionReturn(0);
}

/* J, R and their normal equations at the current point; f = 1/2 |R|^2 */
static PetscErrorCode TaoMbsLMLinearize_Private(Tao tao, TAO_MbsLM *lm, PetscInt n, PetscReal *f)
{
  PetscReal norm;

  PetscFunctionBeginUser;
  PetscCall(TaoComputeResidualJacobian(tao, tao->solution, tao->ls_jac, tao->ls_jac_pre));
  PetscCall(TaoComputeResidual(tao, tao->solution, tao->ls_res));
  PetscCall(VecNorm(tao->ls_res, NORM_2, &norm));
  *f = 0.5 * norm * norm;
  PetscCall(TaoMbsLMNormal_Private(tao, lm, n));
  PetscFunctionReturn(0);
}

/* The state saved by TaoMbsLMGetState(): the point is the caller's (TaoSetSolution), the counters TAO's */
static PetscErrorCode TaoMbsLMRestore_Private(Tao tao, TAO_MbsLM *lm, PetscInt n)
{
  const PetscReal *state = lm->restore;

  PetscFunctionBeginUser;
  PetscCheck(lm->nrestore == n, PetscObjectComm((PetscObject)tao), PETSC_ERR_ARG_SIZ, "The state of -tao_type %s to continue from has %" PetscInt_FMT " variables, the solution %" PetscInt_FMT, TAOMBSLM, lm->nrestore, n);
  tao->niter  = (PetscInt)state[MBS_LM_STATE_NITER];
  tao->gnorm0 = state[MBS_LM_STATE_GNORM0]; /* TaoMonitor() sets it at iteration 0 only; -tao_gttol needs it */
  lm->f       = state[MBS_LM_STATE_F];
  lm->lambda  = state[MBS_LM_STATE_LAMBDA];
  lm->nu      = state[MBS_LM_STATE_NU];
  lm->step    = state[MBS_LM_STATE_STEP];
  PetscCall(PetscArraycpy(lm->g, state + MBS_LM_STATE_SCALARS, n));
  PetscCall(PetscArraycpy(lm->H, state + MBS_LM_STATE_SCALARS + n, n * n));
  PetscCall(PetscFree(lm->restore));
  PetscFunctionReturn(0);
}

static PetscErrorCode TaoSolve_MbsLM(Tao tao)
{
  TAO_MbsLM *lm = (TAO_MbsLM *)tao->data;
  PetscInt   n, nfree;
  PetscReal  gnorm = 0;

  PetscFunctionBeginUser;
  PetscCall(VecGetSize(tao->solution, &n));
  tao->reason = TAO_CONTINUE_ITERATING;
  if (lm->restore) PetscCall(TaoMbsLMRestore_Private(tao, lm, n));
  else {
    lm->lambda = lm->lambda0;
    lm->nu     = 2;
    lm->step   = 0;
    PetscCall(TaoMbsLMLinearize_Private(tao, lm, n, &lm->f));
  }
  while (PETSC_TRUE) {
    PetscReal xnorm;

    PetscCall(TaoMbsLMFreeSet_Private(tao, lm, n, &nfree, &gnorm));
    PetscCall(TaoLogConvergenceHistory(tao, lm->f, gnorm, 0.0, tao->ksp_its));
    PetscCall(TaoMonitor(tao, tao->niter, lm->f, gnorm, 0.0, lm->step));
    PetscUseTypeMethod(tao, convergencetest, tao->cnvP);
    if (tao->reason != TAO_CONTINUE_ITERATING) break;
    if (tao->ops->update) PetscUseTypeMethod(tao, update, tao->niter, tao->user_update);
    tao->niter++;
    PetscCall(VecNorm(tao->solution, NORM_2, &xnorm));
    while (PETSC_TRUE) { /* trial steps until one decreases f enough */
      PetscBool factored;
      PetscReal f_trial = PETSC_INFINITY, predicted = 0, dnorm = 0, rho;

      PetscCall(TaoMbsLMStep_Private(tao, lm, n, nfree, lm->lambda, &factored));
      if (factored) {
        for (PetscInt k = 0; k < n; k++) {
          PetscReal Hd = 0;

          for (PetscInt l = 0; l < n; l++) Hd += lm->H[k * n + l] * lm->d[l];
          predicted -= lm->g[k] * lm->d[k] + 0.5 * lm->d[k] * Hd;
          dnorm += lm->d[k] * lm->d[k];
        }
        dnorm = PetscSqrtReal(dnorm);
        if (dnorm <= lm->steptol * (xnorm + 1)) {
          tao->reason = TAO_CONVERGED_STEPTOL;
          break;
        }
        PetscCall(TaoComputeResidual(tao, lm->X_trial, lm->R_trial));
        PetscCall(VecNorm(lm->R_trial, NORM_2, &f_trial));
        f_trial = 0.5 * f_trial * f_trial;
      }
      rho = predicted > 0 && !PetscIsInfOrNanReal(f_trial) ? (lm->f - f_trial) / predicted : -1;
      if (rho > 1e-4) {
        PetscCall(VecCopy(lm->X_trial, tao->solution));
        lm->lambda *= PetscMax(1.0 / 3, 1 - PetscPowReal(2 * rho - 1, 3));
        lm->nu   = 2;
        lm->step = dnorm;
        PetscCall(TaoMbsLMLinearize_Private(tao, lm, n, &lm->f));
        break;
      }
      lm->lambda *= lm->nu;
      lm->nu *= 2;
      if (lm->lambda > 1e16) {
        tao->reason = TAO_DIVERGED_LS_FAILURE;
        break;
      }
    }
    if (tao->reason != TAO_CONTINUE_ITERATING) break;
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode TaoSetUp_MbsLM(Tao tao)
{
  TAO_MbsLM *lm = (TAO_MbsLM *)tao->data;
  PetscInt   n;
  PetscBool  dense;

  PetscFunctionBeginUser;
  PetscCheck(tao->ls_res && tao->ls_jac, PetscObjectComm((PetscObject)tao), PETSC_ERR_ORDER, "-tao_type %s needs the residuals and their Jacobian (TaoSetResidualRoutine, TaoSetJacobianResidualRoutine)", TAOMBSLM);
  PetscCall(PetscObjectTypeCompareAny((PetscObject)tao->ls_jac, &dense, MATSEQDENSE, MATDENSE, ""));
  PetscCheck(dense, PetscObjectComm((PetscObject)tao), PETSC_ERR_SUP, "-tao_type %s takes a dense Jacobian of the residuals", TAOMBSLM);
  /* checked here, not while PETSc's options object is open (its error path leaks in 3.18) */
  PetscCheck(lm->lambda0 > 0, PetscObjectComm((PetscObject)tao), PETSC_ERR_ARG_OUTOFRANGE, "-tao_mbslm_lambda0 must be positive, got %g", (double)lm->lambda0);
  PetscCheck(lm->steptol >= 0, PetscObjectComm((PetscObject)tao), PETSC_ERR_ARG_OUTOFRANGE, "-tao_mbslm_steptol must be >= 0, got %g", (double)lm->steptol);
  PetscCall(VecGetSize(tao->solution, &n));
  if (!tao->gradient) PetscCall(VecDuplicate(tao->solution, &tao->gradient));
  if (!lm->X_trial) PetscCall(VecDuplicate(tao->solution, &lm->X_trial));
  if (!lm->R_trial) PetscCall(VecDuplicate(tao->ls_res, &lm->R_trial));
  if (!lm->H) PetscCall(PetscMalloc5(n * n, &lm->H, n, &lm->g, n * n, &lm->A, n, &lm->d, n, &lm->free_index));
  PetscFunctionReturn(0);
}

static PetscErrorCode TaoDestroy_MbsLM(Tao tao)
{
  TAO_MbsLM *lm = (TAO_MbsLM *)tao->data;

  PetscFunctionBeginUser;
  PetscCall(PetscFree5(lm->H, lm->g, lm->A, lm->d, lm->free_index));
  PetscCall(PetscFree(lm->restore));
  PetscCall(VecDestroy(&lm->X_trial));
  PetscCall(VecDestroy(&lm->R_trial));
  PetscCall(PetscFree(tao->data));
  PetscFunctionReturn(0);
}

static PetscErrorCode TaoSetFromOptions_MbsLM(Tao tao, PetscOptionItems *PetscOptionsObject)
{
  TAO_MbsLM *lm = (TAO_MbsLM *)tao->data;

  PetscFunctionBeginUser;
  PetscOptionsHeadBegin(PetscOptionsObject, "Levenberg-Marquardt (mbsid)");
  PetscCall(PetscOptionsReal("-tao_mbslm_lambda0", "Initial damping lambda, relative to diag(J^T J)", "", lm->lambda0, &lm->lambda0, NULL));
  PetscCall(PetscOptionsReal("-tao_mbslm_steptol", "Stop when a step |d| is below this times |x| + 1", "", lm->steptol, &lm->steptol, NULL));
  PetscOptionsHeadEnd();
  PetscFunctionReturn(0);
}

static PetscErrorCode TaoView_MbsLM(Tao tao, PetscViewer viewer)
{
  TAO_MbsLM *lm = (TAO_MbsLM *)tao->data;

  PetscFunctionBeginUser;
  PetscCall(PetscViewerASCIIPrintf(viewer, "  Levenberg-Marquardt: initial lambda %g (relative to diag(J^T J)), step tolerance %g\n", (double)lm->lambda0, (double)lm->steptol));
  PetscFunctionReturn(0);
}

static PetscErrorCode TaoCreate_MbsLM(Tao tao)
{
  TAO_MbsLM *lm;

  PetscFunctionBeginUser;
  PetscCall(PetscNew(&lm));
  lm->lambda0              = 1;
  lm->steptol              = 1e-10;
  tao->data                = lm;
  tao->ops->setup          = TaoSetUp_MbsLM;
  tao->ops->solve          = TaoSolve_MbsLM;
  tao->ops->destroy        = TaoDestroy_MbsLM;
  tao->ops->setfromoptions = TaoSetFromOptions_MbsLM;
  tao->ops->view           = TaoView_MbsLM;
  PetscFunctionReturn(0);
}

/*@C
  TaoMbsLMGetState - The state of -tao_type mbslm at its last iteration (while TaoSolve() runs, e.g. in a monitor, or
  after it): MBS_LM_STATE_SIZE(n) numbers, the MBS_LM_STATE_* scalars, then g (n) and H (n x n); the point is the
  solution's. Not collective.
@*/
PetscErrorCode TaoMbsLMGetState(Tao tao, PetscReal state[])
{
  TAO_MbsLM *lm = (TAO_MbsLM *)tao->data;
  PetscInt   n;
  PetscBool  is_lm;

  PetscFunctionBeginUser;
  PetscCall(PetscObjectTypeCompare((PetscObject)tao, TAOMBSLM, &is_lm));
  PetscCheck(is_lm && lm->H, PetscObjectComm((PetscObject)tao), PETSC_ERR_ORDER, "TaoMbsLMGetState: no state of -tao_type %s to give (another type, or not solved yet)", TAOMBSLM);
  PetscCall(VecGetSize(tao->solution, &n));
  state[MBS_LM_STATE_NITER]  = (PetscReal)tao->niter;
  state[MBS_LM_STATE_F]      = lm->f;
  state[MBS_LM_STATE_GNORM0] = tao->gnorm0;
  state[MBS_LM_STATE_LAMBDA] = lm->lambda;
  state[MBS_LM_STATE_NU]     = lm->nu;
  state[MBS_LM_STATE_STEP]   = lm->step;
  PetscCall(PetscArraycpy(state + MBS_LM_STATE_SCALARS, lm->g, n));
  PetscCall(PetscArraycpy(state + MBS_LM_STATE_SCALARS + n, lm->H, n * n));
  PetscFunctionReturn(0);
}

/*@C
  TaoMbsLMSetState - The next TaoSolve() of -tao_type mbslm continues from a state of TaoMbsLMGetState() (size
  MBS_LM_STATE_SIZE(n), copied) at the solution the caller sets to the point of that state, without evaluating there.
  Not collective.
@*/
PetscErrorCode TaoMbsLMSetState(Tao tao, PetscInt n, const PetscReal state[])
{
  TAO_MbsLM *lm = (TAO_MbsLM *)tao->data;
  PetscBool  is_lm;

  PetscFunctionBeginUser;
  PetscCall(PetscObjectTypeCompare((PetscObject)tao, TAOMBSLM, &is_lm));
  PetscCheck(is_lm, PetscObjectComm((PetscObject)tao), PETSC_ERR_ARG_WRONG, "TaoMbsLMSetState: the Tao is not of type %s", TAOMBSLM);
  PetscCall(PetscFree(lm->restore));
  PetscCall(PetscMalloc1(MBS_LM_STATE_SIZE(n), &lm->restore));
  PetscCall(PetscArraycpy(lm->restore, state, MBS_LM_STATE_SIZE(n)));
  lm->nrestore = n;
  PetscFunctionReturn(0);
}

/*@C
  MbsTaoRegisterLM - Registers the Levenberg-Marquardt method as -tao_type mbslm (again: the same entry). Not collective.
@*/
PetscErrorCode MbsTaoRegisterLM(void)
{
  PetscFunctionBeginUser;
  PetscCall(TaoRegister(TAOMBSLM, TaoCreate_MbsLM));
  PetscFunctionReturn(0);
}
