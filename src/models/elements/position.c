/*
  Element position: sensor y = e.P(q), the coordinate of a body point along an axis e [m]; dy/dq = e^T P. Fields:
  body, point (ground coordinates at the initial pose, default the centre of mass; its coordinates may be parameters,
  geometry.c), axis (ground axes at the initial pose; its components may be parameters: e = a/|a|,
  dy/dp_j = de/dp_j.P(q)), frame: ground (default) or body. With frame: body the axis turns with the body, e = D q (D:
  the map of R e_body), which adds dy/dq = D^T P(q): the point's position read in the body's own turning axes.
  velocity.c and acceleration.c read the point's velocity P v and acceleration P a the same way.
*/
#include "models/elements/elementimpl.h"

/*@C
  MbsSensorReadFrame - frame: ground (default) or body, the axes a sensor's axis or a force's direction is fixed in;
  with body, axis (ground coordinates at the initial pose) becomes body coordinates of body, and turning is set. A
  point mass has no axes that turn: frame: body on one is refused. Shared with MbsSensorRead() (position, velocity and
  acceleration), relative_displacement.c and force.c.
@*/
PetscErrorCode MbsSensorReadFrame(MbsYAMLReader *reader, void *node, PetscInt body, PetscReal axis[3], PetscBool *turning)
{
  const char *frame[1];
  PetscInt    nframe = 1;

  PetscFunctionBeginUser;
  PetscCall(MbsYAMLReadWords(reader, node, "frame", &nframe, frame));
  if (nframe && strcmp(frame[0], "ground") && strcmp(frame[0], "body")) PetscCall(MbsYAMLError(reader, node, "frame: '%s' is neither ground nor body", frame[0]));
  *turning = (PetscBool)(nframe && !strcmp(frame[0], "body"));
  if (*turning && body != MBS_GROUND && !MbsYAMLReaderDescription(reader)->body[body].rigid)
    PetscCall(MbsYAMLError(reader, node, "frame: body needs a rigid body (one with inertia), but '%s' is a point mass, whose axes do not turn; give frame: ground", MbsYAMLReaderDescription(reader)->body[body].name));
  if (*turning) {
    PetscReal ground[3] = {axis[0], axis[1], axis[2]};

    MbsDescriptionLocalDirection(MbsYAMLReaderDescription(reader), body, ground, axis);
  }
  PetscFunctionReturn(0);
}

/* body, point, axis and frame of a sensor; shared with velocity.c and acceleration.c */
PetscErrorCode MbsSensorRead(MbsYAMLReader *reader, void *node, MbsElement *el)
{
  PetscFunctionBeginUser;
  PetscCall(MbsYAMLReadBody(reader, node, "body", PETSC_TRUE, &el->body[0]));
  if (el->body[0] == MBS_GROUND) PetscCall(MbsYAMLError(reader, node, "a sensor on the ground measures nothing; name a body"));
  PetscCall(MbsYAMLReadWorldPoint(reader, node, el->body[0], el->vector[0]));
  PetscCall(MbsYAMLReadAxis(reader, node, "axis", el, el->vector[1]));
  PetscCall(MbsSensorReadFrame(reader, node, el->body[0], el->vector[1], &el->turning));
  PetscFunctionReturn(0);
}

/* The sensor's axis e at q: its ground axis (the file's, or a/|a| at the last update of an axis that is a parameter,
   geometry.c), or with frame: body that axis turning with the body, and then its map D (el->vector[1] is then in body
   axes; an axis that is a parameter is turned into them at its current value) */
static void SensorAxisAt(MbsDescription desc, const MbsElement *el, const PetscReal q[], PetscReal e[3], MbsVectorMap *D)
{
  PetscReal de[3], local[3];

  if (el->naxis) MbsJointAxisUnit(el, -1, e, de);
  else
    for (PetscInt k = 0; k < 3; k++) e[k] = el->vector[1][k];
  if (!el->turning) return;
  if (el->naxis) MbsDescriptionLocalDirection(desc, el->body[0], e, local);
  else
    for (PetscInt k = 0; k < 3; k++) local[k] = el->vector[1][k];
  MbsMapDirection(desc, el->body[0], local, D);
  MbsMapEval(desc, D, q, PETSC_TRUE, e);
}

