/*
  Element acceleration: an accelerometer, y = e.(P a), the absolute acceleration of a body point along an axis e
  [m/s^2] (powertrain_mounts.md section 7: a = x'' + omega' x (R s) + omega x (omega x (R s)), which in natural
  coordinates is P v' exactly, the point P linear in q). The accelerations a = v' are those of the second GGL row,
  M v' = f - Phi_q^T lambda, an algebraic function of (t, q, v, lambda, p) that the model evaluates and differentiates
  (model_described.c); here dy/da = P^T e. With frame: body the axis turns with the body, y = (D q).(P a) (D: the map
  of R e_body), which adds dy/dq = D^T (P a). Fields: body, point (ground coordinates at the initial pose, default the
  centre of mass), axis (ground axes at the initial pose), frame: ground (default) or body.
*/
#include "models/elements/elementimpl.h"

static PetscErrorCode AccelerationSensor(MbsDescription desc, const MbsElement *el, const PetscReal q[], const PetscReal v[], const PetscReal a[], PetscReal *y, PetscReal dydq[], PetscReal dydv[], PetscReal dyda[])
{
  PetscFunctionBeginUser;
  MbsSensorAlong(desc, el, q, a, PETSC_FALSE, y, dydq, dyda);
  PetscFunctionReturn(0);
}

/* A point coordinate that is a parameter (geometry.c): dy/dp_j = e.(dP/dp_j)'' at the accelerations a; an axis
   component: dy/dp_j = E.(P a), E = de/dp_j (turning with the body for frame: body). The model's chain through
   a(t, q, v, lambda, p) completes both */
static PetscErrorCode AccelerationSensorP(MbsDescription desc, const MbsElement *el, const PetscReal q[], const PetscReal v[], const PetscReal a[], PetscReal dydp[])
{
  PetscFunctionBeginUser;
  MbsSensorAlongP(desc, el, q, a, PETSC_FALSE, dydp);
  PetscFunctionReturn(0);
}

static const MbsElementType Acceleration = {MBS_ELEMENT_SENSOR, MbsSensorRead, NULL, AccelerationSensor, "m/s^2", PETSC_TRUE, NULL, AccelerationSensorP, NULL, PETSC_TRUE, NULL};

PetscErrorCode MbsElementGetType_Acceleration(const MbsElementType **type)
{
  *type = &Acceleration;
  return 0;
}
