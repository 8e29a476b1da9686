/*
  Model cart_pendulum_chain: a cart with a chain of three spring-coupled links
  (../shared/models/cart_pendulum_chain.md, sections 1-6 and 9).

  q = (x, phi1, phi2, phi3), absolute link angles from the downward vertical; y = phi1 [rad].
  With b_i, G_ij of section 4 (G symmetric, c_ij = cos(phi_i - phi_j), s_ij = sin(phi_i - phi_j)):

    M_xx x'' + sum_i b_i c_i phi_i''              = F(t) - d_c x' + sum_i b_i s_i phi_i'^2
    b_i c_i x'' + sum_j G_ij c_ij phi_j''         = - sum_{j != i} G_ij s_ij phi_j'^2 - g b_i s_i - c_f (Ks phi)_i - d_f (Ks phi')_i

  with Ks = [1 -1 0; -1 2 -1; 0 -1 1] (the joint springs and dampers), and the positioning pulse
  F(t) = F0 sin(2 pi t/t_p) sin^2(pi t/t_p) on [0, t_p], 0 afterwards (section 5).

  State U = (q, v), v = q'; residual F = [ q' - v ; M(q) v' - f(t, q, v) ].
*/
#include "models/modelimpl.h"

enum {
  MC,
  MLINK,
  LLINK,
  G,
  CF,
  DF,
  DC,
  F0,
  TP,
  NP
};

static const PetscReal Ks[3][3] = {
  {1,  -1, 0 },
  {-1, 2,  -1},
  {0,  -1, 1 }
};

/* The constants of section 4, from m, l and m_c */
typedef struct {
  PetscReal Mxx, b[3], Gm[3][3];
} ChainInertia;

static void ChainInertiaCompute(const PetscReal p[], ChainInertia *in)
{
  PetscReal m = p[MLINK], l = p[LLINK], ml2 = m * l * l;

  in->Mxx      = p[MC] + 3 * m;
  in->b[0]     = 2.5 * m * l;
  in->b[1]     = 1.5 * m * l;
  in->b[2]     = 0.5 * m * l;
  in->Gm[0][0] = 7.0 / 3.0 * ml2;
  in->Gm[1][1] = 4.0 / 3.0 * ml2;
  in->Gm[2][2] = 1.0 / 3.0 * ml2;
  in->Gm[0][1] = in->Gm[1][0] = 1.5 * ml2;
  in->Gm[0][2] = in->Gm[2][0] = 0.5 * ml2;
  in->Gm[1][2] = in->Gm[2][1] = 0.5 * ml2;
}

static PetscErrorCode ChainExcitation(MbsModel model, PetscReal t, PetscReal *force)
{
  const PetscReal *p = model->p;

  PetscFunctionBeginUser;
  /* piecewise: the product is not zero for t > t_p */
  if (t < 0 || t > p[TP]) *force = 0;
  else {
    PetscReal s = PetscSinReal(PETSC_PI * t / p[TP]);
    *force      = p[F0] * PetscSinReal(2 * PETSC_PI * t / p[TP]) * s * s;
  }
  PetscFunctionReturn(0);
}

/* The sines and cosines of the link angles and of their differences (s_ij = -s_ji, c_ij = c_ji), the differences by the
   addition theorems: three sincos per call instead of one per term, as the explicit form evaluates the residual and
   the mass matrix at every stage */
typedef struct {
  PetscReal s[3], c[3], sd[3][3], cd[3][3];
} ChainTrig;

static void ChainTrigCompute(const PetscReal phi[], ChainTrig *tr)
{
  for (PetscInt i = 0; i < 3; i++) {
    tr->s[i] = PetscSinReal(phi[i]);
    tr->c[i] = PetscCosReal(phi[i]);
  }
  for (PetscInt i = 0; i < 3; i++)
    for (PetscInt j = 0; j < 3; j++) {
      tr->sd[i][j] = i == j ? 0 : tr->s[i] * tr->c[j] - tr->c[i] * tr->s[j];
      tr->cd[i][j] = i == j ? 1 : tr->c[i] * tr->c[j] + tr->s[i] * tr->s[j];
    }
}

