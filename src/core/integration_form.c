/*
  The form of a model that the time integrator and its adjoint see.

  PETSc's discrete adjoint of the theta methods is exact only when dF/dU' is constant: it evaluates the
  mass matrix of a step at the step's start, where the forward step used the end. A model whose mass
  matrix depends on the state, F = E(U) U' + R(U), is therefore integrated in its explicit form

    F_x(U, U') = U' - g(U),   g(U) = -E(U)^{-1} R(U)   (= E^{-1} F),

  with dF_x/dU = E^{-1} dF/dU and dF_x/dp = E^{-1} dF/dp, both evaluated at (U, U' = g(U)), where F = 0.
  Models with a constant mass matrix (and DAE models, whose E is singular) are integrated as they are.

  Explicit integrators (TSRK) take the rate itself, U' = g(t, U), of any ODE model, with the adjoint's

    dg/dU = -E^{-1} dF/dU,   dg/dp = -E^{-1} dF/dp   at (U, U' = g(U)).
*/
#include "core/coreimpl.h"

typedef struct {
  PetscReal *E, *rate, *work;   /* LU of dF/dU', g(U), n x n scratch */
  PetscReal *key;               /* t, U, p of E and rate: 1 + n + np */
  PetscInt   n, *pivots, *rows; /* MbsSmallLUFactor() */
} MbsExplicitForm;

/*
  LU with partial pivoting of the n x n column-major A in place, as LAPACK's getrf (same pivot choice, 0-based pivots).
  The explicit form factors E at every stage of every step, and E has 8 to 20 rows and is mostly zero (the unit rows
  q' - v, diagonal blocks): LAPACK's per-call overhead and its dense updates cost more than the arithmetic that is
  left when zeros are skipped. rows[k] = [l_end, u_begin]: the multipliers of column k are in rows k+1 .. l_end-1, the
  entries of U above its diagonal in rows u_begin .. k-1. Returns the index of the first zero pivot, or -1.
*/
static PetscInt MbsSmallLUFactor(PetscInt n, PetscReal A[], PetscInt pivots[], PetscInt rows[])
{
  for (PetscInt k = 0; k < n; k++) {
    PetscInt  p = k, l_end = k + 1;
    PetscReal inverse;

    for (PetscInt i = k + 1; i < n; i++) {
      PetscReal a = PetscAbsReal(MBS_IJ(A, i, k, n));

      if (a == 0) continue;
      l_end = i + 1;
      if (a > PetscAbsReal(MBS_IJ(A, p, k, n))) p = i;
    }
    pivots[k] = p;
    if (MBS_IJ(A, p, k, n) == 0) return k;
    if (p != k) {
      for (PetscInt j = 0; j < n; j++) {
        PetscReal swap = MBS_IJ(A, k, j, n);

        MBS_IJ(A, k, j, n) = MBS_IJ(A, p, j, n);
        MBS_IJ(A, p, j, n) = swap;
      }
      for (PetscInt j = 0; j < k; j++) /* a multiplier of an earlier column may have moved down to row p */
        if (MBS_IJ(A, p, j, n) != 0) rows[2 * j] = PetscMax(rows[2 * j], p + 1);
    }
    rows[2 * k] = l_end;
    inverse     = 1 / MBS_IJ(A, k, k, n);
    for (PetscInt i = k + 1; i < l_end; i++) MBS_IJ(A, i, k, n) *= inverse;
    for (PetscInt j = k + 1; j < n && l_end > k + 1; j++) {
      PetscReal u_kj = MBS_IJ(A, k, j, n);

      if (u_kj == 0) continue;
      for (PetscInt i = k + 1; i < l_end; i++) MBS_IJ(A, i, j, n) -= MBS_IJ(A, i, k, n) * u_kj;
    }
  }
  for (PetscInt k = 0; k < n; k++) {
    PetscInt u_begin = 0;

    while (u_begin < k && MBS_IJ(A, u_begin, k, n) == 0) u_begin++;
    rows[2 * k + 1] = u_begin;
  }
  return -1;
}

