/*
  Model engine4: a four-cylinder crank train with dual mass flywheel, torsional vibration damper (TVD) and pulley
  on a run-up (../shared/models/engine4.md), in the spec's 26 redundant coordinates with its 16 slider-crank
  constraints, y = q6 - q1 [rad].

  Formulation. The index-3 DAE M q'' + C_q^T lambda = f, C(q) = 0 is integrated in the stabilised index-2 form of
  Gear, Gupta and Leimkuhler (GGL), whose mass matrix is the constant M of section 4, as PETSc's theta-method
  adjoint requires:

    q' - v + C_q^T mu       = 0     (26)    mu = 0 on the exact solution; it keeps C(q) = 0 without drift
    M v' + C_q^T lambda - f = 0     (26)    rows 24, 25 (massless Maxwell nodes) are the algebraic f24 = f25 = 0
    C_q(q) v                = 0     (16)
    C(q)                    = 0     (16)

  State U = (u, w, lambda, mu), 84 unknowns. Crank-Nicolson averages each algebraic row over a step, so C(q_n) = 0
  holds at every step to the nonlinear solver's tolerance once it holds at t0.

  Deviation variables (section 13): the rotating coordinates (q1..q6, q23..q26) are integrated as
  u_k = q_k - q0(t) - delta_k, w_k = v_k - q0'(t), so the twists that the springs see (1e-3 rad) are not the
  difference of two angles of 2e3 rad. Conrods and pistons keep their absolute coordinates (m, rad). The cylinder
  pressure and the constraints use the absolute crank angle q0(t) + delta_k + u_k in double precision.

  Every spring and damper is a two-node element (or one to the ground), so forces, Jacobians, dF/dp and the
  linearisation all loop over one table. The identified parameters are the four Maxwell constants c*1, c*2, d*1,
  d*2 (cstar1, cstar2, dstar1, dstar2); the crank, the crank drive, the DMF and the pressure law are the spec's.

  Linearisation (V1 of section 12): at standstill with the constraints eliminated exactly, in the 10 coordinates
  (q1..q6, q23, q24, q25, q26): throw k carries J_k + J_rec(phi_ref + delta_k), or the cycle-mean inertia;
  the massless Maxwell nodes keep their zero mass (-engine4_modal_angle, -engine4_modal_mean_inertia,
  -engine4_modal_dmf_twist).
*/
#include "models/modelimpl.h"

#define NC     26 /* coordinates */
#define NL     16 /* constraints */
#define NSTATE (2 * NC + 2 * NL)
#define NMODAL 10 /* coordinates of the linearisation */

enum {
  CS1,
  CS2,
  DS1,
  DS2,
  CPAR,
  JTVD,
  JPW,
  CPW,
  DPW,
  DCRANK,
  NP
};

static const MbsParameterInfo Engine4Parameters[] = {
  {"cstar1",    "N m/rad",   "TVD Maxwell element 1 spring c*1",       12000.0, 100.0, 1e7, PETSC_TRUE },
  {"cstar2",    "N m/rad",   "TVD Maxwell element 2 spring c*2",       16000.0, 100.0, 1e7, PETSC_TRUE },
  {"dstar1",    "N m s/rad", "TVD Maxwell element 1 damper d*1",       2.4,     1e-3,  1e4, PETSC_TRUE },
  {"dstar2",    "N m s/rad", "TVD Maxwell element 2 damper d*2",       19.0,    1e-3,  1e4, PETSC_TRUE },
  {"cstar_par", "N m/rad",   "TVD parallel spring hub-ring c*_par",    15000.0, 0,     1e7, PETSC_FALSE},
  {"J_TVD",     "kg m^2",    "TVD ring inertia",                       0.005,   1e-6,  10,  PETSC_FALSE},
  {"J_PW",      "kg m^2",    "pulley wheel inertia",                   0.003,   1e-6,  10,  PETSC_FALSE},
  {"c_PW",      "N m/rad",   "hub-pulley stiffness",                   2.0e5,   0,     1e9, PETSC_FALSE},
  {"d_PW",      "N m s/rad", "hub-pulley damping",                     2.0,     0,     1e4, PETSC_FALSE},
  {"d_crank",   "N m s/rad", "crank material damping of each section", 3.0,     0,     1e4, PETSC_FALSE},
};

/* Coordinates (0-based): q1..q6 -> 0..5, conrod i -> 6+3i (x, y, beta), piston i -> 18+i, ring, nodes, pulley */
enum {
  CONROD = 6,
  PISTON = 18,
  RING   = 22,
  NODE1  = 23,
  NODE2  = 24,
  PULLEY = 25,
  GROUND = -1
};

static const PetscReal CrankOffset[6] = {0, 0, PETSC_PI, 3 * PETSC_PI, 2 * PETSC_PI, 0}; /* delta of section 5.1 */

static PetscBool Rotating(PetscInt k)
{
  return (PetscBool)(k < CONROD || k >= RING);
}

/* Index in the linearisation's coordinates (q1..q6, q23..q26) of a rotating coordinate */
static PetscInt ModalIndex(PetscInt k)
{
  return k < CONROD ? k : k - (RING - CONROD);
}

static PetscReal Offset(PetscInt k)
{
  return k < CONROD ? CrankOffset[k] : 0;
}

