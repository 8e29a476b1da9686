/*
  Element position: sensor y = e.P(q), the coordinate of a body point along a ground axis e [m]; dy/dq = e^T P.
  Fields: body, point (ground coordinates at the initial pose, default the centre of mass; its coordinates may be
  parameters, geometry.c), axis (its components may be parameters: e = a/|a|, dy/dp_j = de/dp_j.P(q)).
*/
#include "models/elements/elementimpl.h"

/* body, point and axis of a sensor; shared with velocity.c */
PetscErrorCode MbsSensorRead(MbsYAMLReader *reader, void *node, MbsElement *el)
{
  PetscFunctionBeginUser;
  PetscCall(MbsYAMLReadBody(reader, node, "body", PETSC_TRUE, &el->body[0]));
  if (el->body[0] == MBS_GROUND) PetscCall(MbsYAMLError(reader, node, "a sensor on the ground measures nothing; name a body"));
  PetscCall(MbsYAMLReadWorldPoint(reader, node, el->body[0], el->vector[0]));
  PetscCall(MbsYAMLReadAxis(reader, node, "axis", el, el->vector[1]));
  PetscFunctionReturn(0);
}

/* The sensor's ground axis: the file's, or a/|a| at the last update of an axis that is a parameter (geometry.c) */
static const PetscReal *SensorAxis(const MbsElement *el, PetscReal e[3])
{
  PetscReal de[3];

  if (!el->naxis) return el->vector[1];
  MbsJointAxisUnit(el, -1, e, de);
  return e;
}

/* e.(P x + position ? P0 : 0) and its gradient e^T P: the point's position (x = q) or velocity (x = v) along e */
void MbsSensorAlong(MbsDescription desc, const MbsElement *el, const PetscReal x[], PetscBool position, PetscReal *y, PetscReal dydx[])
{
  MbsVectorMap     P;
  PetscReal        p[3], axis[3];
  const PetscReal *e = SensorAxis(el, axis);

  MbsMapPoint(desc, el->body[0], el->vector[0], &P);
  MbsMapEval(desc, &P, x, position, p);
  *y = p[0] * e[0] + p[1] * e[1] + p[2] * e[2];
  if (dydx) MbsMapAddTranspose(desc, &P, 1, e, dydx, 1);
}

/*@C
  MbsSensorAlongP - dy/dp of MbsSensorAlong(): e.dP/dp_j x of a point coordinate (geometry.c) and de/dp_j.(P x) of an
  axis component, added into dydp. Not collective.
@*/
void MbsSensorAlongP(MbsDescription desc, const MbsElement *el, const PetscReal x[], PetscBool position, PetscReal dydp[])
{
  MbsVectorMap P;
  PetscReal    p[3], axis[3];

  MbsGeometrySensorP(desc, el, x, position, SensorAxis(el, axis), dydp);
  MbsMapPoint(desc, el->body[0], el->vector[0], &P);
  MbsMapEval(desc, &P, x, position, p);
  MbsSensorAxisP(desc, el, NULL, p, dydp); /* a position's or velocity's axis is fixed in the ground: no q needed */
}

static PetscErrorCode PositionSensor(MbsDescription desc, const MbsElement *el, const PetscReal q[], const PetscReal v[], const PetscReal a[], PetscReal *y, PetscReal dydq[], PetscReal dydv[], PetscReal dyda[])
{
  PetscFunctionBeginUser;
  MbsSensorAlong(desc, el, q, PETSC_TRUE, y, dydq);
  PetscFunctionReturn(0);
}

/* A point coordinate or axis component that is a parameter (geometry.c): dy/dp_j = e.dP/dp_j or de/dp_j.P */
static PetscErrorCode PositionSensorP(MbsDescription desc, const MbsElement *el, const PetscReal q[], const PetscReal v[], const PetscReal a[], PetscReal dydp[])
{
  PetscFunctionBeginUser;
  MbsSensorAlongP(desc, el, q, PETSC_TRUE, dydp);
  PetscFunctionReturn(0);
}

static const MbsElementType Position = {MBS_ELEMENT_SENSOR, MbsSensorRead, NULL, PositionSensor, "m", PETSC_FALSE, NULL, PositionSensorP, NULL, PETSC_TRUE, NULL};

PetscErrorCode MbsElementGetType_Position(const MbsElementType **type)
{
  *type = &Position;
  return 0;
}
