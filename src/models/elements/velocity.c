/*
  Element velocity: sensor y = e.P v, the velocity of a body point along a ground axis e [m/s]; dy/dv = e^T P.
  Fields as position.
*/
#include "models/elements/elementimpl.h"

static PetscErrorCode VelocitySensor(MbsDescription desc, const MbsElement *el, const PetscReal q[], const PetscReal v[], const PetscReal a[], PetscReal *y, PetscReal dydq[], PetscReal dydv[], PetscReal dyda[])
{
  PetscFunctionBeginUser;
  MbsSensorAlong(desc, el, v, PETSC_FALSE, y, dydv);
  PetscFunctionReturn(0);
}

/* A point coordinate or axis component that is a parameter (geometry.c): dy/dp_j = e.(dP/dp_j)' or de/dp_j.P v */
static PetscErrorCode VelocitySensorP(MbsDescription desc, const MbsElement *el, const PetscReal q[], const PetscReal v[], const PetscReal a[], PetscReal dydp[])
{
  PetscFunctionBeginUser;
  MbsSensorAlongP(desc, el, v, PETSC_FALSE, dydp);
  PetscFunctionReturn(0);
}

static const MbsElementType Velocity = {MBS_ELEMENT_SENSOR, MbsSensorRead, NULL, VelocitySensor, "m/s", PETSC_FALSE, NULL, VelocitySensorP, NULL, PETSC_TRUE, NULL};

PetscErrorCode MbsElementGetType_Velocity(const MbsElementType **type)
{
  *type = &Velocity;
  return 0;
}
