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

  The factored E and the rate are kept for the last (t, F(t), U, p): the excitation F(t) is part of the key because
  an input (nodal, sine, the model's own, a controller's force, or a base model's for a sensitivity-extended model)
  can change between two evaluations at the same (t, U, p), and the residual depends on it through F(t) alone.
*/
#include "core/coreimpl.h"

typedef struct {
  PetscReal *E, *rate, *work; /* LU of dF/dU', g(U), n x n scratch */
  PetscReal *key;             /* t, F(t), U, p of E and rate: 2 + n + np */
  PetscInt   n, *pivots;      /* MbsDenseLUFactor(): 3n */
} MbsExplicitForm;

/* whether every component of model is differential (an ODE), or some are algebraic (a DAE) */
PetscErrorCode MbsModelAllDifferential(MbsModel model, PetscBool *all)
{
  const PetscBool *differential;

  PetscFunctionBeginUser;
  PetscCall(MbsModelGetDifferentialInfo(model, &differential, NULL, NULL));
  *all = PETSC_TRUE;
  for (PetscInt i = 0; *all && i < model->n; i++) *all = differential[i];
  PetscFunctionReturn(0);
}

static PetscErrorCode MbsModelUsesExplicitForm(MbsModel model, PetscBool *uses)
{
  PetscBool constant_mass;

  PetscFunctionBeginUser;
  PetscCall(MbsModelGetDifferentialInfo(model, NULL, &constant_mass, NULL));
  *uses = PETSC_FALSE;
  if (!constant_mass) PetscCall(MbsModelAllDifferential(model, uses));
  PetscFunctionReturn(0);
}

/*
  Factors E(U) = dF/dU' and computes the rate g(U), in the model's cached workspace (no allocation per call). An
  adjoint step asks for dg/dU and dg/dp at the same stage: the factorisation of the last (t, F(t), U, p) is reused.
*/
static PetscErrorCode MbsExplicitFormSetUp_Private(MbsModel model, PetscReal t, const PetscReal u[], MbsExplicitForm *form)
{
  PetscInt         n = model->n, np = model->np;
  PetscReal        force, *work;
  const PetscReal *p;
  PetscBool        same, fresh, all;
  const char      *ode_form;

  PetscFunctionBeginUser;
  PetscCall(MbsModelAllDifferential(model, &all));
  PetscCall(MbsModelGetDifferentialInfo(model, NULL, NULL, &ode_form));
  PetscCheck(all, PETSC_COMM_SELF, PETSC_ERR_SUP, "Model %s is a DAE (algebraic components): it has no explicit form U' = g(U); integrate it with an implicit method (-ts_type cn, theta, beuler)%s%s%s", model->type, ode_form ? ", or take its ODE form (" : "", ode_form ? ode_form : "", ode_form ? ")" : "");
  PetscCall(MbsModelGetParametersRead(model, &p));
  PetscCall(MbsModelGetFormWork(model, 3 * n * n + 2 + n + np, 3 * n, &work, &form->pivots, &fresh));
  if (fresh) work[3 * n * n] = PETSC_MAX_REAL; /* no (t, F, U, p) yet */
  form->n    = n;
  form->E    = work;
  form->work = work + n * n;
  form->rate = work + 2 * n * n;
  form->key  = work + 3 * n * n;
  PetscCall(MbsModelExcitation(model, t, &force));
  same = (PetscBool)(form->key[0] == t && form->key[1] == force);
  if (same) PetscCall(PetscArraycmp(form->key + 2, u, n, &same));
  if (same) PetscCall(PetscArraycmp(form->key + 2 + n, p, np, &same));
  if (same) PetscFunctionReturn(0);
  PetscCall(MbsModelExplicitRate(model, t, u, form->E, form->work, form->pivots, form->rate));
  form->key[0] = t;
  form->key[1] = force;
  PetscCall(PetscArraycpy(form->key + 2, u, n));
  PetscCall(PetscArraycpy(form->key + 2 + n, p, np));
  PetscFunctionReturn(0);
}

/* B <- E^{-1} B for ncol columns */
static PetscErrorCode MbsExplicitFormSolve_Private(MbsExplicitForm *form, PetscInt ncol, PetscReal B[])
{
  PetscFunctionBeginUser;
  MbsDenseLUSolve(form->n, form->E, form->pivots, ncol, B);
  PetscFunctionReturn(0);
}

/*@C
  MbsModelFormResidual - The residual the integrator sees (see above). Not collective.
@*/
PetscErrorCode MbsModelFormResidual(MbsModel model, PetscReal t, const PetscReal u[], const PetscReal udot[], PetscReal f[])
{
  MbsExplicitForm form;
  PetscBool       uses;

  PetscFunctionBeginUser;
  PetscCall(MbsModelUsesExplicitForm(model, &uses));
  if (!uses) {
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
  PetscBool       uses;

  PetscFunctionBeginUser;
  PetscCall(MbsModelUsesExplicitForm(model, &uses));
  if (!uses) {
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
  PetscBool       uses;

  PetscFunctionBeginUser;
  PetscCall(MbsModelUsesExplicitForm(model, &uses));
  if (!uses) {
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

/*@C
  MbsModelRateAdjoint - The products of w with the explicit rate's derivatives at (t, U) without forming them:
  w^T dg/dU = -z^T dF/dU and w^T dg/dp = -z^T dF/dp with E^T z = w, one transposed solve with the factored E where dg/dU
  takes n solves and dg/dp np. wg_u gets n entries, wg_p the nid parameters id[] (may be NULL with nid = 0); work holds
  n (np + 1). Not collective.
@*/
PetscErrorCode MbsModelRateAdjoint(MbsModel model, PetscReal t, const PetscReal u[], const PetscReal w[], PetscInt nid, const PetscInt id[], PetscReal work[], PetscReal wg_u[], PetscReal wg_p[])
{
  static PetscLogEvent event = -1; /* the adjoint's unit of work, counted by test gradient_work */
  MbsExplicitForm      form;
  PetscInt             n = model->n;
  PetscReal           *z = work, *dFdU;

  PetscFunctionBeginUser;
  if (event < 0) PetscCall(PetscLogEventRegister("MbsRateAdjoint", TS_CLASSID, &event));
  PetscCall(PetscLogEventBegin(event, 0, 0, 0, 0));
  PetscCall(MbsExplicitFormSetUp_Private(model, t, u, &form));
  dFdU = form.work; /* scratch once E is factored */
  PetscCall(PetscArraycpy(z, w, n));
  MbsDenseLUSolveTranspose(n, form.E, form.pivots, z);
  PetscCall(MbsModelJacobian(model, t, u, form.rate, 0.0, dFdU));
  for (PetscInt j = 0; j < n; j++) {
    PetscReal sum = 0;

    for (PetscInt i = 0; i < n; i++) sum += z[i] * MBS_IJ(dFdU, i, j, n);
    wg_u[j] = -sum;
  }
  if (nid) PetscCall(MbsModelJacobianP(model, t, u, form.rate, work + n));
  for (PetscInt k = 0; k < nid; k++) {
    PetscReal sum = 0;

    for (PetscInt i = 0; i < n; i++) sum += z[i] * MBS_IJ(work + n, i, id[k], n);
    wg_p[k] = -sum;
  }
  PetscCall(PetscLogEventEnd(event, 0, 0, 0, 0));
  PetscFunctionReturn(0);
}
