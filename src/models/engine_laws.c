/*
  The closed-form laws of the engine4 model (../shared/models/engine4.md): the cylinder pressure p(psi, N) of
  section 6 with its crank-angle derivative, and the dual-mass-flywheel torque T_DMF(phi) of section 7 with its
  derivative. Parameters as in sections 3.2, 3.4 and 3.5.
*/
#include "models/modelimpl.h"

static PetscReal Degrees(PetscReal degrees)
{
  return degrees * PETSC_PI / 180;
}

/*@C
  MbsEngineLawsDefault - The spec's values of the crank drive, cylinder pressure and DMF parameters. Not collective.
@*/
void MbsEngineLawsDefault(MbsEngineLaws *laws)
{
  laws->r_cs    = 0.043;
  laws->l_cr    = 0.145;
  laws->s_cr    = 0.042;
  laws->m_cr    = 0.55;
  laws->J_cr    = 2.0e-3;
  laws->m_p     = 0.42;
  laws->A_P     = PETSC_PI * 0.086 * 0.086 / 4;
  laws->V_d     = 2 * laws->r_cs * laws->A_P;
  laws->V_c     = laws->V_d / (10.5 - 1);
  laws->p_in    = 1.0e5;
  laws->p_cc    = 1.0e5;
  laws->kappa   = 1.32;
  laws->PR0     = 4.4;
  laws->PR2     = 0.6;
  laws->soc0    = Degrees(-8);
  laws->soc1    = Degrees(-12);
  laws->dpsi0   = Degrees(45);
  laws->dpsi1   = Degrees(15);
  laws->a_W     = 6.908;
  laws->m_W     = 2;
  laws->psi_EVO = Degrees(130);
  laws->k1      = 172.0;
  laws->k2      = 860.0;
  laws->phi1    = 0.436;
  laws->eps_DMF = 0.05;
  laws->d_DMF   = 4.0;
}

/*@C
  MbsCylinderPressure - Absolute pressure p [Pa] in a cylinder at crank angle psi [rad] (firing TDC at 0 mod 4 pi) and
  speed N [rpm], and dp/dpsi (may be NULL). Not collective.
@*/
void MbsCylinderPressure(const MbsEngineLaws *laws, PetscReal psi, PetscReal N, PetscReal *p, PetscReal *dp)
{
  const PetscReal r = laws->r_cs, l = laws->l_cr, s = psi - 4 * PETSC_PI * PetscFloorReal((psi + 2 * PETSC_PI) / (4 * PETSC_PI));
  PetscReal       root, V, dV, p_m, dp_m, x, soc, dpsi, PR, z, x_b, dx_b, b = 1, db = 0;

  if (PetscAbsReal(s) >= PETSC_PI) { /* intake and exhaust strokes */
    *p = laws->p_in;
    if (dp) *dp = 0;
    return;
  }
  root = PetscSqrtReal(l * l - r * r * PetscSinReal(s) * PetscSinReal(s));
  V    = laws->V_c + laws->A_P * (r + l - r * PetscCosReal(s) - root);
  dV   = laws->A_P * (r * PetscSinReal(s) + r * r * PetscSinReal(s) * PetscCosReal(s) / root);
  p_m  = laws->p_in * PetscPowReal((laws->V_c + laws->V_d) / V, laws->kappa);
  dp_m = -laws->kappa * p_m * dV / V;
  x    = (N - 1000) / 5000;
  soc  = laws->soc0 + laws->soc1 * x;
  dpsi = laws->dpsi0 + laws->dpsi1 * x;
  PR   = laws->PR0 - laws->PR2 * PetscSqr((N - 4000) / 3000);
  z    = PetscMax(0, (s - soc) / dpsi);
  x_b  = 1 - PetscExpReal(-laws->a_W * PetscPowReal(z, laws->m_W + 1));
  dx_b = z > 0 ? laws->a_W * (laws->m_W + 1) * PetscPowReal(z, laws->m_W) * PetscExpReal(-laws->a_W * PetscPowReal(z, laws->m_W + 1)) / dpsi : 0;
  if (s > laws->psi_EVO) { /* blow-down */
    PetscReal u = (s - laws->psi_EVO) / (PETSC_PI - laws->psi_EVO);

    b  = PetscSqr(PetscCosReal(0.5 * PETSC_PI * u));
    db = -0.5 * PETSC_PI * PetscSinReal(PETSC_PI * u) / (PETSC_PI - laws->psi_EVO);
  }
  *p = p_m * (1 + (PR - 1) * x_b * b);
  if (dp) *dp = dp_m * (1 + (PR - 1) * x_b * b) + p_m * (PR - 1) * (dx_b * b + x_b * db);
}

