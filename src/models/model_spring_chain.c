/*
  Model spring_chain: n equal masses in series, each joined to its predecessor (the first to the ground)
  by a Kelvin-Voigt element k_i || d_i, and a force pulse on the last mass; y = x_n [m]. Its 2n
  identifiable constants make it the many-parameter case of benchmarks/gradient_cost.

    ground --[k1 || d1]-- m --[k2 || d2]-- m -- ... --[kn || dn]-- m  <- F(t)

  With s_i = k_i (x_i - x_{i-1}) + d_i (v_i - v_{i-1}), x_0 = v_0 = 0, the residual is

    F_i     = x_i' - v_i
    F_{n+i} = m v_i' + s_i - s_{i+1} - [i = n] F(t)          (s_{n+1} = 0)

  The force (-spring_chain_excitation) is a pulse F(t) = F0 sin^2(pi t / t_p) on [0, t_p], 0 afterwards (broad band
  up to about 2/t_p), or an engine order F(t) = F0 sin(k phi(t)) of the crank angle phi of a run-up or a
  constant speed (engine_speed.c; -spring_chain_order k, default 2).
  The number of masses is -spring_chain_masses n (default 4); parameters k1..kn, d1..dn, m, F0, tp.
*/
#include "models/modelimpl.h"

typedef enum {
  SPRING_CHAIN_PULSE,
  SPRING_CHAIN_ENGINE
} SpringChainExcitationType;

static const char *const SpringChainExcitationTypes[] = {"pulse", "engine", "SpringChainExcitationType", "SPRING_CHAIN_", NULL};

typedef struct {
  SpringChainExcitationType excitation;
  PetscReal                 order; /* engine order of the force */
  MbsSpeedProfile           speed;
  PetscInt                  nmass;
  MbsParameterInfo         *info;
  char (*names)[16];
} SpringChain;

/* positions of the fixed parameters after the 2n constants */
#define SC_M(n)  (2 * (n))
#define SC_F0(n) (2 * (n) + 1)
#define SC_TP(n) (2 * (n) + 2)

static PetscErrorCode SpringChainExcitation(MbsModel model, PetscReal t, PetscReal *force)
{
  SpringChain *sc = (SpringChain *)model->data;
  PetscInt     n  = sc->nmass;
  PetscReal    tp = model->p[SC_TP(n)], phi, speed;

  PetscFunctionBeginUser;
  if (sc->excitation == SPRING_CHAIN_ENGINE) {
    MbsSpeedProfileAngle(&sc->speed, t, &phi, &speed);
    *force = model->p[SC_F0(n)] * PetscSinReal(sc->order * phi);
  } else *force = (t >= 0 && t <= tp) ? model->p[SC_F0(n)] * PetscSqr(PetscSinReal(PETSC_PI * t / tp)) : 0;
  PetscFunctionReturn(0);
}

static PetscErrorCode SpringChainResidual(MbsModel model, PetscReal t, const PetscReal u[], const PetscReal udot[], PetscReal f[])
{
  PetscInt         n = ((SpringChain *)model->data)->nmass;
  const PetscReal *p = model->p, *x = u, *v = u + n;
  PetscReal        force;

  PetscFunctionBeginUser;
  PetscCall(MbsModelExcitation(model, t, &force)); /* less a controller's force */
  for (PetscInt i = 0; i < n; i++) {
    f[i] = udot[i] - v[i];
    f[n + i] += p[SC_M(n)] * udot[n + i];
  }
  for (PetscInt i = 0; i < n; i++) { /* element i joins mass i-1 (ground for i = 0) and mass i */
    PetscReal s = p[i] * (x[i] - (i ? x[i - 1] : 0)) + p[n + i] * (v[i] - (i ? v[i - 1] : 0));

    f[n + i] += s;
    if (i) f[n + i - 1] -= s;
  }
  f[2 * n - 1] -= force;
  PetscFunctionReturn(0);
}