/* A linear spring (on u) or damper (on w) between coordinates a and b (b = GROUND: to the fixed secondary side) */
typedef struct {
  PetscInt  a, b;
  PetscBool damper;
  PetscInt  param; /* index into the model's parameters, or -1 with the fixed value */
  PetscReal value;
} Engine4Element;

#define NELEMENT 18

/* The coordinates the model is integrated in: the spec's redundant DAE, or the exact elimination of section 8 */
typedef enum {
  ENGINE4_DAE,
  ENGINE4_MINIMAL
} Engine4Formulation;

static const char *const Engine4Formulations[] = {"dae", "minimal", "Engine4Formulation", "ENGINE4_", NULL};

typedef struct {
  Engine4Formulation formulation;
  MbsEngineLaws      laws;
  MbsSpeedProfile    speed;
  PetscReal          J_crank[6];
  Engine4Element     element[NELEMENT];
  PetscReal          modal_angle, modal_dmf_twist;
  PetscBool          modal_mean_inertia;
  PetscBool          preload; /* start with the DMF twisted by the mean torque, not at zero twist */
} Engine4;

/* The prescribed secondary side at time t: angle q0 [rad], rate q0' and q0'' [rad/s, rad/s^2], speed N [rpm] */
typedef struct {
  PetscReal q0, v0, a0, N;
} Engine4Drive;

static Engine4Drive Engine4DriveAt(const Engine4 *e, PetscReal t)
{
  Engine4Drive drive;

  MbsSpeedProfileAngle(&e->speed, t, &drive.q0, &drive.N);
  drive.v0 = 2 * PETSC_PI / 60 * drive.N;
  drive.a0 = MbsSpeedProfileAcceleration(&e->speed, t);
  return drive;
}

static void Engine4Mass(const Engine4 *e, const PetscReal p[], PetscReal m[])
{
  for (PetscInt k = 0; k < 6; k++) m[k] = e->J_crank[k];
  for (PetscInt i = 0; i < 4; i++) {
    m[CONROD + 3 * i] = m[CONROD + 3 * i + 1] = e->laws.m_cr;
    m[CONROD + 3 * i + 2]                     = e->laws.J_cr;
    m[PISTON + i]                             = e->laws.m_p;
  }
  m[RING]   = p[JTVD];
  m[NODE1]  = 0;
  m[NODE2]  = 0;
  m[PULLEY] = p[JPW];
}

static PetscReal ElementValue(const Engine4Element *el, const PetscReal p[])
{
  return el->param >= 0 ? p[el->param] : el->value;
}

/* Absolute coordinates and rates from the state */
static void Engine4Absolute(const Engine4Drive *drive, const PetscReal u[], PetscReal q[], PetscReal v[])
{
  for (PetscInt k = 0; k < NC; k++) {
    q[k] = u[k] + (Rotating(k) ? drive->q0 + Offset(k) : 0);
    v[k] = u[NC + k] + (Rotating(k) ? drive->v0 : 0);
  }
}

/*
  The four constraints of cylinder i (rows 4i..4i+3) at crank angle th and conrod angle be: values, the non-unit
  entries of C_q (columns of th and be; rows 1, 2, 3 also have a 1 in the column of x, y, z) and the second
  derivatives d2C/dth2, d2C/dbe2 (C has no mixed second derivatives).
*/
typedef struct {
  PetscInt  th, be, unit[4]; /* columns; unit[r] < 0: none */
  PetscReal C[4], dth[4], dbe[4], hth[4], hbe[4];
} Engine4Cylinder;

static void Engine4CylinderAt(const MbsEngineLaws *laws, PetscInt i, const PetscReal q[], Engine4Cylinder *cyl)
{
  const PetscReal r = laws->r_cs, l = laws->l_cr, s = laws->s_cr;
  PetscReal       st, ct, sb, cb;

  cyl->th      = 1 + i;
  cyl->be      = CONROD + 3 * i + 2;
  cyl->unit[0] = -1;
  cyl->unit[1] = CONROD + 3 * i;
  cyl->unit[2] = CONROD + 3 * i + 1;
  cyl->unit[3] = PISTON + i;
  st           = PetscSinReal(q[cyl->th]);
  ct           = PetscCosReal(q[cyl->th]);
  sb           = PetscSinReal(q[cyl->be]);
  cb           = PetscCosReal(q[cyl->be]);
  cyl->C[0]    = r * st - l * sb;
  cyl->C[1]    = q[cyl->unit[1]] + r * st - s * sb;
  cyl->C[2]    = q[cyl->unit[2]] - r * ct - s * cb;
  cyl->C[3]    = q[cyl->unit[3]] - r * ct - l * cb;
  cyl->dth[0] = cyl->dth[1] = r * ct;
  cyl->dth[2] = cyl->dth[3] = r * st;
  cyl->dbe[0]               = -l * cb;
  cyl->dbe[1]               = -s * cb;
  cyl->dbe[2]               = s * sb;
  cyl->dbe[3]               = l * sb;
  cyl->hth[0] = cyl->hth[1] = -r * st;
  cyl->hth[2] = cyl->hth[3] = r * ct;
  cyl->hbe[0]               = l * sb;
  cyl->hbe[1]               = s * sb;
  cyl->hbe[2]               = s * cb;
  cyl->hbe[3]               = l * cb;
}