/* B <- A^{-1} B for the ncol columns of B, A factored by MbsSmallLUFactor() */
static void MbsSmallLUSolve(PetscInt n, const PetscReal LU[], const PetscInt pivots[], const PetscInt rows[], PetscInt ncol, PetscReal B[])
{
  for (PetscInt c = 0; c < ncol; c++) {
    PetscReal *b = B + c * n;

    for (PetscInt k = 0; k < n; k++) {
      PetscReal swap = b[k];

      b[k]         = b[pivots[k]];
      b[pivots[k]] = swap;
    }
    for (PetscInt k = 0; k < n; k++)
      if (b[k] != 0)
        for (PetscInt i = k + 1; i < rows[2 * k]; i++) b[i] -= MBS_IJ(LU, i, k, n) * b[k];
    for (PetscInt k = n - 1; k >= 0; k--) {
      if (b[k] == 0) continue;
      b[k] /= MBS_IJ(LU, k, k, n);
      for (PetscInt i = rows[2 * k + 1]; i < k; i++) b[i] -= MBS_IJ(LU, i, k, n) * b[k];
    }
  }
}

static PetscBool MbsModelAllDifferential(MbsModel model)
{
  for (PetscInt i = 0; i < model->n; i++)
    if (!model->differential[i]) return PETSC_FALSE;
  return PETSC_TRUE;
}

static PetscBool MbsModelUsesExplicitForm(MbsModel model)
{
  return (PetscBool)(!model->constant_mass && MbsModelAllDifferential(model));
}

/*
  Factors E(U) = dF/dU' and computes the rate g(U), in the model's cached workspace (no allocation per call). An
  adjoint step asks for dg/dU and dg/dp at the same stage: the factorisation of the last (t, U, p) is reused.
*/
static PetscErrorCode MbsExplicitFormSetUp_Private(MbsModel model, PetscReal t, const PetscReal u[], MbsExplicitForm *form)
{
  PetscInt  n = model->n, np = model->np, zero_pivot;
  PetscBool same;

  PetscFunctionBeginUser;
  PetscCheck(MbsModelAllDifferential(model), PETSC_COMM_SELF, PETSC_ERR_SUP, "Model %s is a DAE (algebraic components): it has no explicit form U' = g(U); integrate it with an implicit method (-ts_type cn, theta, beuler)%s%s%s", model->type, model->ode_form_option ? ", or take its ODE form (" : "",
             model->ode_form_option ? model->ode_form_option : "", model->ode_form_option ? ")" : "");
  if (!model->form_work) {
    PetscCall(PetscMalloc2(3 * n * n + 1 + n + np, &model->form_work, 3 * n, &model->form_pivots));
    model->form_work[3 * n * n] = PETSC_MAX_REAL; /* no (t, U, p) yet */
  }
  form->n      = n;
  form->E      = model->form_work;
  form->work   = model->form_work + n * n;
  form->rate   = model->form_work + 2 * n * n;
  form->key    = model->form_work + 3 * n * n;
  form->pivots = model->form_pivots;
  form->rows   = model->form_pivots + n;
  same         = (PetscBool)(form->key[0] == t);
  if (same) PetscCall(PetscArraycmp(form->key + 1, u, n, &same));
  if (same) PetscCall(PetscArraycmp(form->key + 1 + n, model->p, np, &same));
  if (same) PetscFunctionReturn(0);
  PetscCall(PetscArrayzero(form->work, n)); /* U' = 0: the residual is R(U) */
  PetscCall(MbsModelResidual(model, t, u, form->work, form->rate));
  for (PetscInt i = 0; i < n; i++) form->rate[i] = -form->rate[i];
  PetscCall(MbsModelMass(model, t, u, form->rate, form->E, form->work));
  zero_pivot = MbsSmallLUFactor(n, form->E, form->pivots, form->rows);
  PetscCheck(zero_pivot < 0, PETSC_COMM_SELF, PETSC_ERR_MAT_LU_ZRPVT, "Model %s: the mass matrix dF/dU' is singular at t = %g s (zero pivot in column %" PetscInt_FMT ")", model->type, (double)t, zero_pivot);
  MbsSmallLUSolve(n, form->E, form->pivots, form->rows, 1, form->rate);
  form->key[0] = t;
  PetscCall(PetscArraycpy(form->key + 1, u, n));
  PetscCall(PetscArraycpy(form->key + 1 + n, model->p, np));
  PetscFunctionReturn(0);
}

/* B <- E^{-1} B for ncol columns */
static PetscErrorCode MbsExplicitFormSolve_Private(MbsExplicitForm *form, PetscInt ncol, PetscReal B[])
{
  PetscFunctionBeginUser;
  MbsSmallLUSolve(form->n, form->E, form->pivots, form->rows, ncol, B);
  PetscFunctionReturn(0);
}

