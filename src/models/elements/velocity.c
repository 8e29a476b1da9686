/*
  Element velocity: sensor y = e.P v, the velocity of a body point along an axis e [m/s]; dy/dv = e^T P. Fields as
  position; with frame: body (a velocity pickup mounted on the body) the axis turns with it, e = D q, and
  dy/dq = D^T P v.
*/
#include "models/elements/elementimpl.h"

static PetscErrorCode VelocitySensor(MbsDescription desc, const MbsElement *el, const PetscReal q[], const PetscReal v[], const PetscReal a[], PetscReal *y, PetscReal dydq[], PetscReal dydv[], PetscReal dyda[])
{
  PetscFunctionBeginUser;
  MbsSensorAlong(desc, el, q, v, PETSC_FALSE, y, dydq, dydv);
  PetscFunctionReturn(0);
}

/* A point coordinate or axis component that is a parameter (geometry.c): dy/dp_j = e.(dP/dp_j)' or E_j.P v */
static PetscErrorCode VelocitySensorP(MbsDescription desc, const MbsElement *el, const PetscReal q[], const PetscReal v[], const PetscReal a[], PetscReal dydp[])
{
  PetscFunctionBeginUser;
  MbsSensorAlongP(desc, el, q, v, PETSC_FALSE, dydp);
  PetscFunctionReturn(0);
}

static const MbsElementType Velocity = {MBS_ELEMENT_SENSOR, MbsSensorRead, NULL, VelocitySensor, "m/s", PETSC_FALSE, NULL, VelocitySensorP, NULL, PETSC_TRUE, NULL};

PetscErrorCode MbsElementGetType_Velocity(const MbsElementType **type)
{
  *type = &Velocity;
  return 0;
}