/* The non-zeros of row r of a cylinder's C_q: their columns and values; returns their number (2 or 3) */
static PetscInt CylinderRow(const Engine4Cylinder *cyl, PetscInt r, PetscInt cols[3], PetscReal entries[3])
{
  cols[0]    = cyl->th;
  entries[0] = cyl->dth[r];
  cols[1]    = cyl->be;
  entries[1] = cyl->dbe[r];
  if (cyl->unit[r] < 0) return 2;
  cols[2]    = cyl->unit[r];
  entries[2] = 1;
  return 3;
}

/* f(t, q, v) of section 5.2 (consistent version) */
static void Engine4Forces(MbsModel model, const Engine4Drive *drive, const PetscReal u[], const PetscReal q[], PetscReal f[])
{
  const Engine4   *e = (const Engine4 *)model->data;
  const PetscReal *w = u + NC;
  PetscReal        T, p;

  PetscArrayzero(f, NC);
  for (PetscInt k = 0; k < NELEMENT; k++) {
    const Engine4Element *el   = &e->element[k];
    const PetscReal      *x    = el->damper ? w : u;
    PetscReal             load = ElementValue(el, model->p) * ((el->b == GROUND ? 0 : x[el->b]) - x[el->a]);

    f[el->a] += load;
    if (el->b != GROUND) f[el->b] -= load;
  }
  MbsDmfTorque(&e->laws, u[0], &T, NULL); /* q1 - q0 = u1 */
  f[0] -= T;
  for (PetscInt i = 0; i < 4; i++) {
    MbsCylinderPressure(&e->laws, q[1 + i], drive->N, &p, NULL);
    f[PISTON + i] = -(p - e->laws.p_cc) * e->laws.A_P;
  }
}