static PetscErrorCode SpringChainJacobian(MbsModel model, PetscReal t, const PetscReal u[], const PetscReal udot[], PetscReal shift, PetscReal J[])
{
  PetscInt         n = ((SpringChain *)model->data)->nmass, N = 2 * n;
  const PetscReal *p = model->p;

  PetscFunctionBeginUser;
  for (PetscInt i = 0; i < n; i++) {
    MBS_IJ(J, i, i, N)         = shift;
    MBS_IJ(J, i, n + i, N)     = -1;
    MBS_IJ(J, n + i, n + i, N) = shift * p[SC_M(n)];
  }
  for (PetscInt i = 0; i < n; i++) {
    /* ds/dx_i = k_i, ds/dx_{i-1} = -k_i, likewise with d_i for the rates */
    for (PetscInt block = 0; block < 2; block++) {
      PetscReal c = p[block * n + i];

      MBS_IJ(J, n + i, block * n + i, N) += c;
      if (i) {
        MBS_IJ(J, n + i, block * n + i - 1, N) -= c;
        MBS_IJ(J, n + i - 1, block * n + i, N) -= c;
        MBS_IJ(J, n + i - 1, block * n + i - 1, N) += c;
      }
    }
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode SpringChainJacobianP(MbsModel model, PetscReal t, const PetscReal u[], const PetscReal udot[], PetscReal Jp[])
{
  PetscInt n = ((SpringChain *)model->data)->nmass, N = 2 * n;

  PetscFunctionBeginUser;
  for (PetscInt i = 0; i < n; i++) {
    for (PetscInt block = 0; block < 2; block++) { /* k_i with the stretch, d_i with the stretch rate */
      PetscReal stretch = u[block * n + i] - (i ? u[block * n + i - 1] : 0);

      MBS_IJ(Jp, n + i, block * n + i, N) = stretch;
      if (i) MBS_IJ(Jp, n + i - 1, block * n + i, N) = -stretch;
    }
    MBS_IJ(Jp, n + i, SC_M(n), N) = udot[n + i];
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode SpringChainOutput(MbsModel model, PetscReal t, const PetscReal u[], PetscReal *y, PetscReal dydu[])
{
  PetscInt n = ((SpringChain *)model->data)->nmass;

  PetscFunctionBeginUser;
  *y = u[n - 1];
  if (dydu) dydu[n - 1] = 1;
  PetscFunctionReturn(0);
}

static PetscErrorCode SpringChainLinearize(MbsModel model, PetscReal M[], PetscReal C[], PetscReal K[])
{
  PetscInt   n         = ((SpringChain *)model->data)->nmass;
  PetscReal *matrix[2] = {K, C};

  PetscFunctionBeginUser;
  for (PetscInt i = 0; i < n; i++) {
    MBS_IJ(M, i, i, n) = model->p[SC_M(n)];
    for (PetscInt block = 0; block < 2; block++) {
      PetscReal c = model->p[block * n + i];

      MBS_IJ(matrix[block], i, i, n) += c;
      if (i) {
        MBS_IJ(matrix[block], i - 1, i - 1, n) += c;
        MBS_IJ(matrix[block], i, i - 1, n) -= c;
        MBS_IJ(matrix[block], i - 1, i, n) -= c;
      }
    }
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode SpringChainSetFromOptions(MbsModel model, PetscOptionItems *PetscOptionsObject)
{
  SpringChain *sc = (SpringChain *)model->data;
  PetscInt     n  = sc->nmass;

  PetscFunctionBeginUser;
  /* read at creation, since it sizes the parameter table; listed here for -help */
  PetscCall(MbsOptionsIntRange(PetscOptionsObject, "-spring_chain_masses", "Number of masses n (2n identifiable constants k_i, d_i)", &n, PETSC_MIN_INT, PETSC_MAX_INT, NULL));
  PetscCall(PetscOptionsEnum("-spring_chain_excitation", "Force on the last mass: a pulse, or an engine order of the crank angle", "", SpringChainExcitationTypes, (PetscEnum)sc->excitation, (PetscEnum *)&sc->excitation, NULL));
  PetscCall(PetscOptionsReal("-spring_chain_order", "Engine order k of the force F0 sin(k phi)", "", sc->order, &sc->order, NULL));
  PetscCall(MbsSpeedProfileSetFromOptions(PetscOptionsObject, &sc->speed));
  PetscFunctionReturn(0);
}

static PetscErrorCode SpringChainDestroy(MbsModel model)
{
  SpringChain *sc = (SpringChain *)model->data;

  PetscFunctionBeginUser;
  PetscCall(MbsSpeedProfileReset(&sc->speed));
  PetscCall(PetscFree2(sc->info, sc->names));
  PetscCall(PetscFree(model->data));
  PetscFunctionReturn(0);
}

PetscErrorCode MbsModelCreate_SpringChain(MbsModel model)
{
  SpringChain *sc;
  PetscInt     n = 4, np;

  PetscFunctionBeginUser;
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-spring_chain_masses", &n, NULL));
  PetscCheck(n >= 1 && n <= 10000, model->comm, PETSC_ERR_ARG_OUTOFRANGE, "-spring_chain_masses must lie in [1, 10000], got %" PetscInt_FMT, n);
  np = 2 * n + 3;
  PetscCall(PetscNew(&sc));
  sc->nmass              = n;
  sc->order              = 2;
  sc->speed.ramp_rpm[0]  = 600;
  sc->speed.ramp_rpm[1]  = 3000;
  sc->speed.ramp_time[0] = 0;
  sc->speed.ramp_time[1] = 10;
  model->speed           = &sc->speed;
  PetscCall(PetscMalloc2(np, &sc->info, np, &sc->names));
  for (PetscInt i = 0; i < n; i++) {
    PetscCall(PetscSNPrintf(sc->names[i], sizeof(sc->names[i]), "k%" PetscInt_FMT, i + 1));
    PetscCall(PetscSNPrintf(sc->names[n + i], sizeof(sc->names[n + i]), "d%" PetscInt_FMT, i + 1));
    sc->info[i]     = (MbsParameterInfo){sc->names[i], "N/m", "stiffness of element i", 1000.0, 1.0, 1e6, PETSC_TRUE};
    sc->info[n + i] = (MbsParameterInfo){sc->names[n + i], "N s/m", "damping of element i", 1.0, 1e-3, 1e3, PETSC_TRUE};
  }
  sc->info[SC_M(n)]  = (MbsParameterInfo){"m", "kg", "mass of each body", 1.0, 1e-6, 1e6, PETSC_TRUE};
  sc->info[SC_F0(n)] = (MbsParameterInfo){"F0", "N", "amplitude of the force pulse on the last mass", 10.0, -1e6, 1e6, PETSC_FALSE};
  sc->info[SC_TP(n)] = (MbsParameterInfo){"tp", "s", "duration of the force pulse", 0.1, 1e-6, 1e6, PETSC_FALSE};
  model->data        = sc;
  PetscCall(MbsModelSetUp_Private(model, 2 * n, n, np, sc->info));
  model->ops.residual         = SpringChainResidual;
  model->ops.jacobian         = SpringChainJacobian;
  model->ops.jacobian_p       = SpringChainJacobianP;
  model->ops.output           = SpringChainOutput;
  model->force_coordinate     = n - 1;
  model->ops.linearize        = SpringChainLinearize;
  model->ops.excitation       = SpringChainExcitation;
  model->ops.set_from_options = SpringChainSetFromOptions;
  model->ops.destroy          = SpringChainDestroy;
  model->output_name          = "x_n";
  model->output_unit          = "m";
  model->constant_mass        = PETSC_TRUE;
  model->t0                   = 0;
  model->tf                   = 10.0;
  model->dt                   = 0.01;
  PetscFunctionReturn(0);
}
