/*
  Model cart_pendulum: a cart with a pendulum hinged at its centre of mass
  (../shared/models/cart_pendulum.md, sections 1-2).

  q = (x_c, phi), phi the absolute angle from the downward vertical, y = phi [rad].

    M(q) = [ m_c + m_p        m_p s_p cos phi ]     r = [ F - d_c x_c' + m_p s_p sin phi phi'^2 ]
           [ m_p s_p cos phi  J_p + m_p s_p^2 ]         [ -d_p phi' - m_p g s_p sin phi        ]

  State U = (x_c, phi, v_c, w); residual F = [ q' - v ; M(q) v' - r(q, v) ]. The force is the design
  input of section 4 (design_input.c): -cart_pendulum_input, -cart_pendulum_force_max F_max = 5 N.
*/
#include "models/modelimpl.h"

enum {
  MC,
  MP,
  JP,
  SP,
  DC,
  DP,
  G,
  NP
};

static PetscErrorCode CartPendulumResidual(MbsModel model, PetscReal t, const PetscReal u[], const PetscReal udot[], PetscReal f[])
{
  const PetscReal *p = model->p;
  PetscReal        s = PetscSinReal(u[1]), c = PetscCosReal(u[1]), w = u[3], force;

  PetscFunctionBeginUser;
  PetscCall(MbsModelExcitation(model, t, &force));
  f[0] = udot[0] - u[2];
  f[1] = udot[1] - u[3];
  f[2] = (p[MC] + p[MP]) * udot[2] + p[MP] * p[SP] * c * udot[3] - (force - p[DC] * u[2] + p[MP] * p[SP] * s * w * w);
  f[3] = p[MP] * p[SP] * c * udot[2] + (p[JP] + p[MP] * p[SP] * p[SP]) * udot[3] + p[DP] * w + p[MP] * p[G] * p[SP] * s;
  PetscFunctionReturn(0);
}

static PetscErrorCode CartPendulumJacobian(MbsModel model, PetscReal t, const PetscReal u[], const PetscReal udot[], PetscReal shift, PetscReal J[])
{
  const PetscReal *p = model->p;
  PetscReal        s = PetscSinReal(u[1]), c = PetscCosReal(u[1]), w = u[3], mps = p[MP] * p[SP];

  PetscFunctionBeginUser;
  MBS_IJ(J, 0, 0, 4) = shift;
  MBS_IJ(J, 0, 2, 4) = -1;
  MBS_IJ(J, 1, 1, 4) = shift;
  MBS_IJ(J, 1, 3, 4) = -1;
  MBS_IJ(J, 2, 1, 4) = -mps * s * udot[3] - mps * c * w * w;
  MBS_IJ(J, 2, 2, 4) = p[DC] + shift * (p[MC] + p[MP]);
  MBS_IJ(J, 2, 3, 4) = shift * mps * c - 2 * mps * s * w;
  MBS_IJ(J, 3, 1, 4) = -mps * s * udot[2] + mps * p[G] * c;
  MBS_IJ(J, 3, 2, 4) = shift * mps * c;
  MBS_IJ(J, 3, 3, 4) = p[DP] + shift * (p[JP] + mps * p[SP]);
  PetscFunctionReturn(0);
}

static PetscErrorCode CartPendulumJacobianP(MbsModel model, PetscReal t, const PetscReal u[], const PetscReal udot[], PetscReal Jp[])
{
  const PetscReal *p = model->p;
  PetscReal        s = PetscSinReal(u[1]), c = PetscCosReal(u[1]), w = u[3];

  PetscFunctionBeginUser;
  MBS_IJ(Jp, 2, SP, 4) = p[MP] * c * udot[3] - p[MP] * s * w * w;
  MBS_IJ(Jp, 3, SP, 4) = p[MP] * c * udot[2] + 2 * p[MP] * p[SP] * udot[3] + p[MP] * p[G] * s;
  MBS_IJ(Jp, 2, DC, 4) = u[2];
  MBS_IJ(Jp, 3, DP, 4) = w;
  PetscFunctionReturn(0);
}

