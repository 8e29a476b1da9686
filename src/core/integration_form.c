/*
  The form of a model that the time integrator and its adjoint see.

  PETSc's discrete adjoint of the theta methods is exact only when dF/dU' is constant: it evaluates the
  mass matrix of a step at the step's start, where the forward step used the end. A model whose mass
  matrix depends on the state, F = E(U) U' + R(U), is therefore integrated in its explicit form

    F_x(U, U') = U' - g(U),   g(U) = -E(U)^{-1} R(U)   (= E^{-1} F),

  with dF_x/dU = E^{-1} dF/dU and dF_x/dp = E^{-1} dF/dp, both evaluated at (U, U' = g(U)), where F = 0.
  Models with a constant mass matrix (and DAE models, whose E is singular) are integrated as they are.
*/
#include "core/coreimpl.h"
#include <petscblaslapack.h>

typedef struct {
  PetscReal   *E, *rate, *work;
  PetscBLASInt n, *pivots;
} MbsExplicitForm;

static PetscBool MbsModelUsesExplicitForm(MbsModel model)
{
  if (model->constant_mass) return PETSC_FALSE;
  for (PetscInt i = 0; i < model->n; i++)
    if (!model->differential[i]) return PETSC_FALSE;
  return PETSC_TRUE;
}

/* Factors E(U) and computes the rate g(U) */
static PetscErrorCode MbsExplicitFormSetUp_Private(MbsModel model, PetscReal t, const PetscReal u[], MbsExplicitForm *form)
{
  PetscInt     n   = model->n;
  PetscBLASInt one = 1, info;

  PetscFunctionBeginUser;
  PetscCall(PetscBLASIntCast(n, &form->n));
  PetscCall(PetscMalloc4(n * n, &form->E, n, &form->rate, n * n, &form->work, n, &form->pivots));
  PetscCall(PetscArrayzero(form->work, n)); /* U' = 0: the residual is R(U) */
  PetscCall(MbsModelResidual(model, t, u, form->work, form->rate));
  for (PetscInt i = 0; i < n; i++) form->rate[i] = -form->rate[i];
  PetscCall(MbsModelJacobian(model, t, u, form->rate, 1.0, form->E));
  PetscCall(MbsModelJacobian(model, t, u, form->rate, 0.0, form->work));
  for (PetscInt i = 0; i < n * n; i++) form->E[i] -= form->work[i];
  PetscCallBLAS("LAPACKgetrf", LAPACKgetrf_(&form->n, &form->n, form->E, &form->n, form->pivots, &info));
  PetscCheck(info == 0, PETSC_COMM_SELF, PETSC_ERR_MAT_LU_ZRPVT, "Model %s: the mass matrix dF/dU' is singular at t = %g s (LAPACK info %d)", model->type, (double)t, (int)info);
  PetscCallBLAS("LAPACKgetrs", LAPACKgetrs_("N", &form->n, &one, form->E, &form->n, form->pivots, form->rate, &form->n, &info));
  PetscFunctionReturn(0);
}

/* B <- E^{-1} B for ncol columns */
static PetscErrorCode MbsExplicitFormSolve_Private(MbsExplicitForm *form, PetscInt ncol, PetscReal B[])
{
  PetscBLASInt nrhs, info;

  PetscFunctionBeginUser;
  PetscCall(PetscBLASIntCast(ncol, &nrhs));
  PetscCallBLAS("LAPACKgetrs", LAPACKgetrs_("N", &form->n, &nrhs, form->E, &form->n, form->pivots, B, &form->n, &info));
  PetscFunctionReturn(0);
}

static PetscErrorCode MbsExplicitFormDestroy_Private(MbsExplicitForm *form)
{
  PetscFunctionBeginUser;
  PetscCall(PetscFree4(form->E, form->rate, form->work, form->pivots));
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
  PetscCall(MbsExplicitFormDestroy_Private(&form));
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
  PetscCall(MbsExplicitFormDestroy_Private(&form));
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
  PetscCall(MbsExplicitFormDestroy_Private(&form));
  PetscFunctionReturn(0);
}
