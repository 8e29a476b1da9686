/*
  Model pid_sdof: the single-degree-of-freedom plant of the controller benchmark (../shared/models/pid_sdof.md,
  section 1), on which a black-box controller closes the loop (mbsid perturb, mbsid eigen -controller).

    m r'' + c r' + k r = F_App(t) + F_Ctrl(t),   F_Ctrl = -u,   y = r [m]

  State U = (r, v); residual F0 = r' - v, F1 = m v' + c v + k r - (F_App(t) - u). The spec leaves F_App open; mbsid
  takes F_App = F_A sin(2 pi f_A t) with -pid_sdof_force F_A = 0 N (the static equilibrium of the spec's tests) and
  -pid_sdof_force_hz f_A = 1 Hz, and the plant starts from -initial_q, -initial_v.
*/
#include "models/modelimpl.h"

enum {
  M,
  C,
  K,
  NP
};

typedef struct {
  PetscReal amplitude, frequency_hz;
} PidSdof;

static PetscErrorCode PidSdofExcitation(MbsModel model, PetscReal t, PetscReal *force)
{
  PidSdof *sdof = (PidSdof *)model->data;

  PetscFunctionBeginUser;
  *force = sdof->amplitude * PetscSinReal(2 * PETSC_PI * sdof->frequency_hz * t);
  PetscFunctionReturn(0);
}

static PetscErrorCode PidSdofResidual(MbsModel model, PetscReal t, const PetscReal u[], const PetscReal udot[], PetscReal f[])
{
  const PetscReal *p = model->p;
  PetscReal        force;

  PetscFunctionBeginUser;
  PetscCall(MbsModelExcitation(model, t, &force));
  f[0] = udot[0] - u[1];
  f[1] = p[M] * udot[1] + p[C] * u[1] + p[K] * u[0] - force;
  PetscFunctionReturn(0);
}

static PetscErrorCode PidSdofJacobian(MbsModel model, PetscReal t, const PetscReal u[], const PetscReal udot[], PetscReal shift, PetscReal J[])
{
  const PetscReal *p = model->p;

  PetscFunctionBeginUser;
  MBS_IJ(J, 0, 0, 2) = shift;
  MBS_IJ(J, 0, 1, 2) = -1;
  MBS_IJ(J, 1, 0, 2) = p[K];
  MBS_IJ(J, 1, 1, 2) = p[C] + shift * p[M];
  PetscFunctionReturn(0);
}

static PetscErrorCode PidSdofJacobianP(MbsModel model, PetscReal t, const PetscReal u[], const PetscReal udot[], PetscReal Jp[])
{
  PetscFunctionBeginUser;
  MBS_IJ(Jp, 1, M, 2) = udot[1];
  MBS_IJ(Jp, 1, C, 2) = u[1];
  MBS_IJ(Jp, 1, K, 2) = u[0];
  PetscFunctionReturn(0);
}

static PetscErrorCode PidSdofOutput(MbsModel model, PetscReal t, const PetscReal u[], PetscReal *y, PetscReal dydu[])
{
  PetscFunctionBeginUser;
  *y = u[0];
  if (dydu) dydu[0] = 1;
  PetscFunctionReturn(0);
}

static PetscErrorCode PidSdofLinearize(MbsModel model, PetscReal M_[], PetscReal C_[], PetscReal K_[])
{
  PetscFunctionBeginUser;
  M_[0] = model->p[M];
  C_[0] = model->p[C];
  K_[0] = model->p[K];
  PetscFunctionReturn(0);
}

static PetscErrorCode PidSdofSetFromOptions(MbsModel model, PetscOptionItems *PetscOptionsObject)
{
  PidSdof *sdof = (PidSdof *)model->data;

  PetscFunctionBeginUser;
  PetscCall(PetscOptionsReal("-pid_sdof_force", "Amplitude F_A of the applied force F_App = F_A sin(2 pi f_A t) [N]", "", sdof->amplitude, &sdof->amplitude, NULL));
  PetscCall(PetscOptionsReal("-pid_sdof_force_hz", "Frequency f_A of the applied force [Hz]", "", sdof->frequency_hz, &sdof->frequency_hz, NULL));
  PetscCheck(!PetscIsInfOrNanReal(sdof->amplitude), model->comm, PETSC_ERR_ARG_OUTOFRANGE, "-pid_sdof_force must be a finite force [N], got %g", (double)sdof->amplitude);
  PetscCheck(sdof->frequency_hz >= 0 && sdof->frequency_hz < PETSC_INFINITY, model->comm, PETSC_ERR_ARG_OUTOFRANGE, "-pid_sdof_force_hz must be a finite frequency >= 0 Hz, got %g", (double)sdof->frequency_hz);
  PetscFunctionReturn(0);
}

static PetscErrorCode PidSdofDestroy(MbsModel model)
{
  PetscFunctionBeginUser;
  PetscCall(PetscFree(model->data));
  PetscFunctionReturn(0);
}

static const MbsParameterInfo PidSdofParameters[NP] = {
  {"m", "kg",    "mass",      1.0,   1e-6, 1e6, PETSC_TRUE},
  {"c", "N s/m", "damping",   1.0,   0,    1e6, PETSC_TRUE},
  {"k", "N/m",   "stiffness", 100.0, 0,    1e9, PETSC_TRUE},
};

PetscErrorCode MbsModelCreate_PidSdof(MbsModel model)
{
  PidSdof *sdof;

  PetscFunctionBeginUser;
  PetscCall(MbsModelSetUp_Private(model, 2, 1, NP, PidSdofParameters));
  PetscCall(PetscNew(&sdof));
  sdof->frequency_hz          = 1.0;
  model->data                 = sdof;
  model->ops.residual         = PidSdofResidual;
  model->ops.jacobian         = PidSdofJacobian;
  model->ops.jacobian_p       = PidSdofJacobianP;
  model->ops.output           = PidSdofOutput;
  model->ops.linearize        = PidSdofLinearize;
  model->ops.excitation       = PidSdofExcitation;
  model->ops.set_from_options = PidSdofSetFromOptions;
  model->ops.destroy          = PidSdofDestroy;
  model->output_name          = "r";
  model->output_unit          = "m";
  model->constant_mass        = PETSC_TRUE;
  model->force_coordinate     = 0;
  model->t0                   = 0;
  model->tf                   = 1.0;
  model->dt                   = 1e-3;
  PetscFunctionReturn(0);
}