/* The point's position (x = q), velocity (x = v) or acceleration (x = a), P x + (position ? P0 : 0), into p */
static void SensorPoint(MbsDescription desc, const MbsElement *el, const PetscReal x[], PetscBool position, MbsVectorMap *P, PetscReal p[3])
{
  MbsMapPoint(desc, el->body[0], el->vector[0], P);
  MbsMapEval(desc, P, x, position, p);
}

/*@C
  MbsSensorAlong - y = e(q).p, p = P x + (position ? P0 : 0) the point's position (x = q), velocity (x = v) or
  acceleration (x = a) along the sensor's axis at q; its gradients P^T e added into dydx and, for an axis turning with
  the body, D^T p into dydq (each may be NULL; for a position both are dy/dq). Not collective.
@*/
void MbsSensorAlong(MbsDescription desc, const MbsElement *el, const PetscReal q[], const PetscReal x[], PetscBool position, PetscReal *y, PetscReal dydq[], PetscReal dydx[])
{
  MbsVectorMap P, D;
  PetscReal    p[3], e[3];

  SensorPoint(desc, el, x, position, &P, p);
  SensorAxisAt(desc, el, q, e, &D);
  *y = p[0] * e[0] + p[1] * e[1] + p[2] * e[2];
  if (dydx) MbsMapAddTranspose(desc, &P, 1, e, dydx, 1);
  if (el->turning && dydq) MbsMapAddTranspose(desc, &D, 1, p, dydq, 1);
}

/*@C
  MbsSensorAlongP - dy/dp of MbsSensorAlong(): e.(dP/dp_j x) of a point coordinate (geometry.c) and E_j.p of an axis
  component (E_j = de/dp_j, turning with the body for frame: body), added into dydp. Not collective.
@*/
void MbsSensorAlongP(MbsDescription desc, const MbsElement *el, const PetscReal q[], const PetscReal x[], PetscBool position, PetscReal dydp[])
{
  MbsVectorMap P, D;
  PetscReal    p[3], e[3];

  SensorAxisAt(desc, el, q, e, &D);
  MbsGeometrySensorP(desc, el, x, position, e, dydp);
  SensorPoint(desc, el, x, position, &P, p);
  MbsSensorAxisP(desc, el, q, p, dydp);
}

static PetscErrorCode PositionSensor(MbsDescription desc, const MbsElement *el, const PetscReal q[], const PetscReal v[], const PetscReal a[], PetscReal *y, PetscReal dydq[], PetscReal dydv[], PetscReal dyda[])
{
  PetscFunctionBeginUser;
  MbsSensorAlong(desc, el, q, q, PETSC_TRUE, y, dydq, dydq);
  PetscFunctionReturn(0);
}

/* A point coordinate or axis component that is a parameter (geometry.c): dy/dp_j = e.dP/dp_j or E_j.P */
static PetscErrorCode PositionSensorP(MbsDescription desc, const MbsElement *el, const PetscReal q[], const PetscReal v[], const PetscReal a[], PetscReal dydp[])
{
  PetscFunctionBeginUser;
  MbsSensorAlongP(desc, el, q, q, PETSC_TRUE, dydp);
  PetscFunctionReturn(0);
}

static const MbsElementType Position = {MBS_ELEMENT_SENSOR, MbsSensorRead, NULL, PositionSensor, "m", PETSC_FALSE, NULL, PositionSensorP, NULL, PETSC_TRUE, NULL};

PetscErrorCode MbsElementGetType_Position(const MbsElementType **type)
{
  *type = &Position;
  return 0;
}