static PetscErrorCode ChainResidual(MbsModel model, PetscReal t, const PetscReal u[], const PetscReal udot[], PetscReal f[])
{
  const PetscReal *p = model->p, *phi = u + 1, *w = u + 5, *acc = udot + 5;
  ChainInertia     in;
  ChainTrig        tr;
  PetscReal        force;

  PetscFunctionBeginUser;
  ChainInertiaCompute(p, &in);
  ChainTrigCompute(phi, &tr);
  PetscCall(MbsModelExcitation(model, t, &force));
  for (PetscInt k = 0; k < 4; k++) f[k] = udot[k] - u[4 + k];
  f[4] = in.Mxx * udot[4] - force + p[DC] * u[4];
  for (PetscInt i = 0; i < 3; i++) {
    f[4] += in.b[i] * (tr.c[i] * acc[i] - tr.s[i] * w[i] * w[i]);
    f[5 + i] = in.b[i] * tr.c[i] * udot[4] + p[G] * in.b[i] * tr.s[i];
    for (PetscInt j = 0; j < 3; j++) f[5 + i] += in.Gm[i][j] * (tr.cd[i][j] * acc[j] + tr.sd[i][j] * w[j] * w[j]) + Ks[i][j] * (p[CF] * phi[j] + p[DF] * w[j]);
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode ChainJacobian(MbsModel model, PetscReal t, const PetscReal u[], const PetscReal udot[], PetscReal shift, PetscReal J[])
{
  const PetscReal *p = model->p, *phi = u + 1, *w = u + 5, *acc = udot + 5;
  ChainInertia     in;
  ChainTrig        tr;

  PetscFunctionBeginUser;
  ChainInertiaCompute(p, &in);
  ChainTrigCompute(phi, &tr);
  for (PetscInt k = 0; k < 4; k++) {
    MBS_IJ(J, k, k, 8)     = shift;
    MBS_IJ(J, k, 4 + k, 8) = -1;
  }
  MBS_IJ(J, 4, 4, 8) = p[DC] + shift * in.Mxx;
  for (PetscInt i = 0; i < 3; i++) {
    PetscReal si = tr.s[i], ci = tr.c[i];

    MBS_IJ(J, 4, 1 + i, 8) = -in.b[i] * (si * acc[i] + ci * w[i] * w[i]);
    MBS_IJ(J, 4, 5 + i, 8) = shift * in.b[i] * ci - 2 * in.b[i] * si * w[i];
    MBS_IJ(J, 5 + i, 4, 8) = shift * in.b[i] * ci;
    MBS_IJ(J, 5 + i, 1 + i, 8) += -in.b[i] * si * udot[4] + p[G] * in.b[i] * ci;
    for (PetscInt j = 0; j < 3; j++) {
      PetscReal sij = tr.sd[i][j], cij = tr.cd[i][j];
      /* d/dphi_i of G_ij (c_ij a_j + s_ij w_j^2) is the negative of d/dphi_j */
      PetscReal dphi = in.Gm[i][j] * (-sij * acc[j] + cij * w[j] * w[j]);

      MBS_IJ(J, 5 + i, 1 + i, 8) += dphi;
      MBS_IJ(J, 5 + i, 1 + j, 8) += -dphi + p[CF] * Ks[i][j];
      MBS_IJ(J, 5 + i, 5 + j, 8) += shift * in.Gm[i][j] * cij + 2 * in.Gm[i][j] * sij * w[j] + p[DF] * Ks[i][j];
    }
  }
  PetscFunctionReturn(0);
}

/* dF/dU' = diag(I, M(q)), without the rest of the Jacobian the explicit form would otherwise evaluate twice per stage */
static PetscErrorCode ChainMass(MbsModel model, PetscReal t, const PetscReal u[], PetscReal E[])
{
  ChainInertia in;
  ChainTrig    tr;

  PetscFunctionBeginUser;
  ChainInertiaCompute(model->p, &in);
  ChainTrigCompute(u + 1, &tr);
  for (PetscInt k = 0; k < 4; k++) MBS_IJ(E, k, k, 8) = 1;
  MBS_IJ(E, 4, 4, 8) = in.Mxx;
  for (PetscInt i = 0; i < 3; i++) {
    MBS_IJ(E, 4, 5 + i, 8) = MBS_IJ(E, 5 + i, 4, 8) = in.b[i] * tr.c[i];
    for (PetscInt j = 0; j < 3; j++) MBS_IJ(E, 5 + i, 5 + j, 8) = in.Gm[i][j] * tr.cd[i][j];
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode ChainJacobianP(MbsModel model, PetscReal t, const PetscReal u[], const PetscReal udot[], PetscReal Jp[])
{
  PetscFunctionBeginUser;
  MBS_IJ(Jp, 4, DC, 8) = u[4];
  for (PetscInt i = 0; i < 3; i++) {
    for (PetscInt j = 0; j < 3; j++) {
      MBS_IJ(Jp, 5 + i, CF, 8) += Ks[i][j] * u[1 + j];
      MBS_IJ(Jp, 5 + i, DF, 8) += Ks[i][j] * u[5 + j];
    }
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode ChainOutput(MbsModel model, PetscReal t, const PetscReal u[], PetscReal *y, PetscReal dydu[])
{
  PetscFunctionBeginUser;
  *y = u[1];
  if (dydu) dydu[1] = 1;
  PetscFunctionReturn(0);
}

/* Section 9: linearisation about the hanging rest state q = 0 */
static PetscErrorCode ChainLinearize(MbsModel model, PetscReal M[], PetscReal C[], PetscReal K[])
{
  const PetscReal *p = model->p;
  ChainInertia     in;

  PetscFunctionBeginUser;
  ChainInertiaCompute(p, &in);
  MBS_IJ(M, 0, 0, 4) = in.Mxx;
  MBS_IJ(C, 0, 0, 4) = p[DC];
  for (PetscInt i = 0; i < 3; i++) {
    MBS_IJ(M, 0, 1 + i, 4) = MBS_IJ(M, 1 + i, 0, 4) = in.b[i];
    MBS_IJ(K, 1 + i, 1 + i, 4)                      = p[G] * in.b[i];
    for (PetscInt j = 0; j < 3; j++) {
      MBS_IJ(M, 1 + i, 1 + j, 4) = in.Gm[i][j];
      MBS_IJ(K, 1 + i, 1 + j, 4) += p[CF] * Ks[i][j];
      MBS_IJ(C, 1 + i, 1 + j, 4) = p[DF] * Ks[i][j];
    }
  }
  PetscFunctionReturn(0);
}

static const MbsParameterInfo ChainParameters[NP] = {
  {"mc", "kg",        "cart mass",                                         1.0,   1e-6, 1e6, PETSC_FALSE},
  {"m",  "kg",        "mass of each link",                                 0.022, 1e-6, 1e6, PETSC_FALSE},
  {"l",  "m",         "length of each link",                               4.5,   1e-6, 1e3, PETSC_FALSE},
  {"g",  "m/s^2",     "gravity",                                           9.81,  1e-6, 1e3, PETSC_FALSE},
  {"cf", "N m/rad",   "joint stiffness (joints 2 and 3)",                  10.0,  1,    100, PETSC_TRUE },
  {"df", "N m s/rad", "joint damping (joints 2 and 3)",                    0.02,  1e-4, 1,   PETSC_TRUE },
  {"dc", "N s/m",     "cart friction (kept fixed in the spec's scenario)", 0.01,  0,    1e3, PETSC_TRUE },
  {"F0", "N",         "excitation amplitude",                              2.0,   0,    1e6, PETSC_FALSE},
  {"tp", "s",         "excitation duration",                               1.75,  1e-6, 1e6, PETSC_FALSE},
};

PetscErrorCode MbsModelCreate_CartPendulumChain(MbsModel model)
{
  PetscFunctionBeginUser;
  PetscCall(MbsModelSetUp_Private(model, 8, 4, NP, ChainParameters));
  model->ops.residual   = ChainResidual;
  model->ops.jacobian   = ChainJacobian;
  model->ops.jacobian_p = ChainJacobianP;
  model->ops.mass       = ChainMass;
  model->ops.output     = ChainOutput;
  model->ops.linearize  = ChainLinearize;
  model->ops.excitation = ChainExcitation;
  model->output_name    = "phi1";
  model->output_unit    = "rad";
  model->t0             = 0;
  model->tf             = 100.0;
  model->dt             = 0.01;
  model->dt_max         = 0.05; /* section 10: an adaptive first step must not jump over the pulse */
  PetscFunctionReturn(0);
}