static PetscErrorCode Engine4Residual(MbsModel model, PetscReal t, const PetscReal U[], const PetscReal Udot[], PetscReal F[])
{
  const Engine4     *e      = (const Engine4 *)model->data;
  const Engine4Drive drive  = Engine4DriveAt(e, t);
  const PetscReal   *lambda = U + 2 * NC, *mu = U + 2 * NC + NL;
  PetscReal          q[NC], v[NC], m[NC], f[NC];

  PetscFunctionBeginUser;
  Engine4Absolute(&drive, U, q, v);
  Engine4Mass(e, model->p, m);
  Engine4Forces(model, &drive, U, q, f);
  for (PetscInt k = 0; k < NC; k++) {
    F[k]      = Udot[k] - U[NC + k];
    F[NC + k] = m[k] * (Udot[NC + k] + (Rotating(k) ? drive.a0 : 0)) - f[k];
  }
  for (PetscInt i = 0; i < 4; i++) {
    Engine4Cylinder cyl;

    Engine4CylinderAt(&e->laws, i, q, &cyl);
    for (PetscInt r = 0; r < 4; r++) {
      PetscInt  j = 4 * i + r, cols[3];
      PetscReal entries[3];

      F[2 * NC + NL + j] = cyl.C[r];
      for (PetscInt c = 0; c < CylinderRow(&cyl, r, cols, entries); c++) {
        F[cols[c]] += entries[c] * mu[j];          /* C_q^T mu */
        F[NC + cols[c]] += entries[c] * lambda[j]; /* C_q^T lambda */
        F[2 * NC + j] += entries[c] * v[cols[c]];  /* C_q v */
      }
    }
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode Engine4Jacobian(MbsModel model, PetscReal t, const PetscReal U[], const PetscReal Udot[], PetscReal shift, PetscReal J[])
{
  const Engine4     *e      = (const Engine4 *)model->data;
  const Engine4Drive drive  = Engine4DriveAt(e, t);
  const PetscReal   *lambda = U + 2 * NC, *mu = U + 2 * NC + NL;
  PetscReal          q[NC], v[NC], m[NC], dT, p, dp;

  PetscFunctionBeginUser;
  Engine4Absolute(&drive, U, q, v);
  Engine4Mass(e, model->p, m);
  for (PetscInt k = 0; k < NC; k++) {
    MBS_IJ(J, k, k, NSTATE)           = shift;
    MBS_IJ(J, k, NC + k, NSTATE)      = -1;
    MBS_IJ(J, NC + k, NC + k, NSTATE) = shift * m[k];
  }
  for (PetscInt k = 0; k < NELEMENT; k++) { /* rows of -f */
    const Engine4Element *el        = &e->element[k];
    PetscInt              shift_col = el->damper ? NC : 0;
    PetscReal             c         = ElementValue(el, model->p);

    MBS_IJ(J, NC + el->a, shift_col + el->a, NSTATE) += c;
    if (el->b == GROUND) continue;
    MBS_IJ(J, NC + el->a, shift_col + el->b, NSTATE) -= c;
    MBS_IJ(J, NC + el->b, shift_col + el->b, NSTATE) += c;
    MBS_IJ(J, NC + el->b, shift_col + el->a, NSTATE) -= c;
  }
  MbsDmfTorque(&e->laws, U[0], &p, &dT);
  MBS_IJ(J, NC, 0, NSTATE) += dT;
  for (PetscInt i = 0; i < 4; i++) {
    MbsCylinderPressure(&e->laws, q[1 + i], drive.N, &p, &dp);
    MBS_IJ(J, NC + PISTON + i, 1 + i, NSTATE) = dp * e->laws.A_P;
  }
  for (PetscInt i = 0; i < 4; i++) {
    Engine4Cylinder cyl;

    Engine4CylinderAt(&e->laws, i, q, &cyl);
    for (PetscInt r = 0; r < 4; r++) {
      PetscInt  j = 4 * i + r, cols[3];
      PetscReal entries[3];

      for (PetscInt c = 0; c < CylinderRow(&cyl, r, cols, entries); c++) {
        MBS_IJ(J, cols[c], 2 * NC + NL + j, NSTATE) = entries[c]; /* C_q^T mu */
        MBS_IJ(J, NC + cols[c], 2 * NC + j, NSTATE) = entries[c]; /* C_q^T lambda */
        MBS_IJ(J, 2 * NC + j, NC + cols[c], NSTATE) = entries[c]; /* C_q v */
        MBS_IJ(J, 2 * NC + NL + j, cols[c], NSTATE) = entries[c]; /* C */
      }
      MBS_IJ(J, cyl.th, cyl.th, NSTATE) += cyl.hth[r] * mu[j];
      MBS_IJ(J, cyl.be, cyl.be, NSTATE) += cyl.hbe[r] * mu[j];
      MBS_IJ(J, NC + cyl.th, cyl.th, NSTATE) += cyl.hth[r] * lambda[j];
      MBS_IJ(J, NC + cyl.be, cyl.be, NSTATE) += cyl.hbe[r] * lambda[j];
      MBS_IJ(J, 2 * NC + j, cyl.th, NSTATE) = cyl.hth[r] * v[cyl.th];
      MBS_IJ(J, 2 * NC + j, cyl.be, NSTATE) = cyl.hbe[r] * v[cyl.be];
    }
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode Engine4JacobianP(MbsModel model, PetscReal t, const PetscReal U[], const PetscReal Udot[], PetscReal Jp[])
{
  const Engine4 *e = (const Engine4 *)model->data;

  PetscFunctionBeginUser;
  for (PetscInt k = 0; k < NELEMENT; k++) {
    const Engine4Element *el = &e->element[k];
    const PetscReal      *x  = el->damper ? U + NC : U;
    PetscReal             stretch;

    if (el->param < 0) continue;
    stretch = (el->b == GROUND ? 0 : x[el->b]) - x[el->a];
    MBS_IJ(Jp, NC + el->a, el->param, NSTATE) -= stretch;
    if (el->b != GROUND) MBS_IJ(Jp, NC + el->b, el->param, NSTATE) += stretch;
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode Engine4Output(MbsModel model, PetscReal t, const PetscReal U[], PetscReal *y, PetscReal dydu[])
{
  PetscFunctionBeginUser;
  *y = U[5] - U[0]; /* the offsets of q6 and q1 are both 0 */
  if (dydu) {
    dydu[5] = 1;
    dydu[0] = -1;
  }
  PetscFunctionReturn(0);
}

/*
  A start in the middle of a run-up (a segment) from zero twist would first swing the DMF into its load, a transient
  of some 0.3 s. With -engine4_preload the engine starts rotated by the DMF twist phi that carries the mean load,
  T_DMF(phi) = (cycle-mean gas torque at N) - (rotating inertia) q0'', at the speed q0', with q0'' averaged over the
  revolution centred at t: a measured speed (-speed_profile) carries a ripple whose acceleration is no load.
*/
static PetscErrorCode Engine4PreloadTwist(MbsModel model, PetscReal t, PetscReal *twist)
{
  const Engine4     *e     = (const Engine4 *)model->data;
  const Engine4Drive drive = Engine4DriveAt(e, t);
  PetscReal          m[NC], inertia = 4 * MbsReducedInertiaMean(&e->laws), half = 30 / drive.N, load, phi = 0, T, dT;

  PetscFunctionBeginUser;
  Engine4Mass(e, model->p, m);
  for (PetscInt k = 0; k < NC; k++)
    if (Rotating(k)) inertia += m[k];
  load = MbsGasTorqueMean(&e->laws, drive.N) - inertia * (Engine4DriveAt(e, t + half).v0 - Engine4DriveAt(e, t - half).v0) / (2 * half);
  for (PetscInt it = 0; it < 50; it++) { /* T_DMF is smooth, odd and increasing */
    MbsDmfTorque(&e->laws, phi, &T, &dT);
    phi -= (T - load) / dT;
  }
  MbsDmfTorque(&e->laws, phi, &T, NULL);
  PetscCheck(PetscAbsReal(T - load) <= 1e-9 * PetscMax(1, PetscAbsReal(load)), PETSC_COMM_SELF, PETSC_ERR_NOT_CONVERGED, "engine4: no DMF twist carries the mean load %g N m (-engine4_preload)", (double)load);
  *twist = phi;
  PetscFunctionReturn(0);
}

/*
  Section 9 at time t0: zero twist (or the preload), every rotating part at q0(t0) + delta_k with the speed q0'(t0), conrods and pistons
  by the exact kinematics, mu = 0, and lambda with the accelerations from the index-1 system of section 8 (the
  massless node rows replaced by q'' = 0 there, as those coordinates are in no constraint).
*/
static PetscErrorCode Engine4InitialState(MbsModel model, PetscReal t0, PetscReal U[], PetscReal Udot[])
{
  const Engine4     *e     = (const Engine4 *)model->data;
  const Engine4Drive drive = Engine4DriveAt(e, t0);
  const PetscInt     n     = NC + NL;
  PetscReal          q[NC], v[NC], m[NC], f[NC], *A, *b;

  PetscFunctionBeginUser;
  if (e->preload) {
    PetscReal phi;

    PetscCall(Engine4PreloadTwist(model, t0, &phi));
    for (PetscInt k = 0; k < NC; k++)
      if (Rotating(k)) U[k] = phi;
  }
  for (PetscInt i = 0; i < 4; i++) {
    MbsSliderCrank sc;

    MbsSliderCrankPosition(&e->laws, drive.q0 + CrankOffset[1 + i] + U[1 + i], &sc);
    U[CONROD + 3 * i]          = sc.x;
    U[CONROD + 3 * i + 1]      = sc.y;
    U[CONROD + 3 * i + 2]      = sc.beta;
    U[PISTON + i]              = sc.z;
    U[NC + CONROD + 3 * i]     = sc.dx * drive.v0;
    U[NC + CONROD + 3 * i + 1] = sc.dy * drive.v0;
    U[NC + CONROD + 3 * i + 2] = sc.dbeta * drive.v0;
    U[NC + PISTON + i]         = sc.dz * drive.v0;
  }
  Engine4Absolute(&drive, U, q, v);
  Engine4Mass(e, model->p, m);
  Engine4Forces(model, &drive, U, q, f);
  PetscCall(PetscCalloc2(n * n, &A, n, &b));
  for (PetscInt k = 0; k < NC; k++) {
    MBS_IJ(A, k, k, n) = m[k] > 0 ? m[k] : 1;
    b[k]               = m[k] > 0 ? f[k] : 0;
  }
  for (PetscInt i = 0; i < 4; i++) {
    Engine4Cylinder cyl;

    Engine4CylinderAt(&e->laws, i, q, &cyl);
    for (PetscInt r = 0; r < 4; r++) {
      PetscInt  j = NC + 4 * i + r, cols[3];
      PetscReal entries[3];

      for (PetscInt c = 0; c < CylinderRow(&cyl, r, cols, entries); c++) {
        MBS_IJ(A, j, cols[c], n) = entries[c];
        MBS_IJ(A, cols[c], j, n) = entries[c];
      }
      b[j] = -(cyl.hth[r] * v[cyl.th] * v[cyl.th] + cyl.hbe[r] * v[cyl.be] * v[cyl.be]); /* gamma */
    }
  }
  PetscCall(MbsDenseSolve_Private(model, n, A, b));
  for (PetscInt k = 0; k < NC; k++) {
    Udot[k]      = U[NC + k];
    Udot[NC + k] = b[k] - (Rotating(k) ? drive.a0 : 0);
  }
  for (PetscInt j = 0; j < NL; j++) U[2 * NC + j] = b[NC + j];
  PetscCall(PetscFree2(A, b));
  PetscFunctionReturn(0);
}

/*
  The minimal formulation (-engine4_formulation minimal): the exact elimination of section 8. Each throw carries its
  crank drive's reduced inertia J_rec(theta), the term 1/2 J_rec'(theta) theta'^2 and the gas torque
  -(p - p_cc) A_P z'(theta); the massless Maxwell nodes keep their first-order law 0 = f24, f25. The state is

    U = (u of q1..q6, q23, q26; w of the same; u of q24, q25),   18 unknowns,

  with the deviation variables of the redundant form. It is an ODE with a state-dependent, diagonal mass matrix, so
  explicit Runge-Kutta methods take it (integration_form.c), stability-limited at h of about 1e-4 s (section 13).
*/
#define NMIN      18
#define MIN_W     8  /* first rate w */
#define MIN_NODES 16 /* the two Maxwell nodes */
#define HUB       5  /* q6, where the Maxwell dampers attach */

/* Index in the minimal state of a rotating coordinate's deviation u (the massless nodes last) */
static PetscInt MinimalIndex(PetscInt k)
{
  if (k < CONROD) return k;
  if (k == RING) return 6;
  if (k == PULLEY) return 7;
  return MIN_NODES + k - NODE1;
}

static PetscBool Massless(PetscInt k)
{
  return (PetscBool)(k == NODE1 || k == NODE2);
}

/* The row of coordinate k's equation: the rate row of a mass, the node's own row */
static PetscInt MinimalRow(PetscInt k)
{
  return MinimalIndex(k) + (Massless(k) ? 0 : MIN_W);
}

/*
  The rows an element's load acts on, with signs (f_a += load, f_b -= load). The hub's equation takes the nodes' laws
  0 = f24, f25 added to it: the damper force d*_i (v_node - v6) then leaves it, and each Maxwell spring acts on the hub
  as c*_i (q23 - q_node), as in section 5.2. The hub's equation holds no node rate, and the mass matrix is diagonal.
*/
static PetscInt MinimalElementRows(const Engine4Element *el, PetscInt rows[3], PetscReal signs[3])
{
  if (el->b == GROUND) {
    rows[0]  = MinimalRow(el->a);
    signs[0] = 1;
    return 1;
  }
  rows[0]  = MinimalRow(el->b);
  signs[0] = -1;
  if (Massless(el->b) && el->damper) return 1;
  rows[1]  = MinimalRow(el->a);
  signs[1] = 1;
  if (!Massless(el->b)) return 2;
  rows[2]  = MinimalRow(HUB);
  signs[2] = -1;
  return 3;
}

/* The state's column of an element end's displacement (spring) or rate (damper), and its factor: a node's rate is
   shift times its deviation */
static PetscInt MinimalElementColumn(const Engine4Element *el, PetscInt k, PetscReal shift, PetscReal *factor)
{
  *factor = 1;
  if (!el->damper) return MinimalIndex(k);
  if (!Massless(k)) return MIN_W + MinimalIndex(k);
  *factor = shift;
  return MinimalIndex(k);
}

/* An element end's displacement or rate deviation */
static PetscReal MinimalElementEnd(const Engine4Element *el, PetscInt k, const PetscReal U[], const PetscReal Udot[])
{
  if (k == GROUND) return 0;
  if (!el->damper) return U[MinimalIndex(k)];
  return Massless(k) ? Udot[MinimalIndex(k)] : U[MIN_W + MinimalIndex(k)];
}

static PetscErrorCode Engine4MinimalResidual(MbsModel model, PetscReal t, const PetscReal U[], const PetscReal Udot[], PetscReal F[])
{
  const Engine4     *e     = (const Engine4 *)model->data;
  const Engine4Drive drive = Engine4DriveAt(e, t);
  PetscReal          m[NC], T;

  PetscFunctionBeginUser;
  Engine4Mass(e, model->p, m);
  for (PetscInt k = 0; k < NC; k++) {
    PetscInt j = MinimalIndex(k);

    if (!Rotating(k) || Massless(k)) continue;
    F[j]         = Udot[j] - U[MIN_W + j];
    F[MIN_W + j] = m[k] * (Udot[MIN_W + j] + drive.a0);
  }
  for (PetscInt k = 0; k < NELEMENT; k++) { /* rows of -f */
    const Engine4Element *el = &e->element[k];
    PetscInt              rows[3];
    PetscReal             signs[3], load = ElementValue(el, model->p) * (MinimalElementEnd(el, el->b, U, Udot) - MinimalElementEnd(el, el->a, U, Udot));

    for (PetscInt r = 0; r < MinimalElementRows(el, rows, signs); r++) F[rows[r]] -= signs[r] * load;
  }
  MbsDmfTorque(&e->laws, U[0], &T, NULL);
  F[MIN_W] += T;
  for (PetscInt i = 0; i < 4; i++) {
    const PetscReal theta = drive.q0 + CrankOffset[1 + i] + U[1 + i], rate = drive.v0 + U[MIN_W + 1 + i];
    PetscReal       jet[3], dz[2], p;

    MbsReducedInertiaDerivatives(&e->laws, theta, jet, dz);
    MbsCylinderPressure(&e->laws, theta, drive.N, &p, NULL);
    F[MIN_W + 1 + i] += jet[0] * (Udot[MIN_W + 1 + i] + drive.a0) + 0.5 * jet[1] * rate * rate + (p - e->laws.p_cc) * e->laws.A_P * dz[0];
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode Engine4MinimalJacobian(MbsModel model, PetscReal t, const PetscReal U[], const PetscReal Udot[], PetscReal shift, PetscReal J[])
{
  const Engine4     *e     = (const Engine4 *)model->data;
  const Engine4Drive drive = Engine4DriveAt(e, t);
  PetscReal          m[NC], T, dT;

  PetscFunctionBeginUser;
  Engine4Mass(e, model->p, m);
  for (PetscInt k = 0; k < NC; k++) {
    PetscInt j = MinimalIndex(k);

    if (!Rotating(k) || Massless(k)) continue;
    MBS_IJ(J, j, j, NMIN)                 = shift;
    MBS_IJ(J, j, MIN_W + j, NMIN)         = -1;
    MBS_IJ(J, MIN_W + j, MIN_W + j, NMIN) = shift * m[k];
  }
  for (PetscInt k = 0; k < NELEMENT; k++) {
    const Engine4Element *el = &e->element[k];
    PetscReal             c  = ElementValue(el, model->p), signs[3], fa, fb;
    PetscInt              rows[3], ca = MinimalElementColumn(el, el->a, shift, &fa), cb = el->b == GROUND ? -1 : MinimalElementColumn(el, el->b, shift, &fb);

    for (PetscInt r = 0; r < MinimalElementRows(el, rows, signs); r++) {
      MBS_IJ(J, rows[r], ca, NMIN) += signs[r] * c * fa;
      if (cb >= 0) MBS_IJ(J, rows[r], cb, NMIN) -= signs[r] * c * fb;
    }
  }
  MbsDmfTorque(&e->laws, U[0], &T, &dT);
  MBS_IJ(J, MIN_W, 0, NMIN) += dT;
  for (PetscInt i = 0; i < 4; i++) {
    const PetscInt  row   = MIN_W + 1 + i;
    const PetscReal theta = drive.q0 + CrankOffset[1 + i] + U[1 + i], rate = drive.v0 + U[row];
    PetscReal       jet[3], dz[2], p, dp;

    MbsReducedInertiaDerivatives(&e->laws, theta, jet, dz);
    MbsCylinderPressure(&e->laws, theta, drive.N, &p, &dp);
    MBS_IJ(J, row, 1 + i, NMIN) += jet[1] * (Udot[row] + drive.a0) + 0.5 * jet[2] * rate * rate + e->laws.A_P * (dp * dz[0] + (p - e->laws.p_cc) * dz[1]);
    MBS_IJ(J, row, row, NMIN) += jet[1] * rate + shift * jet[0];
  }
  PetscFunctionReturn(0);
}

/* dF/dU': diagonal, as the hub's equation holds no node rate */
static PetscErrorCode Engine4MinimalMass(MbsModel model, PetscReal t, const PetscReal U[], PetscReal E[])
{
  const Engine4     *e     = (const Engine4 *)model->data;
  const Engine4Drive drive = Engine4DriveAt(e, t);
  PetscReal          m[NC], jet[3], dz[2];

  PetscFunctionBeginUser;
  Engine4Mass(e, model->p, m);
  for (PetscInt k = 0; k < NC; k++) {
    PetscInt j = MinimalIndex(k);

    if (!Rotating(k) || Massless(k)) continue;
    MBS_IJ(E, j, j, NMIN)                 = 1;
    MBS_IJ(E, MIN_W + j, MIN_W + j, NMIN) = m[k];
  }
  for (PetscInt i = 0; i < 4; i++) {
    MbsReducedInertiaDerivatives(&e->laws, drive.q0 + CrankOffset[1 + i] + U[1 + i], jet, dz);
    MBS_IJ(E, MIN_W + 1 + i, MIN_W + 1 + i, NMIN) += jet[0];
  }
  for (PetscInt i = 0; i < 2; i++) MBS_IJ(E, MIN_NODES + i, MIN_NODES + i, NMIN) = model->p[DS1 + i];
  PetscFunctionReturn(0);
}

static PetscErrorCode Engine4MinimalJacobianP(MbsModel model, PetscReal t, const PetscReal U[], const PetscReal Udot[], PetscReal Jp[])
{
  const Engine4 *e = (const Engine4 *)model->data;

  PetscFunctionBeginUser;
  for (PetscInt k = 0; k < NELEMENT; k++) {
    const Engine4Element *el = &e->element[k];
    PetscInt              rows[3];
    PetscReal             signs[3], stretch;

    if (el->param < 0) continue;
    stretch = MinimalElementEnd(el, el->b, U, Udot) - MinimalElementEnd(el, el->a, U, Udot);
    for (PetscInt r = 0; r < MinimalElementRows(el, rows, signs); r++) MBS_IJ(Jp, rows[r], el->param, NMIN) -= signs[r] * stretch;
  }
  PetscFunctionReturn(0);
}

/* Section 9 in the minimal coordinates: zero twist (or the preload) at the speed q0'(t0); the rates from F = 0 */
static PetscErrorCode Engine4MinimalInitialState(MbsModel model, PetscReal t0, PetscReal U[], PetscReal Udot[])
{
  const Engine4 *e   = (const Engine4 *)model->data;
  PetscReal      phi = 0;

  PetscFunctionBeginUser;
  if (e->preload) PetscCall(Engine4PreloadTwist(model, t0, &phi));
  for (PetscInt k = 0; k < NC; k++)
    if (Rotating(k)) U[MinimalIndex(k)] = phi;
  PetscCall(MbsModelInitialRates(model, t0, U, Udot));
  PetscFunctionReturn(0);
}

/* Standstill, no gas force, zero twist (or the DMF at -engine4_modal_dmf_twist), constraints eliminated exactly */
static PetscErrorCode Engine4Linearize(MbsModel model, PetscReal M[], PetscReal C[], PetscReal K[])
{
  const Engine4 *e = (const Engine4 *)model->data;
  PetscReal      m[NC], T, dT;

  PetscFunctionBeginUser;
  Engine4Mass(e, model->p, m);
  for (PetscInt k = 0; k < 6; k++) MBS_IJ(M, k, k, NMODAL) = m[k];
  for (PetscInt k = 1; k <= 4; k++) MBS_IJ(M, k, k, NMODAL) += e->modal_mean_inertia ? MbsReducedInertiaMean(&e->laws) : MbsReducedInertia(&e->laws, e->modal_angle + CrankOffset[k]);
  for (PetscInt k = RING; k < NC; k++) MBS_IJ(M, ModalIndex(k), ModalIndex(k), NMODAL) = m[k];
  for (PetscInt k = 0; k < NELEMENT; k++) {
    const Engine4Element *el     = &e->element[k];
    PetscReal            *matrix = el->damper ? C : K, c = ElementValue(el, model->p);
    PetscInt              a = ModalIndex(el->a), b = ModalIndex(el->b);

    MBS_IJ(matrix, a, a, NMODAL) += c;
    if (el->b == GROUND) continue;
    MBS_IJ(matrix, a, b, NMODAL) -= c;
    MBS_IJ(matrix, b, b, NMODAL) += c;
    MBS_IJ(matrix, b, a, NMODAL) -= c;
  }
  MbsDmfTorque(&e->laws, e->modal_dmf_twist, &T, &dT);
  MBS_IJ(K, 0, 0, NMODAL) += dT;
  PetscFunctionReturn(0);
}

static PetscErrorCode Engine4SetFromOptions(MbsModel model, PetscOptionItems *PetscOptionsObject)
{
  Engine4  *e = (Engine4 *)model->data;
  PetscBool span_set;

  PetscFunctionBeginUser;
  PetscCall(MbsSpeedProfileSetFromOptions(PetscOptionsObject, &e->speed));
  PetscCall(PetscOptionsEnum("-engine4_formulation", "Coordinates of the integration: dae (the spec's 26 redundant coordinates with 16 constraints, implicit methods only) or minimal (the exact elimination, an ODE of 18 states for any method)", "", Engine4Formulations,
                             (PetscEnum)e->formulation, (PetscEnum *)&e->formulation, NULL));
  PetscCall(PetscOptionsBool("-engine4_preload", "Start with the DMF twisted by the mean load (a segment of a run-up) instead of the spec's zero twist", "", e->preload, &e->preload, NULL));
  PetscCall(PetscOptionsReal("-engine4_modal_angle", "Crank angle phi_ref [rad] of the linearisation (with -engine4_modal_mean_inertia false)", "", e->modal_angle, &e->modal_angle, NULL));
  PetscCall(PetscOptionsBool("-engine4_modal_mean_inertia", "Linearise with the cycle-mean inertia of the crank drives", "", e->modal_mean_inertia, &e->modal_mean_inertia, NULL));
  PetscCall(PetscOptionsReal("-engine4_modal_dmf_twist", "DMF twist [rad] whose tangent stiffness the linearisation uses (0.55: loaded)", "", e->modal_dmf_twist, &e->modal_dmf_twist, NULL));
  PetscCall(PetscOptionsHasName(PetscOptionsObject->options, NULL, "-time_span", &span_set));
  if (!span_set) model->tf = e->speed.stationary_rpm > 0 ? 2.0 : e->speed.ntable ? e->speed.table_t[e->speed.ntable - 1] : e->speed.ramp_time[1]; /* V2's T_end, or the run-up's end */
  PetscFunctionReturn(0);
}

static PetscErrorCode Engine4Destroy(MbsModel model)
{
  PetscFunctionBeginUser;
  PetscCall(MbsSpeedProfileReset(&((Engine4 *)model->data)->speed));
  PetscCall(PetscFree(model->data));
  PetscFunctionReturn(0);
}

PetscErrorCode MbsModelCreate_Engine4(MbsModel model)
{
  Engine4             *e;
  const PetscReal      c_crank[5] = {6.8e5, 5.5e5, 5.5e5, 5.5e5, 3.4e5};
  const PetscReal      J_crank[6] = {0.12, 0.0055, 0.0055, 0.0055, 0.0055, 0.0025};
  const Engine4Element tvd[8]     = {
        {5,    RING,   PETSC_FALSE, CPAR, 0},
        {5,    PULLEY, PETSC_FALSE, CPW,  0},
        {5,    PULLEY, PETSC_TRUE,  DPW,  0},
        {RING, NODE1,  PETSC_FALSE, CS1,  0},
        {RING, NODE2,  PETSC_FALSE, CS2,  0},
        {5,    NODE1,  PETSC_TRUE,  DS1,  0},
        {5,    NODE2,  PETSC_TRUE,  DS2,  0},
        {0,    GROUND, PETSC_TRUE,  -1,   0},
  };

  PetscFunctionBeginUser;
  PetscCall(PetscNew(&e));
  MbsEngineLawsDefault(&e->laws);
  e->speed.ramp_rpm[0]  = 1000;
  e->speed.ramp_rpm[1]  = 6500;
  e->speed.ramp_time[0] = 1.0;
  e->speed.ramp_time[1] = 6.5;
  model->speed          = &e->speed;
  e->modal_mean_inertia = PETSC_TRUE;
  PetscCall(PetscArraycpy(e->J_crank, J_crank, 6));
  for (PetscInt k = 0; k < 5; k++) {
    e->element[k]     = (Engine4Element){k, k + 1, PETSC_FALSE, -1, c_crank[k]};
    e->element[5 + k] = (Engine4Element){k, k + 1, PETSC_TRUE, DCRANK, 0};
  }
  PetscCall(PetscArraycpy(e->element + 10, tvd, 8));
  e->element[17].value = e->laws.d_DMF;
  model->data          = e;
  /* the state's size is fixed here, before the model's options block, which lists the option for -help */
  PetscCall(PetscOptionsGetEnum(NULL, NULL, "-engine4_formulation", Engine4Formulations, (PetscEnum *)&e->formulation, NULL));
  if (e->formulation == ENGINE4_MINIMAL) {
    PetscCall(MbsModelSetUp_Private(model, NMIN, NMODAL, NP, Engine4Parameters));
    model->ops.residual      = Engine4MinimalResidual;
    model->ops.jacobian      = Engine4MinimalJacobian;
    model->ops.mass          = Engine4MinimalMass;
    model->ops.jacobian_p    = Engine4MinimalJacobianP;
    model->ops.initial_state = Engine4MinimalInitialState;
  } else {
    PetscCall(MbsModelSetUp_Private(model, NSTATE, NMODAL, NP, Engine4Parameters));
    for (PetscInt k = NC + NODE1; k <= NC + NODE2; k++) model->differential[k] = PETSC_FALSE;
    for (PetscInt k = 2 * NC; k < NSTATE; k++) model->differential[k] = PETSC_FALSE;
    model->ops.residual      = Engine4Residual;
    model->ops.jacobian      = Engine4Jacobian;
    model->ops.jacobian_p    = Engine4JacobianP;
    model->ops.initial_state = Engine4InitialState;
    model->constant_mass     = PETSC_TRUE;
    model->ode_form_option   = "-engine4_formulation minimal";
  }
  model->ops.output           = Engine4Output;
  model->ops.linearize        = Engine4Linearize;
  model->ops.set_from_options = Engine4SetFromOptions;
  model->ops.destroy          = Engine4Destroy;
  model->output_name          = "twist";
  model->output_unit          = "rad";
  model->t0                   = 0;
  model->tf                   = 6.5;
  model->dt                   = 1e-5;
  PetscFunctionReturn(0);
}
