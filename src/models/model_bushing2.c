/*
  Model bushing2: two masses joined to the ground and to each other by Kelvin-Voigt bushings
  (../shared/models/bushing2.md, sections 1-3).

    ground --[k1 || d1]-- m1 --[k2 || d2]-- m2,    y = x2 [m]
    F(t) = 10 [sin(2 pi 2 t) + sin(2 pi 6 t)] N on m1,    t in [0, 2] s

  A linear bushing's load v = k x_t + d v_t between frames a and b acts as -v on b and +v on a, which
  gives M q'' = F e1 - K q - D q', the two-mass equations of oscillator2 with (c, d) -> (k, d).
*/
#include "models/modelimpl.h"

static PetscErrorCode Bushing2Excitation(MbsModel model, PetscReal t, PetscReal *force)
{
  PetscFunctionBeginUser;
  *force = 10.0 * (PetscSinReal(2 * PETSC_PI * 2 * t) + PetscSinReal(2 * PETSC_PI * 6 * t));
  PetscFunctionReturn(0);
}

static const MbsParameterInfo Bushing2Parameters[] = {
  {"m1", "kg",    "mass 1",                             1.0,    1e-6, 1e6, PETSC_TRUE},
  {"m2", "kg",    "mass 2",                             1.0,    1e-6, 1e6, PETSC_TRUE},
  {"k1", "N/m",   "stiffness of bushing 1 (ground-m1)", 2000.0, 0,    1e9, PETSC_TRUE},
  {"k2", "N/m",   "stiffness of bushing 2 (m1-m2)",     1000.0, 0,    1e9, PETSC_TRUE},
  {"d1", "N s/m", "damping of bushing 1",               4.0,    0,    1e6, PETSC_TRUE},
  {"d2", "N s/m", "damping of bushing 2",               2.0,    0,    1e6, PETSC_TRUE},
};

PetscErrorCode MbsModelCreate_Bushing2(MbsModel model)
{
  PetscFunctionBeginUser;
  PetscCall(MbsTwoMassSetOps_Private(model, Bushing2Parameters));
  model->ops.excitation = Bushing2Excitation;
  model->t0             = 0;
  model->tf             = 2.0;
  model->dt             = 1e-3;
  PetscFunctionReturn(0);
}