/*
  With G2 = (-mps s a_w - mps c w^2) S_phi + dc S_v - 2 mps s w S_w + (mc + mp) S_a + mps c S_aw + dF2/db_j and
       G3 = (-mps s a_v + mp g sp c) S_phi + dp S_w + mps c S_a + (Jp + mp sp^2) S_aw + dF3/db_j
  (a_v, a_w the accelerations in U', S_a, S_aw their sensitivities in S'), the derivatives by phi, w, a_v, a_w.
*/
static PetscErrorCode CartPendulumJacobianSensitivity(MbsModel model, PetscReal t, const PetscReal u[], const PetscReal udot[], const PetscReal S[], const PetscReal Sdot[], PetscInt j, PetscReal shift, PetscReal D[])
{
  const PetscReal *p = model->p;
  PetscReal        s = PetscSinReal(u[1]), c = PetscCosReal(u[1]), w = u[3], mps = p[MP] * p[SP];

  PetscFunctionBeginUser;
  MBS_IJ(D, 2, 1, 4) = (-mps * c * udot[3] + mps * s * w * w) * S[1] - 2 * mps * c * w * S[3] - mps * s * Sdot[3];
  MBS_IJ(D, 2, 3, 4) = -2 * mps * c * w * S[1] - 2 * mps * s * S[3] + shift * (-mps * s * S[1]);
  MBS_IJ(D, 3, 1, 4) = (-mps * c * udot[2] - p[MP] * p[G] * p[SP] * s) * S[1] - mps * s * Sdot[2];
  MBS_IJ(D, 3, 2, 4) = shift * (-mps * s * S[1]);
  switch (j) {
  case SP: /* dF2/dsp = mp c a_w - mp s w^2, dF3/dsp = mp c a_v + 2 mp sp a_w + mp g s */
    MBS_IJ(D, 2, 1, 4) += -p[MP] * s * udot[3] - p[MP] * c * w * w;
    MBS_IJ(D, 2, 3, 4) += -2 * p[MP] * s * w + shift * p[MP] * c;
    MBS_IJ(D, 3, 1, 4) += -p[MP] * s * udot[2] + p[MP] * p[G] * c;
    MBS_IJ(D, 3, 2, 4) += shift * p[MP] * c;
    MBS_IJ(D, 3, 3, 4) += shift * 2 * p[MP] * p[SP];
    break;
  case DC: /* dF2/ddc = v */
    MBS_IJ(D, 2, 2, 4) += 1;
    break;
  case DP: /* dF3/ddp = w */
    MBS_IJ(D, 3, 3, 4) += 1;
    break;
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode CartPendulumOutput(MbsModel model, PetscReal t, const PetscReal u[], PetscReal *y, PetscReal dydu[])
{
  PetscFunctionBeginUser;
  *y = u[1];
  if (dydu) dydu[1] = 1;
  PetscFunctionReturn(0);
}

static PetscErrorCode CartPendulumLinearize(MbsModel model, PetscReal M[], PetscReal C[], PetscReal K[])
{
  const PetscReal *p = model->p;

  PetscFunctionBeginUser;
  MBS_IJ(M, 0, 0, 2) = p[MC] + p[MP];
  MBS_IJ(M, 0, 1, 2) = MBS_IJ(M, 1, 0, 2) = p[MP] * p[SP];
  MBS_IJ(M, 1, 1, 2)                      = p[JP] + p[MP] * p[SP] * p[SP];
  MBS_IJ(C, 0, 0, 2)                      = p[DC];
  MBS_IJ(C, 1, 1, 2)                      = p[DP];
  MBS_IJ(K, 1, 1, 2)                      = p[MP] * p[G] * p[SP];
  PetscFunctionReturn(0);
}

static const MbsParameterInfo CartPendulumParameters[NP] = {
  {"mc", "kg",        "cart mass",                                 2.0,  1e-6, 1e6, PETSC_FALSE},
  {"mp", "kg",        "pendulum mass",                             0.5,  1e-6, 1e6, PETSC_FALSE},
  {"Jp", "kg m^2",    "pendulum inertia about its centre of mass", 0.01, 0,    1e6, PETSC_FALSE},
  {"sp", "m",         "joint to centre of mass (identified)",      0.25, 1e-6, 1e3, PETSC_TRUE },
  {"dc", "N s/m",     "cart-ground viscous friction",              1.0,  0,    1e6, PETSC_TRUE },
  {"dp", "N m s/rad", "joint viscous friction (identified)",       0.02, 0,    1e6, PETSC_TRUE },
  {"g",  "m/s^2",     "gravity",                                   9.81, 0,    1e3, PETSC_FALSE},
};

PetscErrorCode MbsModelCreate_CartPendulum(MbsModel model)
{
  PetscFunctionBeginUser;
  PetscCall(MbsModelSetUp_Private(model, 4, 2, NP, CartPendulumParameters));
  model->ops.residual             = CartPendulumResidual;
  model->ops.jacobian             = CartPendulumJacobian;
  model->ops.jacobian_p           = CartPendulumJacobianP;
  model->ops.jacobian_sensitivity = CartPendulumJacobianSensitivity;
  model->ops.output               = CartPendulumOutput;
  model->ops.linearize            = CartPendulumLinearize;
  model->force_coordinate         = 0; /* the cart */
  PetscCall(MbsDesignInputCreate(model, MBS_DESIGN_INPUT_CONSTANT, 5.0));
  model->output_name = "phi";
  model->output_unit = "rad";
  model->t0          = 0;
  model->tf          = 2.0;
  model->dt          = 1e-3;
  /* sections 4-8: b = (sp, dp), 101 nodes, phi = v_c = w = 0 at tf by rho_e = 1e4, E_RMS on +-10 % of both */
  model->design = (MbsDesignSpec){
    .parameters = "sp,dp", .nodes = 101, .force_max = 5.0, .nend = 3, .end = {1,      2,     3 },
                  .end_weight = 1e4, .cost_scale = 1, .max_it = 600, .sample_dt = 1e-3, .nnoise = 1, .grid = { 0.225, 0.275, 11, 0.018, 0.022, 11}
  };
  PetscFunctionReturn(0);
}