/*@C
  MbsDmfTorque - DMF torque T [N m] transmitted at the twist phi = q1 - q0 [rad], and dT/dphi (may be NULL). Not collective.
@*/
void MbsDmfTorque(const MbsEngineLaws *laws, PetscReal phi, PetscReal *T, PetscReal *dT)
{
  const PetscReal e = laws->eps_DMF, a = phi - laws->phi1, b = -phi - laws->phi1;
  const PetscReal sa = PetscSqrtReal(a * a + e * e), sb = PetscSqrtReal(b * b + e * e);

  *T = laws->k1 * phi + (laws->k2 - laws->k1) * (0.5 * (a + sa) - 0.5 * (b + sb));
  if (dT) *dT = laws->k1 + (laws->k2 - laws->k1) * (0.5 * (1 + a / sa) + 0.5 * (1 + b / sb));
}

/*@C
  MbsSliderCrankPosition - Conrod and piston position at crank angle theta [rad] by the exact elimination of section 8
  (branch cos beta > 0), with their derivatives d/dtheta. Not collective.
@*/
void MbsSliderCrankPosition(const MbsEngineLaws *laws, PetscReal theta, MbsSliderCrank *sc)
{
  const PetscReal r = laws->r_cs, l = laws->l_cr, s = laws->s_cr, lambda = r / l, st = PetscSinReal(theta), ct = PetscCosReal(theta);
  const PetscReal sb = lambda * st, cb = PetscSqrtReal(1 - sb * sb);

  sc->beta  = PetscAsinReal(sb);
  sc->x     = s * sb - r * st;
  sc->y     = r * ct + s * cb;
  sc->z     = r * ct + l * cb;
  sc->dbeta = lambda * ct / cb;
  sc->dx    = s * cb * sc->dbeta - r * ct;
  sc->dy    = -r * st - s * sb * sc->dbeta;
  sc->dz    = -r * st - l * sb * sc->dbeta;
}

/*@C
  MbsReducedInertia - J_rec(theta) = m_cr (x'^2 + y'^2) + J_cr beta'^2 + m_p z'^2 [kg m^2], the inertia one crank drive adds
  to its crank throw. Not collective.
@*/
PetscReal MbsReducedInertia(const MbsEngineLaws *laws, PetscReal theta)
{
  MbsSliderCrank sc;

  MbsSliderCrankPosition(laws, theta, &sc);
  return laws->m_cr * (sc.dx * sc.dx + sc.dy * sc.dy) + laws->J_cr * sc.dbeta * sc.dbeta + laws->m_p * sc.dz * sc.dz;
}

