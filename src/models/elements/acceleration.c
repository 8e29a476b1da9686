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

/*@C
  MbsSensorReadFrame - frame: ground (default) or body, the axes a sensor's axis is fixed in; with body, axis (ground
  coordinates at the initial pose) becomes body coordinates of body, and turning is set. Shared with
  relative_displacement.c.
@*/
PetscErrorCode MbsSensorReadFrame(MbsYAMLReader *reader, void *node, PetscInt body, PetscReal axis[3], PetscBool *turning)
{
  const char *frame[1];
  PetscInt    nframe = 1;

  PetscFunctionBeginUser;
  PetscCall(MbsYAMLReadWords(reader, node, "frame", &nframe, frame));
  if (nframe && strcmp(frame[0], "ground") && strcmp(frame[0], "body")) PetscCall(MbsYAMLError(reader, node, "frame: '%s' is neither ground nor body", frame[0]));
  *turning = (PetscBool)(nframe && !strcmp(frame[0], "body"));
  if (*turning) {
    PetscReal ground[3] = {axis[0], axis[1], axis[2]};

    MbsDescriptionLocalDirection(MbsYAMLReaderDescription(reader), body, ground, axis);
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode AccelerationRead(MbsYAMLReader *reader, void *node, MbsElement *el)
{
  PetscFunctionBeginUser;
  PetscCall(MbsSensorRead(reader, node, el));
  PetscCall(MbsSensorReadFrame(reader, node, el->body[0], el->vector[1], &el->turning));
  PetscFunctionReturn(0);
}

/* The axis at q of a ground direction g (the sensor's at the last update of an axis that is a parameter, or its
   derivative, geometry.c): g itself, or with frame: body g turning with the body, and then its map */
static void AccelerationAxis(MbsDescription desc, const MbsElement *el, const PetscReal g[3], const PetscReal q[], PetscReal e[3], MbsVectorMap *D)
{
  PetscReal local[3];

  for (PetscInt k = 0; k < 3; k++) e[k] = g[k];
  if (!el->turning) return;
  MbsDescriptionLocalDirection(desc, el->body[0], g, local);
  MbsMapDirection(desc, el->body[0], local, D);
  MbsMapEval(desc, D, q, PETSC_TRUE, e);
}

static PetscErrorCode AccelerationSensor(MbsDescription desc, const MbsElement *el, const PetscReal q[], const PetscReal v[], const PetscReal a[], PetscReal *y, PetscReal dydq[], PetscReal dydv[], PetscReal dyda[])
{
  MbsVectorMap P, D;
  PetscReal    acc[3], e[3] = {el->vector[1][0], el->vector[1][1], el->vector[1][2]}, g[3], dg[3];

  PetscFunctionBeginUser;
  MbsMapPoint(desc, el->body[0], el->vector[0], &P);
  MbsMapEval(desc, &P, a, PETSC_FALSE, acc);
  if (el->naxis) { /* an axis that is a parameter: the ground axis at the last update */
    MbsJointAxisUnit(el, -1, g, dg);
    AccelerationAxis(desc, el, g, q, e, &D);
    if (el->turning && dydq) MbsMapAddTranspose(desc, &D, 1, acc, dydq, 1);
  } else if (el->turning) {
    MbsMapDirection(desc, el->body[0], el->vector[1], &D);
    MbsMapEval(desc, &D, q, PETSC_TRUE, e);
    if (dydq) MbsMapAddTranspose(desc, &D, 1, acc, dydq, 1);
  }
  *y = e[0] * acc[0] + e[1] * acc[1] + e[2] * acc[2];
  if (dyda) MbsMapAddTranspose(desc, &P, 1, e, dyda, 1);
  PetscFunctionReturn(0);
}

/* A point coordinate that is a parameter (geometry.c): dy/dp_j = e.(dP/dp_j)'' at the accelerations a; an axis
   component: dy/dp_j = E.(P a), E = de/dp_j (turning with the body for frame: body). The model's chain through
   a(t, q, v, lambda, p) completes both */
static PetscErrorCode AccelerationSensorP(MbsDescription desc, const MbsElement *el, const PetscReal q[], const PetscReal v[], const PetscReal a[], PetscReal dydp[])
{
  MbsVectorMap D, P;
  PetscReal    e[3] = {el->vector[1][0], el->vector[1][1], el->vector[1][2]}, g[3], dg[3], acc[3];

  PetscFunctionBeginUser;
  if (el->naxis) {
    MbsJointAxisUnit(el, -1, g, dg);
    AccelerationAxis(desc, el, g, q, e, &D);
  } else if (el->turning) {
    MbsMapDirection(desc, el->body[0], el->vector[1], &D);
    MbsMapEval(desc, &D, q, PETSC_TRUE, e);
  }
  MbsGeometrySensorP(desc, el, a, PETSC_FALSE, e, dydp);
  MbsMapPoint(desc, el->body[0], el->vector[0], &P);
  MbsMapEval(desc, &P, a, PETSC_FALSE, acc);
  MbsSensorAxisP(desc, el, q, acc, dydp);
  PetscFunctionReturn(0);
}

static const MbsElementType Acceleration = {MBS_ELEMENT_SENSOR, AccelerationRead, NULL, AccelerationSensor, "m/s^2", PETSC_TRUE, NULL, AccelerationSensorP, NULL, PETSC_TRUE, NULL};

PetscErrorCode MbsElementGetType_Acceleration(const MbsElementType **type)
{
  *type = &Acceleration;
  return 0;
}
