/*
  Model oscillator2: two masses on a line (../shared/models/oscillator2.md, sections 1-2).

    ground --[c1 || d1]-- m1 --[c2 || d2]-- m2,    F(t) on m1,    y = x2 [m]

  State U = (x1, x2, v1, v2); residual

    F0 = x1' - v1
    F1 = x2' - v2
    F2 = m1 v1' - F(t) + c1 x1 + d1 v1 - c2 (x2 - x1) - d2 (v2 - v1)
    F3 = m2 v2'        + c2 (x2 - x1) + d2 (v2 - v1)

  The force is the design input of section 4 (design_input.c): -oscillator2_input zero|constant|sine,
  -oscillator2_force_max F_max = 10 N.

  The same equations describe bushing2 (two Kelvin-Voigt bushings), which reuses them through
  MbsTwoMassSetOps_Private() with its own parameter names and excitation. Both parameter tables use
  the order (m1, m2, c1 or k1, c2 or k2, d1, d2).
*/
#include "models/modelimpl.h"

enum {
  M1,
  M2,
  C1,
  C2,
  D1,
  D2,
  NP
};

static PetscErrorCode TwoMassResidual(MbsModel model, PetscReal t, const PetscReal u[], const PetscReal udot[], PetscReal f[])
{
  const PetscReal *p = model->p;
  PetscReal        force;

  PetscFunctionBeginUser;
  PetscCall(MbsModelExcitation(model, t, &force));
  f[0] = udot[0] - u[2];
  f[1] = udot[1] - u[3];
  f[2] = p[M1] * udot[2] - force + p[C1] * u[0] + p[D1] * u[2] - p[C2] * (u[1] - u[0]) - p[D2] * (u[3] - u[2]);
  f[3] = p[M2] * udot[3] + p[C2] * (u[1] - u[0]) + p[D2] * (u[3] - u[2]);
  PetscFunctionReturn(0);
}

static PetscErrorCode TwoMassJacobian(MbsModel model, PetscReal t, const PetscReal u[], const PetscReal udot[], PetscReal shift, PetscReal J[])
{
  const PetscReal *p = model->p;

  PetscFunctionBeginUser;
  MBS_IJ(J, 0, 0, 4) = shift;
  MBS_IJ(J, 0, 2, 4) = -1;
  MBS_IJ(J, 1, 1, 4) = shift;
  MBS_IJ(J, 1, 3, 4) = -1;
  MBS_IJ(J, 2, 0, 4) = p[C1] + p[C2];
  MBS_IJ(J, 2, 1, 4) = -p[C2];
  MBS_IJ(J, 2, 2, 4) = p[D1] + p[D2] + shift * p[M1];
  MBS_IJ(J, 2, 3, 4) = -p[D2];
  MBS_IJ(J, 3, 0, 4) = -p[C2];
  MBS_IJ(J, 3, 1, 4) = p[C2];
  MBS_IJ(J, 3, 2, 4) = -p[D2];
  MBS_IJ(J, 3, 3, 4) = p[D2] + shift * p[M2];
  PetscFunctionReturn(0);
}

static PetscErrorCode TwoMassJacobianP(MbsModel model, PetscReal t, const PetscReal u[], const PetscReal udot[], PetscReal Jp[])
{
  PetscFunctionBeginUser;
  MBS_IJ(Jp, 2, M1, 4) = udot[2];
  MBS_IJ(Jp, 3, M2, 4) = udot[3];
  MBS_IJ(Jp, 2, C1, 4) = u[0];
  MBS_IJ(Jp, 2, C2, 4) = -(u[1] - u[0]);
  MBS_IJ(Jp, 3, C2, 4) = u[1] - u[0];
  MBS_IJ(Jp, 2, D1, 4) = u[2];
  MBS_IJ(Jp, 2, D2, 4) = -(u[3] - u[2]);
  MBS_IJ(Jp, 3, D2, 4) = u[3] - u[2];
  PetscFunctionReturn(0);
}

