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
  if (el->naxis) PetscCall(MbsYAMLError(reader, node, "an accelerometer's axis cannot hold a parameter (its derivative is not provided; a position's or velocity's axis can)"));
  PetscCall(MbsSensorReadFrame(reader, node, el->body[0], el->vector[1], &el->turning));
  PetscFunctionReturn(0);
}

static PetscErrorCode AccelerationSensor(MbsDescription desc, const MbsElement *el, const PetscReal q[], const PetscReal v[], const PetscReal a[], PetscReal *y, PetscReal dydq[], PetscReal dydv[], PetscReal dyda[])
{
  MbsVectorMap P, D;
  PetscReal    acc[3], e[3] = {el->vector[1][0], el->vector[1][1], el->vector[1][2]};

  PetscFunctionBeginUser;
  MbsMapPoint(desc, el->body[0], el->vector[0], &P);
  MbsMapEval(desc, &P, a, PETSC_FALSE, acc);
  if (el->turning) {
    MbsMapDirection(desc, el->body[0], el->vector[1], &D);
    MbsMapEval(desc, &D, q, PETSC_TRUE, e);
    if (dydq) MbsMapAddTranspose(desc, &D, 1, acc, dydq, 1);
  }
  *y = e[0] * acc[0] + e[1] * acc[1] + e[2] * acc[2];
  if (dyda) MbsMapAddTranspose(desc, &P, 1, e, dyda, 1);
  PetscFunctionReturn(0);
}

/* A point coordinate that is a parameter (geometry.c): dy/dp_j = e.(dP/dp_j)'' at the accelerations a, which the
   model's chain through a(t, q, v, lambda, p) completes */
static PetscErrorCode AccelerationSensorP(MbsDescription desc, const MbsElement *el, const PetscReal q[], const PetscReal v[], const PetscReal a[], PetscReal dydp[])
{
  MbsVectorMap D;
  PetscReal    e[3] = {el->vector[1][0], el->vector[1][1], el->vector[1][2]};

  PetscFunctionBeginUser;
  if (el->turning) {
    MbsMapDirection(desc, el->body[0], el->vector[1], &D);
    MbsMapEval(desc, &D, q, PETSC_TRUE, e);
  }
  MbsGeometrySensorP(desc, el, a, PETSC_FALSE, e, dydp);
  PetscFunctionReturn(0);
}

static const MbsElementType Acceleration = {MBS_ELEMENT_SENSOR, AccelerationRead, NULL, AccelerationSensor, "m/s^2", PETSC_TRUE, NULL, AccelerationSensorP, NULL, PETSC_TRUE, NULL};

PetscErrorCode MbsElementGetType_Acceleration(const MbsElementType **type)
{
  *type = &Acceleration;
  return 0;
}