/*@C
  MbsModelFormResidual - The residual the integrator sees (see above). Not collective.
@*/
PetscErrorCode MbsModelFormResidual(MbsModel model, PetscReal t, const PetscReal u[], const PetscReal udot[], PetscReal f[])
{
  MbsExplicitForm form;

  PetscFunctionBeginUser;
  if (!MbsModelUsesExplicitForm(model)) {
    PetscCall(MbsModelResidual(model, t, u, udot, f));
    PetscFunctionReturn(0);
  }
  PetscCall(MbsExplicitFormSetUp_Private(model, t, u, &form));
  for (PetscInt i = 0; i < model->n; i++) f[i] = udot[i] - form.rate[i];
  PetscFunctionReturn(0);
}

/*@C
  MbsModelFormJacobian - dF/dU + shift dF/dU' of the form the integrator sees (n x n, column-major). Not collective.
@*/
PetscErrorCode MbsModelFormJacobian(MbsModel model, PetscReal t, const PetscReal u[], const PetscReal udot[], PetscReal shift, PetscReal J[])
{
  MbsExplicitForm form;
  PetscInt        n = model->n;

  PetscFunctionBeginUser;
  if (!MbsModelUsesExplicitForm(model)) {
    PetscCall(MbsModelJacobian(model, t, u, udot, shift, J));
    PetscFunctionReturn(0);
  }
  PetscCall(MbsExplicitFormSetUp_Private(model, t, u, &form));
  PetscCall(MbsModelJacobian(model, t, u, form.rate, 0.0, J));
  PetscCall(MbsExplicitFormSolve_Private(&form, n, J));
  for (PetscInt i = 0; i < n; i++) MBS_IJ(J, i, i, n) += shift;
  PetscFunctionReturn(0);
}

/*@C
  MbsModelFormJacobianP - dF/dp of the form the integrator sees (n x np, column-major). Not collective.
@*/
PetscErrorCode MbsModelFormJacobianP(MbsModel model, PetscReal t, const PetscReal u[], const PetscReal udot[], PetscReal Jp[])
{
  MbsExplicitForm form;

  PetscFunctionBeginUser;
  if (!MbsModelUsesExplicitForm(model)) {
    PetscCall(MbsModelJacobianP(model, t, u, udot, Jp));
    PetscFunctionReturn(0);
  }
  PetscCall(MbsExplicitFormSetUp_Private(model, t, u, &form));
  PetscCall(MbsModelJacobianP(model, t, u, form.rate, Jp));
  PetscCall(MbsExplicitFormSolve_Private(&form, model->np, Jp));
  PetscFunctionReturn(0);
}

/*@C
  MbsModelRate - The explicit form U' = g(t, U) = -E(U)^{-1} R(U) of an ODE model, for explicit integrators (TSRK). Not
  collective.
@*/
PetscErrorCode MbsModelRate(MbsModel model, PetscReal t, const PetscReal u[], PetscReal g[])
{
  MbsExplicitForm form;

  PetscFunctionBeginUser;
  PetscCall(MbsExplicitFormSetUp_Private(model, t, u, &form));
  PetscCall(PetscArraycpy(g, form.rate, model->n));
  PetscFunctionReturn(0);
}

/*@C
  MbsModelRateJacobian - dg/dU = -E^{-1} dF/dU at (U, U' = g(U)) (n x n, column-major). Not collective.
@*/
PetscErrorCode MbsModelRateJacobian(MbsModel model, PetscReal t, const PetscReal u[], PetscReal G[])
{
  MbsExplicitForm form;
  PetscInt        n = model->n;

  PetscFunctionBeginUser;
  PetscCall(MbsExplicitFormSetUp_Private(model, t, u, &form));
  PetscCall(MbsModelJacobian(model, t, u, form.rate, 0.0, G));
  PetscCall(MbsExplicitFormSolve_Private(&form, n, G));
  for (PetscInt i = 0; i < n * n; i++) G[i] = -G[i];
  PetscFunctionReturn(0);
}

/*@C
  MbsModelRateJacobianP - dg/dp = -E^{-1} dF/dp at (U, U' = g(U)) (n x np, column-major). Not collective.
@*/
PetscErrorCode MbsModelRateJacobianP(MbsModel model, PetscReal t, const PetscReal u[], PetscReal Gp[])
{
  MbsExplicitForm form;
  PetscInt        n = model->n;

  PetscFunctionBeginUser;
  PetscCall(MbsExplicitFormSetUp_Private(model, t, u, &form));
  PetscCall(MbsModelJacobianP(model, t, u, form.rate, Gp));
  PetscCall(MbsExplicitFormSolve_Private(&form, model->np, Gp));
  for (PetscInt i = 0; i < n * model->np; i++) Gp[i] = -Gp[i];
  PetscFunctionReturn(0);
}