/* dF/dU and dF/dU' are constant: the second derivatives are those of the parameter column dF/dp_j (linear in U, U') */
static PetscErrorCode TwoMassJacobianSensitivity(MbsModel model, PetscReal t, const PetscReal u[], const PetscReal udot[], const PetscReal s[], const PetscReal sdot[], PetscInt j, PetscReal shift, PetscReal D[])
{
  PetscFunctionBeginUser;
  switch (j) {
  case M1:
    MBS_IJ(D, 2, 2, 4) = shift;
    break;
  case M2:
    MBS_IJ(D, 3, 3, 4) = shift;
    break;
  case C1:
    MBS_IJ(D, 2, 0, 4) = 1;
    break;
  case C2:
    MBS_IJ(D, 2, 0, 4) = MBS_IJ(D, 3, 1, 4) = 1;
    MBS_IJ(D, 2, 1, 4) = MBS_IJ(D, 3, 0, 4) = -1;
    break;
  case D1:
    MBS_IJ(D, 2, 2, 4) = 1;
    break;
  case D2:
    MBS_IJ(D, 2, 2, 4) = MBS_IJ(D, 3, 3, 4) = 1;
    MBS_IJ(D, 2, 3, 4) = MBS_IJ(D, 3, 2, 4) = -1;
    break;
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode TwoMassOutput(MbsModel model, PetscReal t, const PetscReal u[], PetscReal *y, PetscReal dydu[])
{
  PetscFunctionBeginUser;
  *y = u[1];
  if (dydu) dydu[1] = 1;
  PetscFunctionReturn(0);
}

static PetscErrorCode TwoMassLinearize(MbsModel model, PetscReal M[], PetscReal C[], PetscReal K[])
{
  const PetscReal *p = model->p;

  PetscFunctionBeginUser;
  MBS_IJ(M, 0, 0, 2) = p[M1];
  MBS_IJ(M, 1, 1, 2) = p[M2];
  MBS_IJ(C, 0, 0, 2) = p[D1] + p[D2];
  MBS_IJ(C, 0, 1, 2) = MBS_IJ(C, 1, 0, 2) = -p[D2];
  MBS_IJ(C, 1, 1, 2)                      = p[D2];
  MBS_IJ(K, 0, 0, 2)                      = p[C1] + p[C2];
  MBS_IJ(K, 0, 1, 2) = MBS_IJ(K, 1, 0, 2) = -p[C2];
  MBS_IJ(K, 1, 1, 2)                      = p[C2];
  PetscFunctionReturn(0);
}

/*
  Sets up the two-mass equations for a model whose parameter table has the order (m1, m2, c1, c2, d1, d2);
  the caller sets the excitation.
*/
PetscErrorCode MbsTwoMassSetOps_Private(MbsModel model, const MbsParameterInfo info[])
{
  PetscFunctionBeginUser;
  PetscCall(MbsModelSetUp_Private(model, 4, 2, NP, info));
  model->ops.residual             = TwoMassResidual;
  model->ops.jacobian             = TwoMassJacobian;
  model->ops.jacobian_p           = TwoMassJacobianP;
  model->ops.jacobian_sensitivity = TwoMassJacobianSensitivity;
  model->ops.output               = TwoMassOutput;
  model->ops.linearize            = TwoMassLinearize;
  model->output_name              = "x2";
  model->output_unit              = "m";
  model->constant_mass            = PETSC_TRUE;
  model->force_coordinate         = 0; /* m1 */
  PetscFunctionReturn(0);
}

static const MbsParameterInfo Oscillator2Parameters[NP] = {
  {"m1", "kg",    "mass 1",                       1.0,    1e-6, 1e6, PETSC_TRUE},
  {"m2", "kg",    "mass 2",                       1.0,    1e-6, 1e6, PETSC_TRUE},
  {"c1", "N/m",   "ground-m1 stiffness",          1000.0, 0,    1e9, PETSC_TRUE},
  {"c2", "N/m",   "m1-m2 stiffness (identified)", 1100.0, 0,    1e9, PETSC_TRUE},
  {"d1", "N s/m", "ground-m1 damping",            1.0,    0,    1e6, PETSC_TRUE},
  {"d2", "N s/m", "m1-m2 damping",                1.0,    0,    1e6, PETSC_TRUE},
};

PetscErrorCode MbsModelCreate_Oscillator2(MbsModel model)
{
  PetscFunctionBeginUser;
  PetscCall(MbsTwoMassSetOps_Private(model, Oscillator2Parameters));
  PetscCall(MbsDesignInputCreate(model, MBS_DESIGN_INPUT_CONSTANT, 10.0));
  model->t0 = 0;
  model->tf = 1.0;
  model->dt = 1e-3;
  /* sections 4-8: b = c2, 101 nodes, v1(tf) = v2(tf) = 0 by rho_v = 1e-5, T_ref = 1e-11, E_RMS on c2 = 1000..1200 */
  model->design = (MbsDesignSpec){
    "c2", 101, 10.0, 2, {2,     3   },
        1e-5, 1e-11, 20000, 1e-3, { 0, 1e-6, 1e-4},
        3, { 1000, 1200,   21}
  };
  PetscFunctionReturn(0);
}
