/*
  Element position: sensor y = e.P(q), the coordinate of a body point along a ground axis e [m]; dy/dq = e^T P.
  Fields: body, point (ground coordinates at the initial pose, default the centre of mass; its coordinates may be
  parameters, geometry.c), axis.
*/
#include "models/elements/elementimpl.h"

/* body, point and axis of a sensor; shared with velocity.c */
PetscErrorCode MbsSensorRead(MbsYAMLReader *reader, void *node, MbsElement *el)
{
  PetscFunctionBeginUser;
  PetscCall(MbsYAMLReadBody(reader, node, "body", PETSC_TRUE, &el->body[0]));
  if (el->body[0] == MBS_GROUND) PetscCall(MbsYAMLError(reader, node, "a sensor on the ground measures nothing; name a body"));
  PetscCall(MbsYAMLReadWorldPoint(reader, node, el->body[0], el->vector[0]));
  PetscCall(MbsYAMLReadUnitVector(reader, node, "axis", el->vector[1]));
  PetscFunctionReturn(0);
}

/* e.(P x + position ? P0 : 0) and its gradient e^T P: the point's position (x = q) or velocity (x = v) along e */
void MbsSensorAlong(MbsDescription desc, const MbsElement *el, const PetscReal x[], PetscBool position, PetscReal *y, PetscReal dydx[])
{
  MbsVectorMap P;
  PetscReal    p[3];

  MbsMapPoint(desc, el->body[0], el->vector[0], &P);
  MbsMapEval(desc, &P, x, position, p);
  *y = p[0] * el->vector[1][0] + p[1] * el->vector[1][1] + p[2] * el->vector[1][2];
  if (dydx) MbsMapAddTranspose(desc, &P, 1, el->vector[1], dydx, 1);
}

static PetscErrorCode PositionSensor(MbsDescription desc, const MbsElement *el, const PetscReal q[], const PetscReal v[], const PetscReal a[], PetscReal *y, PetscReal dydq[], PetscReal dydv[], PetscReal dyda[])
{
  PetscFunctionBeginUser;
  MbsSensorAlong(desc, el, q, PETSC_TRUE, y, dydq);
  PetscFunctionReturn(0);
}

/* A point coordinate that is a parameter (geometry.c): dy/dp_j = e.dP/dp_j */
static PetscErrorCode PositionSensorP(MbsDescription desc, const MbsElement *el, const PetscReal q[], const PetscReal v[], const PetscReal a[], PetscReal dydp[])
{
  PetscFunctionBeginUser;
  MbsGeometrySensorP(desc, el, q, PETSC_TRUE, el->vector[1], dydp);
  PetscFunctionReturn(0);
}

static const MbsElementType Position = {MBS_ELEMENT_SENSOR, MbsSensorRead, NULL, PositionSensor, "m", PETSC_FALSE, NULL, PositionSensorP, NULL, PETSC_TRUE, NULL};

PetscErrorCode MbsElementGetType_Position(const MbsElementType **type)
{
  *type = &Position;
  return 0;
}