/*@C
  MbsReducedInertiaDerivatives - J_rec(theta) with dJ_rec/dtheta and d2J_rec/dtheta2 (jet[0..2]) [kg m^2/rad^k], and the
  piston's dz/dtheta and d2z/dtheta2 (dz[0..1]) [m/rad^k], for the minimal-coordinate equations of engine4 and their
  Jacobian. With w = cos(beta) = sqrt(h), h = 1 - lambda^2 sin^2(theta), every coordinate of the slider crank is a
  function of sin(theta), cos(theta) and w, so its derivatives up to the third are closed forms. Not collective.
@*/
void MbsReducedInertiaDerivatives(const MbsEngineLaws *laws, PetscReal theta, PetscReal jet[3], PetscReal dz[2])
{
  const PetscReal r = laws->r_cs, l = laws->l_cr, s = laws->s_cr, lambda = r / l, st = PetscSinReal(theta), ct = PetscCosReal(theta);
  const PetscReal s2 = 2 * st * ct, c2 = ct * ct - st * st, w = PetscSqrtReal(1 - lambda * lambda * st * st);
  const PetscReal h1 = -lambda * lambda * s2, h2 = -2 * lambda * lambda * c2, h3 = 4 * lambda * lambda * s2; /* derivatives of h */
  const PetscReal w1 = h1 / (2 * w), w2 = h2 / (2 * w) - h1 * h1 / (4 * w * w * w);
  const PetscReal w3 = h3 / (2 * w) - 3 * h1 * h2 / (4 * w * w * w) + 3 * h1 * h1 * h1 / (8 * w * w * w * w * w);
  /* first, second and third derivatives of x, y, z and beta */
  const PetscReal x[3] = {(s * lambda - r) * ct, -(s * lambda - r) * st, -(s * lambda - r) * ct};
  const PetscReal y[3] = {-r * st + s * w1, -r * ct + s * w2, r * st + s * w3};
  const PetscReal z[3] = {-r * st + l * w1, -r * ct + l * w2, r * st + l * w3};
  const PetscReal b[3] = {lambda * ct / w, -lambda * st / w - lambda * ct * w1 / (w * w), -lambda * ct / w + 2 * lambda * st * w1 / (w * w) - lambda * ct * w2 / (w * w) + 2 * lambda * ct * w1 * w1 / (w * w * w)};
  const PetscReal m_cr = laws->m_cr, J_cr = laws->J_cr, m_p = laws->m_p;

  jet[0] = m_cr * (x[0] * x[0] + y[0] * y[0]) + J_cr * b[0] * b[0] + m_p * z[0] * z[0];
  jet[1] = 2 * (m_cr * (x[0] * x[1] + y[0] * y[1]) + J_cr * b[0] * b[1] + m_p * z[0] * z[1]);
  jet[2] = 2 * (m_cr * (x[1] * x[1] + x[0] * x[2] + y[1] * y[1] + y[0] * y[2]) + J_cr * (b[1] * b[1] + b[0] * b[2]) + m_p * (z[1] * z[1] + z[0] * z[2]));
  dz[0]  = z[0];
  dz[1]  = z[1];
}

/*@C
  MbsReducedInertiaMean - The cycle mean of J_rec [kg m^2]: J_rec is smooth and 2 pi periodic, so the trapezoidal rule on
  a uniform grid converges geometrically. Not collective.
@*/
PetscReal MbsReducedInertiaMean(const MbsEngineLaws *laws)
{
  const PetscInt n   = 1024;
  PetscReal      sum = 0;

  for (PetscInt i = 0; i < n; i++) sum += MbsReducedInertia(laws, 2 * PETSC_PI * i / n);
  return sum / n;
}

/*@C
  MbsGasTorqueMean - The cycle-mean gas torque of the four cylinders at speed N [rpm], (1/4 pi) int sum_i -(p - p_cc) A_P z'
  over one 720 degree cycle [N m], by the midpoint rule (p is C1, so the rule converges as h^2). Not collective.
@*/
PetscReal MbsGasTorqueMean(const MbsEngineLaws *laws, PetscReal N)
{
  const PetscInt n   = 20000;
  PetscReal      sum = 0, h = 4 * PETSC_PI / n;

  for (PetscInt i = 0; i < n; i++) {
    PetscReal      psi = -2 * PETSC_PI + (i + 0.5) * h, p;
    MbsSliderCrank sc;

    MbsCylinderPressure(laws, psi, N, &p, NULL);
    MbsSliderCrankPosition(laws, psi, &sc);
    sum += -(p - laws->p_cc) * laws->A_P * sc.dz * h;
  }
  return 4 * sum / (4 * PETSC_PI);
}
